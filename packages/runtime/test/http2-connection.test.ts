/**
 * The lean HTTP/2 client of unary gRPC calls (packages/runtime/src/transport/http2-connection.ts) against real servers
 * on 127.0.0.1: the grpc-js echo server, node:http2 servers for GOAWAY, RST_STREAM, PING, padding and
 * CONTINUATION, and plain sockets that close or refuse.
 */
import * as http2 from 'node:http2';
import * as net from 'node:net';
import path from 'node:path';
import * as grpcjs from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeHeaders } from '../src/wire/hpack.ts';
import { Http2Connection } from '../src/transport/http2-connection.ts';
import { type EchoServer, FIXTURES, startEchoServer } from './echo-grpc-server.ts';

const root = new protobuf.Root();
root.resolvePath = (_o, t) => (t.startsWith('google/') ? t : path.join(FIXTURES, t));
root.loadSync('echo.proto', { keepCase: true });
const Payload = root.lookupType('k6t.echo.Payload');
const encode = (o: Record<string, unknown>): Buffer =>
  Buffer.from(Payload.encode(Payload.fromObject(o)).finish());
const decode = (b: Buffer): Record<string, unknown> =>
  Payload.toObject(Payload.decode(b), { bytes: Buffer }) as Record<string, unknown>;

const ECHO = '/k6t.echo.Echo/Echo';
const { status } = grpcjs;

/** A request's header block, as grpc-unary.ts builds it. */
function head(addr: string, metadata: [string, string][] = [], timeout_ms = 0): Buffer {
  return encodeHeaders([
    [':method', 'POST'],
    [':scheme', 'http'],
    [':path', ECHO],
    [':authority', addr],
    ['content-type', 'application/grpc'],
    ['te', 'trailers'],
    ...(timeout_ms > 0 ? ([['grpc-timeout', `${timeout_ms}m`]] as [string, string][]) : []),
    ...metadata,
  ]);
}

function open(addr: string, window_bytes = 16 << 20, maxReceive_bytes = 4 << 20): Http2Connection {
  const colon = addr.lastIndexOf(':');
  return new Http2Connection(addr.slice(0, colon), Number(addr.slice(colon + 1)), {
    window_bytes,
    maxReceive_bytes,
  });
}

/** A node:http2 server on an ephemeral port; `onStream` answers each stream. */
async function rawServer(
  onStream: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void,
  options: http2.ServerOptions = {},
): Promise<{ addr: string; server: http2.Http2Server; close: () => void }> {
  const server = http2.createServer(options);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => sessions.add(s));
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    onStream(stream, headers);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return {
    addr: `127.0.0.1:${port}`,
    server,
    close: () => {
      for (const s of sessions) s.destroy();
      server.close();
    },
  };
}

/** Reads a whole request body, then calls `done` with it. */
function readBody(stream: http2.ServerHttp2Stream, done: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => done(Buffer.concat(chunks)));
}

/** A gRPC answer of `message` (status 0) from a node:http2 server stream. */
function answer(stream: http2.ServerHttp2Stream, message: Buffer): void {
  if (stream.destroyed) return;
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  stream.end(Buffer.concat([prefix, message]));
}

