/**
 * Fault injection: injected statuses, resets and latency spikes happen at their configured rate (bounds of six
 * binomial standard deviations, so the seeded draws could change without the test flaking), each counted per
 * code by the client and by the server; a restart closes and reopens the ports.
 */
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelFaults, parseSpike, parseStatusFaults } from '../../src/faults/spec.ts';
import type { RunningServer } from '@k6-triton/server';
import {
  grpcClient,
  http,
  int32Bytes,
  makeRepository,
  removeRepository,
  start,
  waitFor,
} from '../helpers.ts';
import { SIMPLE } from '../repo-fixtures.ts';

const seq = (n: number) => Array.from({ length: n }, (_, i) => i);
const BODY = JSON.stringify({
  inputs: [
    { name: 'INPUT0', shape: [1, 16], datatype: 'INT32', data: seq(16) },
    { name: 'INPUT1', shape: [1, 16], datatype: 'INT32', data: seq(16) },
  ],
});

/** SIMPLE under another name, with fault parameters of its own (no injected statuses: "" turns them off). */
const FLAKY = `${SIMPLE.replace('name: "simple"', 'name: "flaky"')}
parameters { key: "fault_status" value: { string_value: "" } }
parameters { key: "fault_reset" value: { string_value: "0.1" } }
parameters { key: "fault_spike" value: { string_value: "0.2:2ms" } }
`;

/** Asserts `count` is within six standard deviations of n·p. */
function expectRate(count: number, n: number, p: number): void {
  const sd = Math.sqrt(n * p * (1 - p));
  expect(count).toBeGreaterThanOrEqual(Math.floor(n * p - 6 * sd));
  expect(count).toBeLessThanOrEqual(Math.ceil(n * p + 6 * sd));
}

/** Runs `n` tasks, `concurrency` at a time; returns their outcomes as labels. */
async function run(
  n: number,
  concurrency: number,
  task: () => Promise<string>,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next += 1;
        const label = await task();
        counts.set(label, (counts.get(label) ?? 0) + 1);
      }
    }),
  );
  return counts;
}

describe('fault injection', () => {
  let server: RunningServer;
  let repo: string;
  beforeAll(async () => {
    repo = makeRepository({ simple: SIMPLE, flaky: FLAKY });
    server = await start({ modelRepository: repo, faults: { status: { 503: 0.05, 500: 0.1 }, seed: 7 } });
  });
  afterAll(async () => {
    await server.stop();
    removeRepository(repo);
  });

  it('injects each HTTP status at its rate and counts it per code on both sides', async () => {
    const n = 2000;
    const messages = new Set<string>();
    const counts = await run(n, 16, async () => {
      const res = await http(server, 'POST', '/v2/models/simple/infer', BODY);
      if (res.status !== 200) messages.add(res.json().error);
      return String(res.status);
    });
    expect([...counts.keys()].sort()).toEqual(['200', '500', '503']);
    expectRate(counts.get('503')!, n, 0.05);
    expectRate(counts.get('500')!, n, 0.1);
    expect(messages).toEqual(
      new Set([
        'injected fault: status 503 (fault injection)',
        'injected fault: status 500 (fault injection)',
      ]),
    );
    const injected = server.faultCounts().simple!;
    expect(injected['status 503']).toBe(counts.get('503'));
    expect(injected['status 500']).toBe(counts.get('500'));
    const stats = (await http(server, 'GET', '/v2/models/simple/stats')).json().model_stats[0]
      .inference_stats;
    expect(stats.fail.count).toBe(counts.get('503')! + counts.get('500')!);
    expect(stats.success.count).toBe(counts.get('200'));
  });

  it('injects the matching gRPC codes at their rates', async () => {
    const client = grpcClient(server);
    const n = 1000;
    try {
      const counts = await run(n, 8, () =>
        client
          .call('ModelInfer', {
            model_name: 'simple',
            inputs: [
              { name: 'INPUT0', datatype: 'INT32', shape: [1, 16] },
              { name: 'INPUT1', datatype: 'INT32', shape: [1, 16] },
            ],
            raw_input_contents: [int32Bytes(seq(16)), int32Bytes(seq(16))],
          })
          .then(
            () => 'OK',
            (e: grpc.ServiceError) => grpc.status[e.code],
          ),
      );
      expect([...counts.keys()].sort()).toEqual(['INTERNAL', 'OK', 'UNAVAILABLE']);
      expectRate(counts.get('UNAVAILABLE')!, n, 0.05);
      expectRate(counts.get('INTERNAL')!, n, 0.1);
    } finally {
      client.close();
    }
  });

  it("resets connections and adds latency spikes at a model's own configured rates", async () => {
    const n = 1000;
    const before = server.faultCounts().flaky ?? {};
    const counts = await run(n, 8, () =>
      http(server, 'POST', '/v2/models/flaky/infer', BODY).then(
        (res) => String(res.status),
        () => 'reset',
      ),
    );
    // The model's own parameters replace the server-wide statuses: only resets fail.
    expect([...counts.keys()].sort()).toEqual(['200', 'reset']);
    expectRate(counts.get('reset')!, n, 0.1);
    const after = server.faultCounts().flaky!;
    expect((after.reset ?? 0) - (before.reset ?? 0)).toBe(counts.get('reset'));
    expectRate((after.spike ?? 0) - (before.spike ?? 0), n, 0.2);
  });

  it('answers an injected reset over gRPC with UNAVAILABLE', async () => {
    const client = grpcClient(server);
    try {
      const counts = await run(300, 4, () =>
        client
          .call('ModelInfer', {
            model_name: 'flaky',
            inputs: [
              { name: 'INPUT0', datatype: 'INT32', shape: [1, 16] },
              { name: 'INPUT1', datatype: 'INT32', shape: [1, 16] },
            ],
            raw_input_contents: [int32Bytes(seq(16)), int32Bytes(seq(16))],
          })
          .then(
            () => 'OK',
            (e: grpc.ServiceError) => `${grpc.status[e.code]} ${e.details}`,
          ),
      );
      expect([...counts.keys()].sort()).toEqual(['OK', 'UNAVAILABLE connection reset (fault injection)']);
      expectRate(counts.get('UNAVAILABLE connection reset (fault injection)')!, 300, 0.1);
    } finally {
      client.close();
    }
  });
});

