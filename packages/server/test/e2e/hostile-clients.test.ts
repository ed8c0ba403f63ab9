/**
 * Issue 40, items 1 and 2: the server in a process of its own under hostile clients. Nested JSON bombs get a
 * 4xx while health answers, with bounded RSS and no crash at a 1.5 GB heap; 1,100 gRPC connections that never
 * send the HTTP/2 preface are closed by its deadline and new calls succeed; 1,300 connections trickling their
 * headers leave /v2/health/ready answering. Outcomes only: the timings are in bench/server/RESULTS.md.
 */
import net from 'node:net';
import zlib from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import type { RunningServer } from '@k6-triton/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcClient, makeRepository, removeRepository, waitFor } from '../helpers.ts';
import { postHead, rawHttp } from '../raw-http.ts';
import { NOBATCH } from '../repo-fixtures.ts';
import { rssOf, type ServeProcess, serveProcess } from '../serve-process.ts';

const INFER = '/v2/models/nobatch/infer';
const MB = 1_000_000;

/** The issue's bodies: `[`×33M `]`×33M (about 64 KB of gzip) and `[`×32M never closed (about 31 KB). */
function bombs(): { nested: Buffer; unclosed: Buffer } {
  const open = Buffer.alloc(33 * MB, '[');
  const nested = zlib.gzipSync(Buffer.concat([open, Buffer.alloc(33 * MB, ']')]), { level: 9 });
  const unclosed = zlib.gzipSync(open.subarray(0, 32 * MB), { level: 9 });
  return { nested, unclosed };
}

/** Opens `count` TCP connections to 127.0.0.1:port, `first` written on each once connected. */
function openMany(port: number, count: number, first?: string): Promise<net.Socket[]> {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Socket>((resolve, reject) => {
          const s = net.connect(port, '127.0.0.1', () => {
            if (first) s.write(first);
            resolve(s);
          });
          // Read (and drop) what comes, so that the server's close is seen.
          s.resume();
          s.on('error', () => {});
          s.once('error', reject);
        }),
    ),
  );
}

async function healthStatus(port: number): Promise<number> {
  return (await fetch(`http://127.0.0.1:${port}/v2/health/ready`)).status;
}

describe('the server under hostile clients (its own process)', () => {
  let repo: string;
  const started: ServeProcess[] = [];
  beforeAll(() => {
    repo = makeRepository({ nobatch: NOBATCH });
  });
  afterAll(() => {
    for (const s of started) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    removeRepository(repo);
  });

  it('answers nested JSON bombs with 4xx while health answers, RSS bounded, alive at a 1.5 GB heap', async () => {
    const server = await serveProcess(['--model-repository', repo], ['--max-old-space-size=1536']);
    started.push(server);
    const { nested, unclosed } = bombs();
    expect(nested.length).toBeLessThan(70_000);
    expect(unclosed.length).toBeLessThan(35_000);
    const pid = server.child.pid!;
    const before = rssOf(pid);
    /** Sends `body` gzip-encoded and probes health once it is all sent; both outcomes come back. */
    const send = async (body: Buffer) => {
      let probe: Promise<number> | undefined;
      const answer = await rawHttp(
        server.httpPort,
        (socket) => {
          socket.write(postHead(INFER, body.length, { 'Content-Encoding': 'gzip' }));
          socket.write(body, () => {
            probe = healthStatus(server.httpPort);
          });
        },
        30_000,
      );
      return { status: answer.status, error: answer.body, health: await probe };
    };
    const results = [await send(nested), await send(unclosed)];
    results.push(...(await Promise.all([send(nested), send(nested), send(nested)])));
    for (const r of results) {
      expect(r.status).toBe(413);
      expect(JSON.parse(r.error).error).toMatch(
        /inflates past the server's limit of 1048576 bytes for compressed JSON/,
      );
      expect(r.health).toBe(200);
    }
    // The peak resident size over the whole sequence (the kernel's high-water mark).
    expect(rssOf(pid, 'VmHWM') - before).toBeLessThan(200 * MB);
    // The same depth uncompressed (a 2 MB body) is refused by the depth bound, before any parsing.
    const deep = Buffer.concat([Buffer.alloc(MB, '['), Buffer.alloc(MB, ']')]);
    const res = await fetch(`http://127.0.0.1:${server.httpPort}${INFER}`, { method: 'POST', body: deep });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe(
      "request JSON nests deeper than the server's limit of 128 levels",
    );
    expect(server.child.exitCode).toBeNull();
    expect(await healthStatus(server.httpPort)).toBe(200);
  }, 120_000);

  it('closes 1,100 gRPC connections that never send the preface, and new calls succeed', async () => {
    const server = await serveProcess(['--model-repository', repo, '--grpc-preface-timeout-ms', '2000']);
    started.push(server);
    const idle = await openMany(server.grpcPort, 1100);
    const client = grpcClient({ grpcPort: server.grpcPort } as RunningServer);
    try {
      // Past the cap (1,024) a new call takes the slot of the oldest preface-less connection.
      expect(await client.call('ServerLive', {})).toEqual({ live: true });
      // Some closed already, making room for later ones; the deadline closes the rest.
      await waitFor(() => idle.every((s) => s.closed), 'the idle gRPC connections to close', 60_000);
      expect(await client.call('ServerReady', {})).toEqual({ ready: true });
      // A fresh connection too, after the purge.
      const fresh = grpcClient({ grpcPort: server.grpcPort } as RunningServer);
      expect(await fresh.call('ServerLive', {})).toEqual({ live: true });
      fresh.close();
    } finally {
      client.close();
      for (const s of idle) s.destroy();
    }
  }, 120_000);

  it('closes a gRPC connection without calls after --grpc-max-connection-idle-ms; the client reconnects', async () => {
    const server = await serveProcess(['--model-repository', repo, '--grpc-max-connection-idle-ms', '500']);
    started.push(server);
    const client = grpcClient({ grpcPort: server.grpcPort } as RunningServer);
    try {
      expect(await client.call('ServerLive', {})).toEqual({ live: true });
      const channel = client.client.getChannel();
      expect(channel.getConnectivityState(false)).toBe(grpc.connectivityState.READY);
      // The server's GOAWAY turns the channel from READY to IDLE (bounded wait).
      const state = await new Promise<grpc.connectivityState>((resolve) =>
        channel.watchConnectivityState(grpc.connectivityState.READY, Date.now() + 10_000, () =>
          resolve(channel.getConnectivityState(false)),
        ),
      );
      expect(state).toBe(grpc.connectivityState.IDLE);
      expect(await client.call('ServerLive', {})).toEqual({ live: true });
    } finally {
      client.close();
    }
  }, 60_000);

  it('answers /v2/health/ready while 1,300 connections trickle their headers', async () => {
    // A long header deadline, so that the trickling connections are all still open while health is probed.
    const server = await serveProcess(['--model-repository', repo, '--http-header-timeout-ms', '60000']);
    started.push(server);
    const slow = await openMany(server.httpPort, 1300, 'GET /v2/health/ready HTTP/1.1\r\nHost: x\r\n');
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push(await healthStatus(server.httpPort));
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
      // Past the cap, work other than health is refused with 503, not hung.
      const metadata = await fetch(`http://127.0.0.1:${server.httpPort}/v2`);
      expect(metadata.status).toBe(503);
    } finally {
      for (const s of slow) s.destroy();
    }
  }, 120_000);
});
