import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import {
  type Json,
  gateBackend,
  grpcClient,
  http,
  makeRepository,
  removeRepository,
  start,
  waitFor,
} from '../helpers.ts';

/** A model on the gate backend: input X FP32 [4] → output Y FP32 [2]. */
function gateModel(name: string, extra: string, maxBatch = 8): string {
  return `
name: "${name}"
backend: "gate"
max_batch_size: ${maxBatch}
input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 2 ] } ]
${extra}
`;
}

const request = (batch = 1) =>
  JSON.stringify({
    inputs: [
      {
        name: 'X',
        shape: [batch, 4],
        datatype: 'FP32',
        data: Array.from({ length: 4 * batch }, (_, i) => i),
      },
    ],
  });

describe('scheduling', () => {
  let server: RunningServer | undefined;
  let repo: string | undefined;
  let gate: ReturnType<typeof gateBackend>;

  async function serve(models: Record<string, string>): Promise<RunningServer> {
    repo = makeRepository(models);
    gate = gateBackend();
    server = await start({ modelRepository: repo, backends: { gate: gate.factory } });
    return server;
  }
  afterEach(async () => {
    gate?.release();
    await server?.stop();
    if (repo) removeRepository(repo);
    server = undefined;
    repo = undefined;
  });

  const stats = async (s: RunningServer, model: string): Promise<Json> =>
    (await http(s, 'GET', `/v2/models/${model}/stats`)).json().model_stats[0];
  const batchCounts = (st: Json) =>
    Object.fromEntries(st.batch_stats.map((b: Json) => [b.batch_size, b.compute_infer.count]));
  const pending = (s: RunningServer) => s.core.pendingCounts()[0]!.count;

  it('without dynamic batching executes each request alone', async () => {
    const s = await serve({ m: gateModel('m', '') });
    gate.release();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => http(s, 'POST', '/v2/models/m/infer', request())),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const st = await stats(s, 'm');
    expect(batchCounts(st)).toEqual({ 1: 6 });
    expect(st.execution_count).toBe(6);
  });

  it('forms batches up to max_batch_size from requests queued behind a busy instance', async () => {
    const s = await serve({ m: gateModel('m', 'dynamic_batching { }', 4) });
    const first = http(s, 'POST', '/v2/models/m/infer', request());
    await waitFor(() => gate.state.started === 1, 'the first execution');
    const rest = Array.from({ length: 9 }, () => http(s, 'POST', '/v2/models/m/infer', request()));
    await waitFor(() => pending(s) === 9, '9 queued requests');
    gate.release();
    const answers = await Promise.all([first, ...rest]);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(gate.state.batches).toEqual([1, 4, 4, 1]);
    const st = await stats(s, 'm');
    expect(batchCounts(st)).toEqual({ 1: 2, 4: 2 });
    expect(st.inference_count).toBe(10);
    expect(st.execution_count).toBe(4);
  });

  it('sends a preferred batch size at once and the rest when max_queue_delay expires', async () => {
    const s = await serve({
      m: gateModel(
        'm',
        'dynamic_batching { preferred_batch_size: [ 2 ] max_queue_delay_microseconds: 200000 }',
      ),
    });
    gate.release();
    const answers = await Promise.all(
      Array.from({ length: 7 }, () => http(s, 'POST', '/v2/models/m/infer', request())),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(batchCounts(await stats(s, 'm'))).toEqual({ 1: 1, 2: 3 });
  });

  it('waits up to max_queue_delay to fill a batch to max_batch_size', async () => {
    const s = await serve({
      m: gateModel('m', 'dynamic_batching { max_queue_delay_microseconds: 30000000 }', 4),
    });
    gate.release();
    // With a 30 s delay these complete only because 4 requests fill the batch: 8 requests make 2 batches of 4.
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => http(s, 'POST', '/v2/models/m/infer', request())),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(batchCounts(await stats(s, 'm'))).toEqual({ 4: 2 });
  });

  it('counts a batch-b request as b inferences and batches by inference count', async () => {
    const s = await serve({
      m: gateModel('m', 'dynamic_batching { max_queue_delay_microseconds: 30000000 }', 8),
    });
    gate.release();
    const answers = await Promise.all([3, 5].map((b) => http(s, 'POST', '/v2/models/m/infer', request(b))));
    expect(answers.map((a) => a.json().outputs[0].shape)).toEqual([
      [3, 2],
      [5, 2],
    ]);
    const st = await stats(s, 'm');
    expect(st.inference_count).toBe(8);
    expect(batchCounts(st)).toEqual({ 8: 1 });
  });

  it('rejects with 503 "Exceeds maximum queue size" when the queue is full', async () => {
    const s = await serve({
      m: gateModel('m', 'dynamic_batching { default_queue_policy { max_queue_size: 2 } }', 1),
    });
    const first = http(s, 'POST', '/v2/models/m/infer', request());
    await waitFor(() => gate.state.started === 1, 'the first execution');
    const queued = [
      http(s, 'POST', '/v2/models/m/infer', request()),
      http(s, 'POST', '/v2/models/m/infer', request()),
    ];
    await waitFor(() => pending(s) === 2, 'a full queue');
    const rejected = await http(s, 'POST', '/v2/models/m/infer', request());
    expect(rejected.status).toBe(503);
    expect(rejected.json()).toEqual({ error: '[request id: <id_unknown>] Exceeds maximum queue size' });
    gate.release();
    expect((await Promise.all([first, ...queued])).map((a) => a.status)).toEqual([200, 200, 200]);
    // Triton refuses a request at a full queue before it is queued: neither statistics nor metrics count it.
    const st = await stats(s, 'm');
    expect(st.inference_stats.success.count).toBe(3);
    expect(st.inference_stats.fail.count).toBe(0);
    const metrics = await (await fetch(`http://127.0.0.1:${s.metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^nv_inference_request_failure\{model="m",reason="REJECTED",version="1"\} 0$/m);
  });

  it('rejects a full queue over gRPC with status UNAVAILABLE', async () => {
    const s = await serve({
      m: gateModel('m', 'dynamic_batching { default_queue_policy { max_queue_size: 1 } }', 1),
    });
    const client = grpcClient(s);
    const req = {
      model_name: 'm',
      inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 4] }],
      raw_input_contents: [Buffer.alloc(16)],
    };
    try {
      const first = client.call('ModelInfer', req);
      await waitFor(() => gate.state.started === 1, 'the first execution');
      const queued = client.call('ModelInfer', req);
      await waitFor(() => pending(s) === 1, 'a full queue');
      await expect(client.call('ModelInfer', req)).rejects.toMatchObject({
        code: grpc.status.UNAVAILABLE,
        details: '[request id: <id_unknown>] Exceeds maximum queue size',
      });
      gate.release();
      expect((await first).outputs[0].shape).toEqual([1, 2]);
      expect((await queued).outputs[0].shape).toEqual([1, 2]);
    } finally {
      client.close();
    }
  });

  it('rejects requests queued longer than default_timeout_microseconds', async () => {
    const s = await serve({
      m: gateModel(
        'm',
        'dynamic_batching { default_queue_policy { default_timeout_microseconds: 1000 } }',
        1,
      ),
    });
    const first = http(s, 'POST', '/v2/models/m/infer', request());
    await waitFor(() => gate.state.started === 1, 'the first execution');
    const late = http(s, 'POST', '/v2/models/m/infer', request());
    await waitFor(() => pending(s) === 1, 'a queued request');
    await new Promise((r) => setTimeout(r, 20));
    gate.release();
    expect((await first).status).toBe(200);
    const res = await late;
    expect(res.status).toBe(503);
    expect(res.json().error).toBe('Request timeout expired');
    // A request that times out in the queue was queued: Triton counts it as a REJECTED failure.
    expect((await stats(s, 'm')).inference_stats.fail.count).toBe(1);
    const metrics = await (await fetch(`http://127.0.0.1:${s.metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^nv_inference_request_failure\{model="m",reason="REJECTED",version="1"\} 1$/m);
  });

  it('runs instance_group count executions in parallel, never more', async () => {
    const s = await serve({ m: gateModel('m', 'instance_group [ { count: 3 kind: KIND_CPU } ]') });
    const answers = Array.from({ length: 5 }, () => http(s, 'POST', '/v2/models/m/infer', request()));
    await waitFor(() => gate.state.started === 3 && pending(s) === 2, '3 executing and 2 queued');
    expect(gate.state.running).toBe(3);
    gate.release();
    expect((await Promise.all(answers)).every((a) => a.status === 200)).toBe(true);
    expect(gate.state.maxRunning).toBe(3);
  });

  it('lets in-flight requests finish on stop and refuses new ones', async () => {
    const s = await serve({ m: gateModel('m', '') });
    const inflight = http(s, 'POST', '/v2/models/m/infer', request());
    await waitFor(() => gate.state.started === 1, 'the execution');
    const stopped = s.stop();
    // The ports stay open while in-flight requests drain: a new request is answered, and refused.
    const refused = await http(s, 'POST', '/v2/models/m/infer', request());
    expect(refused.status).toBe(503);
    expect(refused.json().error).toBe('Server is stopping: no new requests are accepted');
    gate.release();
    expect((await inflight).status).toBe(200);
    await stopped;
  });
});