describe('restart', () => {
  it('closes the ports, refuses connections while down, then serves again on the same ports', async () => {
    const repo = makeRepository({ simple: SIMPLE });
    const server = await start({ modelRepository: repo });
    try {
      const port = server.httpPort;
      const restarting = server.restart(400);
      await new Promise((r) => setTimeout(r, 100));
      const down = await http(server, 'GET', '/v2/health/live').then(
        (r) => r.status,
        (e: Error) => (e.cause as NodeJS.ErrnoException | undefined)?.code ?? e.message,
      );
      await restarting;
      expect(down).toBe('ECONNREFUSED');
      expect(server.restarts).toBe(1);
      expect(server.httpPort).toBe(port);
      expect((await http(server, 'POST', '/v2/models/simple/infer', BODY)).status).toBe(200);
      const client = grpcClient(server);
      try {
        expect((await client.call('ServerLive', {})).live).toBe(true);
      } finally {
        client.close();
      }
    } finally {
      await server.stop();
      removeRepository(repo);
    }
  });

  it('restarts by itself once after restartAfter_ms', async () => {
    const repo = makeRepository({ simple: SIMPLE });
    const server = await start({ modelRepository: repo, restartAfter_ms: 100, restartDown_ms: 100 });
    try {
      await waitFor(() => server.restarts === 1, 'the scheduled restart');
      expect((await http(server, 'GET', '/v2/health/ready')).status).toBe(200);
    } finally {
      await server.stop();
      removeRepository(repo);
    }
  });
});

describe('fault specifications', () => {
  it('parses statuses, spikes and per-model parameters', () => {
    expect(parseStatusFaults('--fault-status', '503:0.01,500:0.02')).toEqual({ 503: 0.01, 500: 0.02 });
    expect(parseSpike('--fault-spike', '0.05:200ms')).toEqual({ p: 0.05, duration_ms: 200 });
    expect(parseSpike('--fault-spike', '0.5:1s')).toEqual({ p: 0.5, duration_ms: 1000 });
    expect(parseSpike('--fault-spike', '0.5:30')).toEqual({ p: 0.5, duration_ms: 30 });
    const params = { fault_reset: { string_value: '0.25' } };
    expect(modelFaults(params, { status: { 503: 0.1 }, reset: 0.5 }, 'm')).toEqual({
      seed: undefined,
      status: { 503: 0.1 },
      spike: undefined,
      reset: 0.25,
    });
  });

  it('refuses bad specifications with a one-line error naming the fix', () => {
    expect(() => parseStatusFaults('--fault-status', '418:0.1')).toThrow(/STATUS one of .*e\.g\. 503:0\.01/);
    expect(() => parseStatusFaults('--fault-status', '503:0.7,500:0.6')).toThrow(
      /add up to 1\.3, more than 1/,
    );
    expect(() => parseSpike('--fault-spike', '2:10ms')).toThrow(/expected a probability between 0 and 1/);
    expect(() => modelFaults({ fault_reset: { string_value: 'often' } }, {}, 'm')).toThrow(
      `invalid parameter fault_reset of model 'm' "often"; expected a probability between 0 and 1, e.g. 0.01`,
    );
  });

  it('fails the load of a model with a bad fault parameter, naming it', async () => {
    const bad = `${SIMPLE.replace('name: "simple"', 'name: "bad"')}
parameters { key: "fault_status" value: { string_value: "999:0.1" } }`;
    const repo = makeRepository({ bad });
    const server = await start({ modelRepository: repo, grpcPort: -1, metricsPort: -1 });
    try {
      const row = server.models.find((m) => m.name === 'bad');
      expect(row?.state).toBe('UNAVAILABLE');
      expect(row?.reason).toMatch(/invalid parameter fault_status of model 'bad' "999:0.1"/);
    } finally {
      await server.stop();
      removeRepository(repo);
    }
  });
});
