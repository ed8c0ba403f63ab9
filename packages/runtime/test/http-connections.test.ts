/**
 * A VU's plain-HTTP connections against a raw TCP server that answers with hand-written bytes: every
 * framing HTTP/1.1 allows (Content-Length, chunked split across writes, until close, HEAD), keep-alive reuse, Connection: close, and the errors a k6 script sees.
 */
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { k6ErrorFor } from '../src/modules/http-errors.ts';
import type { WireRequest } from '../src/transport/wire-types.ts';
import { VuConnections } from '../src/transport/http-transport.ts';

let server: Server | undefined;
afterEach(() => server?.close());

/** A server that hands each received request (as text) to `answer`, which writes raw bytes. */
async function rawServer(answer: (request: string, socket: Socket, n: number) => void): Promise<URL> {
  let n = 0;
  server = createServer((socket) => {
    let got = '';
    socket.on('data', (d) => {
      got += d.toString('latin1');
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(got)?.[1] ?? 0);
      if (got.length < end + 4 + length) return;
      const request = got;
      got = '';
      answer(request, socket, n++);
    });
    socket.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as { port: number };
  return new URL(`http://127.0.0.1:${address.port}/v2/models/m/infer`);
}

function request(url: URL, over: Partial<WireRequest> = {}): WireRequest {
  return {
    method: 'POST',
    url,
    headers: { 'Content-Type': 'application/octet-stream' },
    body: new Uint8Array([1, 2, 3, 4]),
    timeout_ms: 5_000,
    responseType: 'text',
    reuseConnection: true,
    ...over,
  };
}

const text = (r: { chunks: Buffer[] }) => Buffer.concat(r.chunks).toString();

describe("a VU's plain-HTTP connections", () => {
  it('sends head and body in one request and reuses the connection for the next', async () => {
    const seen: string[] = [];
    const url = await rawServer((req, socket) => {
      seen.push(req);
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Id: a\r\n\r\nok');
    });
    const conn = new VuConnections();
    const first = await conn.send(request(url));
    const second = await conn.send(request(url));
    expect([first.status, second.status, text(first), text(second)]).toEqual([200, 200, 'ok', 'ok']);
    expect(first.statusText).toBe('OK');
    expect(first.rawHeaders().map(String)).toEqual(['Content-Length', '2', 'X-Id', 'a']);
    expect(seen[0]).toMatch(/^POST \/v2\/models\/m\/infer HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\n/);
    expect(seen[0]).toContain('content-length: 4\r\n');
    expect(seen[0]!.endsWith('\r\n\r\n\x01\x02\x03\x04')).toBe(true);
    expect(first.timings.connecting).toBeGreaterThan(0);
    expect(second.timings.connecting).toBe(0);
    expect(first.sent_bytes).toBe(Buffer.byteLength(seen[0]!, 'latin1'));
    expect(first.received_bytes).toBe(
      Buffer.byteLength('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Id: a\r\n\r\nok'),
    );
    await conn.close();
  });

  it('reads chunked bodies split at any byte', async () => {
    const reply =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\nX-T: 1\r\n\r\n';
    const url = await rawServer((_req, socket) => {
      // One byte per write, each flushed on its own, so the parser sees every split.
      socket.setNoDelay(true);
      let i = 0;
      const next = () => (i < reply.length ? socket.write(reply[i++]!, () => setImmediate(next)) : undefined);
      next();
    });
    const conn = new VuConnections();
    const res = await conn.send(request(url));
    expect(res.error).toBeNull();
    expect([res.status, text(res), res.bodyLength_bytes]).toEqual([200, 'hello world', 11]);
    await conn.close();
  });

  it('reads a body delimited by the end of the connection, and then drops the connection', async () => {
    const url = await rawServer((_req, socket) => socket.end('HTTP/1.1 200 OK\r\n\r\nuntil close'));
    const conn = new VuConnections();
    const res = await conn.send(request(url));
    expect([res.status, text(res)]).toEqual([200, 'until close']);
    // The connection ended with the body: the next request dials again.
    const again = await conn.send(request(url));
    expect([again.status, again.timings.connecting > 0]).toEqual([200, true]);
    await conn.close();
  });

  it('closes after a response saying Connection: close, and reads no body for HEAD', async () => {
    const url = await rawServer((req, socket) =>
      socket.write(
        req.startsWith('HEAD')
          ? 'HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n'
          : 'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
      ),
    );
    const head = new VuConnections();
    const res = await head.send(request(url, { method: 'HEAD', body: null }));
    expect([res.status, res.bodyLength_bytes]).toEqual([200, 0]);
    const reused = await head.send(request(url, { method: 'HEAD', body: null }));
    expect([reused.status, reused.timings.connecting]).toEqual([200, 0]);
    await head.close();
    const post = new VuConnections();
    const closed = await post.send(request(url));
    expect([closed.status, closed.statusText]).toEqual([503, 'Service Unavailable']);
    const redial = await post.send(request(url));
    expect([redial.status, redial.timings.connecting > 0]).toEqual([503, true]);
    await post.close();
  });

  it('reports a connection cut before the response as k6 does (EOF), and a refused dial', async () => {
    const url = await rawServer((_req, socket) => socket.destroy());
    const conn = new VuConnections();
    const cut = await conn.send(request(url));
    expect(cut.status).toBe(0);
    expect(k6ErrorFor(cut.error)).toEqual({ code: 1000, message: 'EOF' });
    server!.close();
    await once(server!, 'close');
    const refused = new VuConnections();
    const res = await refused.send(request(url));
    expect(k6ErrorFor(res.error)).toEqual({ code: 1212, message: 'dial: connection refused' });
  });

  it('times out a request the server never answers, and rejects a response that is not HTTP', async () => {
    const url = await rawServer((req, socket) => {
      if (req.includes('/bad')) socket.write('SSH-2.0-OpenSSH\r\n\r\n');
    });
    const silent = new VuConnections();
    const res = await silent.send(request(url, { timeout_ms: 200 }));
    expect(k6ErrorFor(res.error)).toEqual({ code: 1050, message: 'request timeout' });
    const badUrl = new URL('/bad', url);
    const bad = new VuConnections();
    const garbage = await bad.send(request(badUrl));
    expect(garbage.status).toBe(0);
    expect(k6ErrorFor(garbage.error)).toEqual({
      code: 1000,
      message: 'malformed HTTP response "SSH-2.0-OpenSSH"',
    });
  });
});