describe('lean HTTP/2 client against the grpc-js echo server', () => {
  let echo: EchoServer;
  beforeAll(async () => {
    echo = await startEchoServer();
  });
  afterAll(() => echo.stop());

  it('makes a unary call with metadata, and reads headers, binary trailers and the reply', async () => {
    const conn = open(echo.addr);
    await conn.ready;
    const out = await conn.call(head(echo.addr, [['x-test', 'hello']]), encode({ text_value: 'hi' }), 5000);
    expect(out.code).toBe(status.OK);
    expect(out.headers?.['x-echo']).toBe('hello');
    expect(out.headers?.[':status']).toBe('200');
    expect(out.trailers['x-trailer']).toBe('yes');
    // Two binary values, base64 on the wire, joined as node:http2 joins repeated headers.
    const raw = String(out.trailers['x-raw-bin'])
      .split(',')
      .map((v) => Buffer.from(v.trim(), 'base64'));
    expect(raw).toEqual([Buffer.from([0x00, 0xff, 0x41]), Buffer.from('hi')]);
    expect(decode(out.reply!)['text_value']).toBe('hi');
    conn.close();
  });

  it('returns an error status with its message and trailers', async () => {
    const conn = open(echo.addr);
    await conn.ready;
    const out = await conn.call(head(echo.addr), encode({ fail_with_code: status.NOT_FOUND }), 5000);
    expect(out.code).toBe(status.NOT_FOUND);
    expect(out.details).toBe('failed on purpose');
    expect(out.trailers['x-trailer']).toBe('yes');
    expect(out.reply).toBeNull();
    conn.close();
  });

  it('ends a call at its deadline with CANCEL, and the connection carries the next call', async () => {
    const conn = open(echo.addr);
    await conn.ready;
    const late = await conn.call(head(echo.addr, [], 100), encode({ delay_ms: 3000 }), 100);
    expect(late).toMatchObject({ code: status.DEADLINE_EXCEEDED, details: 'Deadline exceeded' });
    const next = await conn.call(head(echo.addr), encode({ text_value: 'after' }), 5000);
    expect(next.code).toBe(status.OK);
    expect(decode(next.reply!)['text_value']).toBe('after');
    expect(conn.open).toBe(0);
    conn.close();
  });

  it('keeps deadlines of concurrent calls and of calls that re-arm the connection timer', async () => {
    const conn = open(echo.addr);
    await conn.ready;
    const slow = encode({ delay_ms: 3000 });
    const both = await Promise.all([
      conn.call(head(echo.addr), slow, 100),
      conn.call(head(echo.addr), slow, 150),
    ]);
    expect(both.map((o) => o.code)).toEqual([status.DEADLINE_EXCEEDED, status.DEADLINE_EXCEEDED]);
    for (let i = 0; i < 3; i++)
      expect((await conn.call(head(echo.addr), encode({}), 100)).code).toBe(status.OK);
    expect((await conn.call(head(echo.addr), slow, 100)).code).toBe(status.DEADLINE_EXCEEDED);
    conn.close();
  });

  it('sends and receives a 4 MB message through both flow-control windows', async () => {
    // A 64 KiB receive window makes us send WINDOW_UPDATEs; the server's 64 KiB window makes us wait for its.
    const conn = open(echo.addr, 65_535, 8 << 20);
    await conn.ready;
    const data = Buffer.alloc(4 * 1024 * 1024 - 64);
    for (let i = 0; i < data.length; i += 4096) data[i] = (i >> 12) & 0xff;
    const out = await conn.call(head(echo.addr), encode({ raw_data: data }), 30_000);
    expect(out.code).toBe(status.OK);
    expect((decode(out.reply!)['raw_data'] as Buffer).equals(data)).toBe(true);
    conn.close();
  });

  it('refuses a reply above the receive limit with RESOURCE_EXHAUSTED', async () => {
    const conn = open(echo.addr, 16 << 20, 1000);
    await conn.ready;
    const out = await conn.call(head(echo.addr), encode({ raw_data: Buffer.alloc(5000) }), 5000);
    expect(out.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(out.details).toMatch(/^Received message larger than max \(\d+ vs\. 1000\)$/);
    const next = await conn.call(head(echo.addr), encode({ text_value: 'small' }), 5000);
    expect(next.code).toBe(status.OK);
    conn.close();
  });

  it('carries many calls, sequential and concurrent, on one connection', async () => {
    const before = echo.connections();
    const conn = open(echo.addr);
    await conn.ready;
    const block = head(echo.addr, [['x-test', 'many']]);
    for (let i = 0; i < 20; i++) {
      const out = await conn.call(block, encode({ text_value: `s${i}` }), 5000);
      // Later responses reuse the dynamic table the first ones filled.
      expect(out.headers?.['x-echo']).toBe('many');
      expect(out.trailers['x-trailer']).toBe('yes');
      expect(decode(out.reply!)['text_value']).toBe(`s${i}`);
    }
    const all = await Promise.all(
      Array.from({ length: 50 }, (_, i) => conn.call(block, encode({ text_value: `c${i}` }), 5000)),
    );
    expect(all.map((o) => decode(o.reply!)['text_value'])).toEqual(
      Array.from({ length: 50 }, (_, i) => `c${i}`),
    );
    expect(echo.connections() - before).toBe(1);
    conn.close();
  });
});

describe('lean HTTP/2 client against node:http2 and raw sockets', () => {
  it('opens odd, increasing stream ids', async () => {
    const ids: number[] = [];
    const srv = await rawServer((stream) => {
      ids.push(stream.id!);
      readBody(stream, (b) => answer(stream, b.subarray(5)));
    });
    const conn = open(srv.addr);
    await conn.ready;
    for (let i = 0; i < 3; i++) expect((await conn.call(head(srv.addr), Buffer.from('x'), 0)).code).toBe(0);
    expect(ids).toEqual([1, 3, 5]);
    conn.close();
    srv.close();
  });

  it('reads a trailers-only answer as the status, with no headers', async () => {
    const srv = await rawServer((stream) =>
      stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': '12',
          'grpc-message': 'not%20here',
        },
        { endStream: true },
      ),
    );
    const conn = open(srv.addr);
    await conn.ready;
    const out = await conn.call(head(srv.addr), Buffer.from('x'), 0);
    expect(out).toMatchObject({
      code: status.UNIMPLEMENTED,
      details: 'not here',
      headers: null,
      reply: null,
    });
    expect(out.trailers['grpc-status']).toBe('12');
    conn.close();
    srv.close();
  });

  it('reads padded HEADERS and DATA frames', async () => {
    const srv = await rawServer((stream) => readBody(stream, (b) => answer(stream, b.subarray(5))), {
      paddingStrategy: http2.constants.PADDING_STRATEGY_MAX,
    });
    const conn = open(srv.addr);
    await conn.ready;
    const out = await conn.call(head(srv.addr), Buffer.from('padded reply'), 0);
    expect(out.code).toBe(0);
    expect(out.reply?.toString()).toBe('padded reply');
    conn.close();
    srv.close();
  });

  it('reads a header block split into HEADERS and CONTINUATION frames', async () => {
    const big = 'v'.repeat(40_000);
    const srv = await rawServer(
      (stream) => {
        stream.respond(
          { ':status': 200, 'content-type': 'application/grpc', 'x-big': big },
          { waitForTrailers: true },
        );
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0', 'x-big-too': big }));
        stream.end();
      },
      { maxSendHeaderBlockLength: 100_000 },
    );
    const conn = open(srv.addr);
    await conn.ready;
    const out = await conn.call(head(srv.addr), Buffer.from('x'), 0);
    expect(out.code).toBe(0);
    expect(out.headers?.['x-big']).toBe(big);
    expect(out.trailers['x-big-too']).toBe(big);
    expect(out.reply).toBeNull();
    conn.close();
    srv.close();
  });

  it('fails a call reset by the server with UNAVAILABLE and the HTTP/2 code', async () => {
    const srv = await rawServer((stream) => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
    const conn = open(srv.addr);
    await conn.ready;
    const out = await conn.call(head(srv.addr), Buffer.from('x'), 0);
    expect(out.code).toBe(status.UNAVAILABLE);
    expect(out.details).toBe('stream closed before a status (HTTP/2 code 2, no response)');
    expect(conn.dead).toBe(false);
    conn.close();
    srv.close();
  });

  it('answers the server PING and keeps working', async () => {
    let pinged: Promise<Error | null> | null = null;
    const srv = await rawServer((stream) => {
      pinged ??= new Promise((resolve) =>
        stream.session!.ping(Buffer.from('12345678'), (err) => resolve(err)),
      );
      readBody(stream, (b) => answer(stream, b.subarray(5)));
    });
    const conn = open(srv.addr);
    await conn.ready;
    expect((await conn.call(head(srv.addr), Buffer.from('a'), 0)).code).toBe(0);
    expect(await pinged).toBeNull();
    expect((await conn.call(head(srv.addr), Buffer.from('b'), 0)).reply?.toString()).toBe('b');
    conn.close();
    srv.close();
  });

  it('on GOAWAY finishes streams up to the last id, fails those above, and opens no new ones', async () => {
    const streams: http2.ServerHttp2Stream[] = [];
    const srv = await rawServer((stream) => {
      streams.push(stream);
      if (streams.length === 2) {
        stream.session!.goaway(http2.constants.NGHTTP2_NO_ERROR, 1);
        setTimeout(() => answer(streams[0]!, Buffer.from('first')), 50);
      }
    });
    const conn = open(srv.addr);
    await conn.ready;
    const first = conn.call(head(srv.addr), Buffer.from('1'), 0);
    const second = conn.call(head(srv.addr), Buffer.from('2'), 0);
    const [a, b] = await Promise.all([first, second]);
    expect(b.code).toBe(status.UNAVAILABLE);
    expect(b.details).toMatch(/stream closed before a status/);
    expect(a.code).toBe(0);
    expect(a.reply?.toString()).toBe('first');
    expect(conn.dead).toBe(true);
    expect((await conn.call(head(srv.addr), Buffer.from('3'), 0)).code).toBe(status.UNAVAILABLE);
    srv.close();
  });

  it('fails open calls with UNAVAILABLE when the server closes the connection mid-call', async () => {
    const server = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () => setTimeout(() => socket.destroy(), 20));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const addr = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    const conn = open(addr);
    await conn.ready;
    const out = await conn.call(head(addr), Buffer.from('x'), 5000);
    expect(out.code).toBe(status.UNAVAILABLE);
    expect(out.details).toBe('stream closed before a status (HTTP/2 code 8, no response)');
    expect(conn.dead).toBe(true);
    server.close();
  });

  it('rejects ready() when the connection is refused', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const addr = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    await new Promise<void>((r) => server.close(() => r()));
    const conn = open(addr);
    await expect(conn.ready).rejects.toThrow(/ECONNREFUSED/);
    expect(conn.dead).toBe(true);
  });
});
