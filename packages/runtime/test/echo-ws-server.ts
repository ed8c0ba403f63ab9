/**
 * The WebSocket server of the k6/ws and k6/websockets tests, on 127.0.0.1 with an ephemeral port (the `ws`
 * package's server, independent of the modules under test). It echoes every text and binary message as it
 * came, except these text commands:
 * - `close <code> [reason]`: the server closes with that code and reason;
 * - `ping`: the server pings the client (which answers with a pong and sees a `ping` event);
 * - `drop`: the server cuts the TCP connection without a close frame (an abnormal closure, 1006).
 * A request with an `X-Greet` header is greeted first with `greet:<value>`; `/reject` is refused with 403
 * and the body `refused`. The first subprotocol a client offers is accepted. With a TLS identity it serves wss:.
 */
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { TlsIdentity } from '@k6-triton/server';

/** A running echo server: its base URL (`ws://127.0.0.1:port`), its sessions so far, the close codes clients sent, and stop(). */
export interface WsEchoServer {
  url: string;
  sessions(): number;
  /** The close code of every session a client closed (1005 without a code, 1006 when cut), in order. */
  closeCodes(): number[];
  stop(): Promise<void>;
}

/** Starts the echo server on 127.0.0.1, port 0 (over TLS with `tls`: wss:). */
export async function startWsEchoServer(options: { tls?: TlsIdentity } = {}): Promise<WsEchoServer> {
  let sessions = 0;
  const codes: number[] = [];
  const https = options.tls ? createServer(options.tls) : null;
  const wss = new WebSocketServer({
    ...(https ? { server: https } : { host: '127.0.0.1', port: 0 }),
    handleProtocols: (offered) => offered.values().next().value ?? false,
    verifyClient: (info, cb) => {
      if (info.req.url === '/reject') cb(false, 403, 'refused');
      else cb(true);
    },
  });
  wss.on('connection', (socket, req) => {
    sessions++;
    const greet = req.headers['x-greet'];
    if (typeof greet === 'string') socket.send(`greet:${greet}`);
    socket.on('message', (data, isBinary) => {
      if (!isBinary) {
        const text = data.toString();
        const close = /^close (\d+)(?: (.*))?$/.exec(text);
        if (close) return socket.close(Number(close[1]), close[2] ?? '');
        if (text === 'ping') return socket.ping('srv');
        if (text === 'drop') return socket.terminate();
      }
      socket.send(data, { binary: isBinary });
    });
    socket.on('error', () => undefined);
    socket.on('close', (code) => codes.push(code));
  });
  await new Promise<void>((resolve, reject) => {
    if (https) {
      https.once('error', reject);
      https.listen(0, '127.0.0.1', resolve);
    } else {
      wss.once('listening', resolve);
      wss.once('error', reject);
    }
  });
  const { port } = (https ?? wss).address() as AddressInfo;
  return {
    url: `${https ? 'wss' : 'ws'}://127.0.0.1:${port}`,
    sessions: () => sessions,
    closeCodes: () => [...codes],
    stop: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => (https ? https.close(() => resolve()) : resolve()));
      }),
  };
}
