/**
 * Issue 11, case 7: input the server used to accept or crash on. A negative class count, `data` nested 200,000
 * deep, objects in BYTES data and "NaN" strings in FP32 data are refused with Triton's answers (its JSON
 * library's refusals are 500s, its own checks 400 / INVALID_ARGUMENT), never a crash; a request whose client
 * cancels while it is queued never executes.
 */
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import {
  gateBackend,
  grpcClient,
  http,
  int32Bytes,
  type Json,
  makeRepository,
  removeRepository,
  start,
  waitFor,
} from '../helpers.ts';
import { GATED, NOBATCH, SIMPLE, STRINGS } from '../repo-fixtures.ts';

const seq = (n: number) => Array.from({ length: n }, (_, i) => i);
const simpleInputs = [
  { name: 'INPUT0', shape: [1, 16], datatype: 'INT32', data: seq(16) },
  { name: 'INPUT1', shape: [1, 16], datatype: 'INT32', data: seq(16) },
];

describe('input gaps', () => {
  let server: RunningServer;
  let repo: string;
  let gate: ReturnType<typeof gateBackend>;
  beforeAll(async () => {
    repo = makeRepository({ simple: SIMPLE, nobatch: NOBATCH, strings: STRINGS, gated: GATED });
    gate = gateBackend();
    server = await start({ modelRepository: repo, backends: { gate: gate.factory } });
  });
  afterAll(async () => {
    gate.release();
    await server.stop();
    removeRepository(repo);
  });

  const infer = (model: string, body: object | string) =>
    http(server, 'POST', `/v2/models/${model}/infer`, typeof body === 'string' ? body : JSON.stringify(body));

  it('refuses classification -1 over HTTP as Triton does (500: not an unsigned integer)', async () => {
    const res = await infer('simple', {
      inputs: simpleInputs,
      outputs: [{ name: 'OUTPUT0', parameters: { classification: -1 } }],
    });
    expect(res.status).toBe(500);
    expect(res.json().error).toBe(
      "Unable to set 'classification': attempt to access JSON non-unsigned-integer as unsigned-integer",
    );
  });

  it('answers classification -1 with INVALID_ARGUMENT over gRPC', async () => {
    const client = grpcClient(server);
    try {
      const err = await client
        .call('ModelInfer', {
          model_name: 'simple',
          inputs: simpleInputs.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.shape })),
          raw_input_contents: [int32Bytes(seq(16)), int32Bytes(seq(16))],
          outputs: [{ name: 'OUTPUT0', parameters: { classification: { int64_param: -1 } } }],
        })
        .then(
          () => undefined,
          (e: grpc.ServiceError) => e,
        );
      expect(err?.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(err?.details).toBe("invalid value for 'classification' parameter, expected >= 0");
    } finally {
      client.close();
    }
  });

  it('answers data nested 100 deep with Triton’s 400 at depth 100', async () => {
    const depth = 100;
    const body = `{"inputs":[{"name":"input.1","shape":[1,1,28,28],"datatype":"FP32","data":${'['.repeat(depth)}0${']'.repeat(depth)}}]}`;
    const res = await infer('nobatch', body);
    expect(res.status).toBe(400);
    expect(res.json().error).toBe(
      "Unable to parse 'data': JSON nesting depth exceeds maximum allowed limit (100)",
    );
  });

  it('answers data nested 200,000 deep with 400 before parsing (Triton 2.60 segfaults on it)', async () => {
    const depth = 200_000;
    const body = `{"inputs":[{"name":"input.1","shape":[1,1,28,28],"datatype":"FP32","data":${'['.repeat(depth)}0${']'.repeat(depth)}}]}`;
    const res = await infer('nobatch', body);
    expect(res.status).toBe(400);
    expect(res.json().error).toBe("request JSON nests deeper than the server's limit of 128 levels");
  });

  it('refuses objects in BYTES data as Triton does (500)', async () => {
    const res = await infer('strings', {
      inputs: [{ name: 'TEXT', shape: [1, 2], datatype: 'BYTES', data: [{ a: 1 }, 'x'] }],
    });
    expect(res.status).toBe(500);
    expect(res.json().error).toBe(
      'Unable to parse JSON bytes array: attempt to access JSON non-string as string',
    );
  });

  it('refuses "NaN" strings in FP32 data as Triton does (500)', async () => {
    const data = new Array<unknown>(784).fill(0.5);
    data[3] = 'NaN';
    const res = await infer('nobatch', {
      inputs: [{ name: 'input.1', shape: [1, 1, 28, 28], datatype: 'FP32', data }],
    });
    expect(res.status).toBe(500);
    expect(res.json().error).toBe("Unable to parse 'data': attempt to access JSON non-number as double");
  });

  it('still accepts nested and flat numeric data', async () => {
    const flat = await infer('simple', { inputs: simpleInputs });
    const nested = await infer('simple', { inputs: simpleInputs.map((t) => ({ ...t, data: [t.data] })) });
    expect([flat.status, nested.status]).toEqual([200, 200]);
  });

  it('drops a queued gRPC request when its call is cancelled, so it never executes', async () => {
    const client = grpcClient(server);
    const x = Buffer.alloc(16);
    const request = {
      model_name: 'gated',
      inputs: [{ name: 'X', datatype: 'FP32', shape: [4] }],
      raw_input_contents: [x],
    };
    try {
      const first = client.call('ModelInfer', request);
      await waitFor(() => gate.state.started === 1, 'the first request to execute');
      let second: grpc.ServiceError | undefined;
      const call = (client.client as Json).ModelInfer(request, (err: grpc.ServiceError | null) => {
        second = err ?? undefined;
      });
      const pending = () => server.core.pendingCounts().find((p) => p.model === 'gated')?.count ?? 0;
      await waitFor(() => pending() === 1, 'the second request to queue');
      call.cancel();
      await waitFor(() => pending() === 0, 'the cancelled request to leave the queue');
      gate.release();
      await first;
      await waitFor(() => second !== undefined, 'the cancelled call to end');
      expect(second?.code).toBe(grpc.status.CANCELLED);
      expect(gate.state.started).toBe(1);
      const stats = (await http(server, 'GET', '/v2/models/gated/stats')).json().model_stats[0]
        .inference_stats;
      expect(stats.success.count).toBe(1);
      expect(stats.fail.count).toBe(1);
      // Counted under Triton's reason for a cancelled request.
      const metrics = await (await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`)).text();
      expect(metrics).toMatch(
        /^nv_inference_request_failure\{model="gated",reason="CANCELED",version="1"\} 1$/m,
      );
    } finally {
      gate.close();
      client.close();
    }
  });

  it('drops a queued HTTP request when its client hangs up', async () => {
    const body = JSON.stringify({
      inputs: [{ name: 'X', shape: [4], datatype: 'FP32', data: [1, 2, 3, 4] }],
    });
    const before = gate.state.started;
    gate.close();
    const first = http(server, 'POST', '/v2/models/gated/infer', body);
    await waitFor(() => gate.state.started === before + 1, 'the first request to execute');
    const abort = new AbortController();
    const second = fetch(`http://127.0.0.1:${server.httpPort}/v2/models/gated/infer`, {
      method: 'POST',
      body,
      signal: abort.signal,
    }).catch((e: Error) => e.name);
    const pending = () => server.core.pendingCounts().find((p) => p.model === 'gated')?.count ?? 0;
    await waitFor(() => pending() === 1, 'the second request to queue');
    abort.abort();
    expect(await second).toBe('AbortError');
    await waitFor(() => pending() === 0, 'the abandoned request to leave the queue');
    gate.release();
    expect((await first).status).toBe(200);
    expect(gate.state.started).toBe(before + 1);
  });
});
