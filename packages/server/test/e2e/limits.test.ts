/**
 * Issue 11, cases 1 and 6: limits apply to what the server actually processes. A gzip bomb is refused at the
 * inflated size without stalling health probes; trickled bodies and headers hit a deadline; connections past
 * the cap are refused with 503 while health still answers.
 */
import type net from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import * as grpc from '@grpc/grpc-js';
import { grpcClient, http, makeRepository, removeRepository, start } from '../helpers.ts';
import { postHead, rawHttp } from '../raw-http.ts';
import { NOBATCH } from '../repo-fixtures.ts';

const INFER = '/v2/models/nobatch/infer';
const MiB = 1024 * 1024;

/** A gzip body inflating to `members` × 16 MiB of zeros: gzip members concatenate, so it is cheap to build. */
function gzipBomb(members: number): Buffer {
  const member = zlib.gzipSync(Buffer.alloc(16 * MiB), { level: 9 });
  return Buffer.concat(Array.from({ length: members }, () => member));
}

describe('limits on what is processed', () => {
  let server: RunningServer;
  let repo: string;
  beforeAll(async () => {
    repo = makeRepository({ nobatch: NOBATCH });
    server = await start({
      modelRepository: repo,
      limits: { requestTimeout_ms: 1000, headersTimeout_ms: 1000, maxConnections: 3 },
    });
  });
  afterAll(async () => {
    await server.stop();
    removeRepository(repo);
  });

  it('refuses a 1 GiB gzip bomb with 413 at the inflated limit, and answers health while inflating', async () => {
    const bomb = gzipBomb(64);
    expect(bomb.length).toBeLessThan(2 * MiB);
    const order: string[] = [];
    let probe: Promise<unknown> | undefined;
    const answer = await rawHttp(
      server.httpPort,
      (socket: net.Socket) => {
        // A raw binary body (JSON header length 0): the whole inflated body limit applies, not the JSON one.
        socket.write(
          postHead(INFER, bomb.length, {
            'Content-Encoding': 'gzip',
            'Inference-Header-Content-Length': '0',
          }),
        );
        // Once the whole bomb is sent, probe health: it must not wait behind the inflation.
        socket.write(bomb, () => {
          probe = http(server, 'GET', '/v2/health/live').then((r) => order.push(`health ${r.status}`));
        });
      },
      30_000,
    );
    order.push(`bomb ${answer.status}`);
    await probe;
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error).toMatch(
      /^gzip request body inflates past the server's limit of 67108864 bytes; .*--http-max-input-size$/,
    );
    expect(order).toEqual(['health 200', 'bomb 413']);
  });

  it('refuses a deflate body inflating past the limit with 413', async () => {
    const small = await start({
      modelRepository: repo,
      maxBody_bytes: 1 * MiB,
      grpcPort: -1,
      metricsPort: -1,
    });
    try {
      const body = zlib.deflateSync(Buffer.alloc(8 * MiB));
      const res = await http(small, 'POST', INFER, body, { 'Content-Encoding': 'deflate' });
      expect(res.status).toBe(413);
      expect(res.json().error).toMatch(
        /deflate request body inflates past the server's limit of 1048576 bytes/,
      );
    } finally {
      await small.stop();
    }
  });

  it('holds compressed infer JSON to its own limit, which a setting raises', async () => {
    const small = await start({
      modelRepository: repo,
      limits: { inflatedJson_bytes: 1000 },
      grpcPort: -1,
      metricsPort: -1,
    });
    try {
      const json = JSON.stringify({
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 300], data: Array(300).fill(1.5) }],
      });
      expect(json.length).toBeGreaterThan(1000);
      const res = await http(small, 'POST', INFER, zlib.gzipSync(json), { 'Content-Encoding': 'gzip' });
      expect(res.status).toBe(413);
      expect(res.json().error).toBe(
        "gzip request JSON inflates past the server's limit of 1000 bytes for compressed JSON; send it uncompressed, its tensors in binary, or raise --http-max-inflated-json-size",
      );
      // The same body under the default limit gets past inflation (to the model's own shape check).
      const served = await http(server, 'POST', INFER, zlib.gzipSync(json), { 'Content-Encoding': 'gzip' });
      expect(served.status).not.toBe(413);
    } finally {
      await small.stop();
    }
  });

  it('reads a corrupt gzip body as what inflated before the damage (here nothing), as Triton does', async () => {
    const res = await http(server, 'POST', INFER, Buffer.from('not gzip at all'), {
      'Content-Encoding': 'gzip',
    });
    expect(res.status).toBe(400);
    expect(res.json().error).toBe(
      "[request id: <id_unknown>] input byte size mismatch for input 'raw_input' for model 'nobatch'. Expected 3136, got 0",
    );
  });

  it('answers 408 and closes a connection whose body trickles past the request deadline', async () => {
    const answer = await rawHttp(
      server.httpPort,
      (socket) => {
        socket.write(postHead(INFER, 1000, { 'Content-Type': 'application/json' }));
        const drip = setInterval(() => (socket.writable ? socket.write('[') : clearInterval(drip)), 100);
        socket.on('close', () => clearInterval(drip));
      },
      10_000,
    );
    expect(answer.status).toBe(408);
    expect(answer.closed).toBe(true);
    expect(JSON.parse(answer.body).error).toBe(
      'request headers or body not received within 1000 ms; send faster or raise --http-request-timeout-ms',
    );
  });

  it('answers 408 and closes a connection whose headers never end', async () => {
    const answer = await rawHttp(
      server.httpPort,
      (socket) => socket.write('GET /v2/health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '),
      10_000,
    );
    expect(answer.status).toBe(408);
    expect(answer.closed).toBe(true);
  });

  it('refuses work on connections past the cap with 503 while health answers, and recovers when they close', async () => {
    const { default: net } = await import('node:net');
    const held = await Promise.all(
      Array.from(
        { length: 3 },
        () =>
          new Promise<net.Socket>((resolve) => {
            const s = net.connect(server.httpPort, '127.0.0.1', () => resolve(s));
          }),
      ),
    );
    try {
      const body = JSON.stringify({
        inputs: [{ name: 'input.1', shape: [1, 1, 28, 28], datatype: 'FP32', data: new Array(784).fill(0) }],
      });
      const refused = await rawHttp(server.httpPort, postHead(INFER, Buffer.byteLength(body)) + body);
      expect(refused.status).toBe(503);
      expect(JSON.parse(refused.body).error).toBe(
        'too many open connections (limit 3); close idle ones or raise --http-max-connections',
      );
      expect(refused.closed).toBe(true);
      const health = await rawHttp(
        server.httpPort,
        'GET /v2/health/ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      );
      expect(health.status).toBe(200);
    } finally {
      for (const s of held) s.destroy();
    }
    // The count goes down as sockets close: wait (bounded) until a normal request is served again.
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await http(server, 'GET', '/v2/models/nobatch/stats')).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe(200);
  });

  /** ServerLive on a new client: OK or the status name. */
  const live = async () => {
    const client = grpcClient(server);
    try {
      return await client.call('ServerLive', {}).then(
        () => 'OK',
        (e: grpc.ServiceError) => grpc.status[e.code],
      );
    } finally {
      client.close();
    }
  };

  it('past the gRPC cap, an idle connection that sent its preface makes room for a new call', async () => {
    const { default: net } = await import('node:net');
    const held = await Promise.all(
      Array.from(
        { length: 3 },
        () =>
          new Promise<net.Socket>((resolve) => {
            const s = net.connect(server.grpcPort, '127.0.0.1', () =>
              s.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', () => resolve(s)),
            );
          }),
      ),
    );
    // Their preface has reached the server once grpc-js answers it with its SETTINGS.
    await Promise.all(held.map((s) => new Promise((resolve) => s.once('data', resolve))));
    const closed = held.map((s) => new Promise<boolean>((resolve) => s.once('close', () => resolve(true))));
    try {
      expect(await live()).toBe('OK');
      // The oldest idle one was closed to make room.
      expect(await closed[0]).toBe(true);
    } finally {
      for (const s of held) s.destroy();
    }
  });

  it('closes gRPC connections past the cap when each has a call in progress, and serves once they end', async () => {
    // Three clients on connections of their own, each with a ModelStreamInfer stream open (answered once).
    const clients = Array.from({ length: 3 }, () =>
      grpcClient(server, { 'grpc.use_local_subchannel_pool': 1 }),
    );
    const streams = clients.map((c) =>
      (c.client.ModelStreamInfer as () => grpc.ClientDuplexStream<object, object>)(),
    );
    for (const s of streams) s.on('error', () => {});
    await Promise.all(
      streams.map((s) => {
        const answered = new Promise((resolve) => s.once('data', resolve));
        s.write({ model_name: 'absent' });
        return answered;
      }),
    );
    try {
      expect(await live()).toBe('UNAVAILABLE');
    } finally {
      for (const s of streams) s.end();
      for (const c of clients) c.close();
    }
    let answer = '';
    for (let i = 0; i < 50 && answer !== 'OK'; i++) answer = await live();
    expect(answer).toBe('OK');
  });
});
