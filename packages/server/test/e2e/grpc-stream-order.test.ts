/**
 * Regression (found by tritonclient's stream checks, test/tools): Triton answers a non-decoupled model's
 * ModelStreamInfer requests in the order they were sent, errors included (stream_infer_handler.cc queues each
 * answer until the ones before it are written). The server used to write them as they completed.
 */
import type * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import {
  gateBackend,
  grpcClient,
  type Json,
  makeRepository,
  removeRepository,
  start,
  waitFor,
} from '../helpers.ts';

const GATED = `
name: "gated"
backend: "gate"
max_batch_size: 8
input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 2 ] } ]
`;

const request = (id: string, model = 'gated') => ({
  model_name: model,
  id,
  inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 4] }],
  raw_input_contents: [Buffer.alloc(16)],
});

describe('gRPC ModelStreamInfer answer order', () => {
  let server: RunningServer;
  let repo: string;
  let client: ReturnType<typeof grpcClient>;
  const gate = gateBackend();
  beforeAll(async () => {
    repo = makeRepository({ gated: GATED });
    server = await start({ modelRepository: repo, backends: { gate: gate.factory } });
    client = grpcClient(server);
  });
  afterAll(async () => {
    gate.release();
    client.close();
    await server.stop();
    removeRepository(repo);
  });

  it('writes answers in request order even when a later request finishes first', async () => {
    const call = client.client.ModelStreamInfer() as grpc.ClientDuplexStream<object, Json>;
    const got: Json[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      call.on('data', (m: Json) => got.push(m));
      call.on('end', () => resolve());
      call.on('error', reject);
    });
    // s1 blocks in the backend; s2 fails at once (unknown model); s3 queues behind s1.
    call.write(request('s1'));
    call.write(request('s2', 'ghost'));
    call.write(request('s3'));
    call.end();
    // Streamed messages reach the server one by one: wait until s3 queues behind s1 (s2 has failed by then).
    await waitFor(() => gate.state.started >= 1, 'the first execution');
    await waitFor(() => server.core.pendingCounts().some((p) => p.count >= 1), 's3 queued');
    gate.release();
    await ended;
    expect(got.map((m) => m.infer_response.id)).toEqual(['s1', 's2', 's3']);
    expect(got.map((m) => m.error_message === '')).toEqual([true, false, true]);
  });
});
