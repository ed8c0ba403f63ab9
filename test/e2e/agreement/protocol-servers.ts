/**
 * Local servers for the protocol agreement tests, on 127.0.0.1 with ephemeral ports and the test
 * self-signed certificate: HTTPS with HTTP/2 and HTTP/1.1 (ALPN), HTTP/2 only, HTTP/1.1 only, and plain
 * HTTP/2 (h2c, prior knowledge). Each answers any request with a small HTML page naming the protocol it saw.
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createSecureServer, createServer as createH2cServer } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { AddressInfo, Server } from 'node:net';
import type { TlsIdentity } from '@k6-triton/server';

/** A started server and how to stop it. */
export interface Listening {
  url: string;
  close: () => Promise<void>;
}

type Handler = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void;

/** The default page: the protocol version the server saw. */
export const echoVersion: Handler = (req, res) => {
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end(`<html><head><title>HTTP/${req.httpVersion}</title></head><body></body></html>`);
};

async function listen(server: Server, scheme: string): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** HTTPS offering h2 and http/1.1 by ALPN (node:http2 with allowHTTP1). */
export function startH2Tls(id: TlsIdentity, handler: Handler = echoVersion): Promise<Listening> {
  return listen(createSecureServer({ ...id, allowHTTP1: true }, handler) as unknown as Server, 'https');
}

/** HTTPS speaking HTTP/2 only. */
export function startH2OnlyTls(id: TlsIdentity, handler: Handler = echoVersion): Promise<Listening> {
  return listen(createSecureServer({ ...id }, handler) as unknown as Server, 'https');
}

/** HTTPS speaking HTTP/1.1 only, with extra TLS options (versions, ciphers). */
export function startH1Tls(
  id: TlsIdentity,
  handler: Handler = echoVersion,
  tls: Record<string, unknown> = {},
): Promise<Listening> {
  return listen(createHttpsServer({ ...id, ...tls }, handler), 'https');
}

/** Plain HTTP/2 with prior knowledge (h2c), no HTTP/1.1. */
export function startH2c(handler: Handler = echoVersion): Promise<Listening> {
  return listen(createH2cServer(handler) as unknown as Server, 'http');
}

/** Plain HTTP/1.1. */
export function startHttp(handler: Handler = echoVersion): Promise<Listening> {
  return listen(createHttpServer(handler), 'http');
}
