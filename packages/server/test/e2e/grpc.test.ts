import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import { expectedFloat } from '../expected-outputs.ts';
import { grpcClient, type Json, int32Bytes, makeRepository, removeRepository, start } from '../helpers.ts';
import { NOBATCH, SIMPLE } from '../repo-fixtures.ts';

const PROTO_DIR = fileURLToPath(new URL('../../../../proto/', import.meta.url));
const seq = (n: number, from = 0) => Array.from({ length: n }, (_, i) => i + from);

describe('gRPC inference.GRPCInferenceService', () => {
  let server: RunningServer;
  let repo: string;
  let client: ReturnType<typeof grpcClient>;
  beforeAll(async () => {
    repo = makeRepository({ simple: SIMPLE, nobatch: NOBATCH });
    server = await start({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['*'] });
    client = grpcClient(server);
  });
  afterAll(async () => {
    client.close();
    await server.stop();
    removeRepository(repo);
  });

  const rawRequest = (id = '') => ({
    model_name: 'simple',
    id,
    inputs: [
      { name: 'INPUT0', datatype: 'INT32', shape: [1, 16] },
      { name: 'INPUT1', datatype: 'INT32', shape: [1, 16] },
    ],
    raw_input_contents: [int32Bytes(seq(16)), int32Bytes(seq(16, 100))],
  });

  it('answers ServerLive, ServerReady and ModelReady', async () => {
    expect(await client.call('ServerLive', {})).toEqual({ live: true });
    expect(await client.call('ServerReady', {})).toEqual({ ready: true });
    expect(await client.call('ModelReady', { name: 'simple', version: '1' })).toEqual({ ready: true });
    expect(await client.call('ModelReady', { name: 'ghost' })).toEqual({ ready: false });
    // A version that is not a number is an error, as in Triton.
    await expect(client.call('ModelReady', { name: 'simple', version: 'x' })).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    });
  });

  it('answers the standard gRPC health check (grpc.health.v1) with SERVING while ready', async () => {
    const def = protoLoader.loadSync('health.proto', {
      keepCase: true,
      enums: String,
      includeDirs: [PROTO_DIR],
    });
    const Health = (grpc.loadPackageDefinition(def) as Json).grpc.health.v1.Health;
    const health = new Health(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure());
    const check = (): Promise<Json> =>
      new Promise((resolve, reject) =>
        health.Check({}, (err: Error | null, res: Json) => (err ? reject(err) : resolve(res))),
      );
    try {
      expect(await check()).toEqual({ status: 'SERVING' });
    } finally {
      health.close();
    }
  });

  it('answers ServerMetadata and ModelMetadata', async () => {
    const meta = await client.call('ServerMetadata', {});
    expect(meta.name).toBe('triton');
    expect(meta.extensions).toContain('binary_tensor_data');
    const model = await client.call('ModelMetadata', { name: 'simple' });
    expect(model.versions).toEqual(['1']);
    expect(model.inputs[0]).toEqual({ name: 'INPUT0', datatype: 'INT32', shape: [-1, 16] });
  });

  it('answers ModelConfig with the typed config', async () => {
    const { config } = await client.call('ModelConfig', { name: 'simple' });
    expect(config.name).toBe('simple');
    expect(config.max_batch_size).toBe(8);
    expect(config.input[1]).toMatchObject({ name: 'INPUT1', data_type: 'TYPE_INT32', dims: [16] });
  });

  it('runs ModelInfer with raw_input_contents and answers raw_output_contents', async () => {
    const res = await client.call('ModelInfer', rawRequest('g1'));
    expect(res.id).toBe('g1');
    expect(res.model_version).toBe('1');
    expect(res.outputs.map((o: Json) => [o.name, o.datatype, o.shape])).toEqual([
      ['OUTPUT0', 'FP32', [1, 16]],
      ['OUTPUT1', 'INT32', [1, 4]],
    ]);
    expect(res.raw_output_contents[0].length).toBe(64);
    const parts = [int32Bytes(seq(16)), int32Bytes(seq(16, 100))];
    expect(res.raw_output_contents[0].readFloatLE(8)).toBe(expectedFloat(parts, 2));
  });

  it('runs ModelInfer with typed contents and returns the same answer as raw', async () => {
    const typed = await client.call('ModelInfer', {
      model_name: 'simple',
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], contents: { int_contents: seq(16) } },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], contents: { int_contents: seq(16, 100) } },
      ],
      outputs: [{ name: 'OUTPUT0' }],
    });
    const raw = await client.call('ModelInfer', rawRequest());
    expect(typed.outputs).toHaveLength(1);
    expect(typed.raw_output_contents[0].equals(raw.raw_output_contents[0])).toBe(true);
  });

  it('answers errors with the catalog gRPC status codes and Triton messages', async () => {
    const wrongShape = {
      ...rawRequest(),
      inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [1, 15] }, rawRequest().inputs[1]],
    };
    await expect(client.call('ModelInfer', wrongShape)).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: expect.stringContaining(
        "unexpected shape for input 'INPUT0' for model 'simple'. Expected [-1,16], got [1,15]",
      ),
    });
    await expect(client.call('ModelInfer', { ...rawRequest(), model_name: 'ghost' })).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
      details: "Request for unknown model: 'ghost' is not found",
    });
    await expect(client.call('ModelMetadata', { name: 'ghost' })).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
    });
    const mixed = { ...rawRequest(), raw_input_contents: [int32Bytes(seq(16))] };
    await expect(client.call('ModelInfer', mixed)).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    });
  });

  it('streams ModelStreamInfer answers and errors in order of completion, then ends', async () => {
    const call = client.client.ModelStreamInfer() as grpc.ClientDuplexStream<object, Json>;
    const got: Json[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      call.on('data', (m: Json) => got.push(m));
      call.on('end', () => resolve());
      call.on('error', reject);
    });
    call.write(rawRequest('s1'));
    call.write({ ...rawRequest('s2'), model_name: 'ghost' });
    call.write(rawRequest('s3'));
    call.end();
    await ended;
    expect(got).toHaveLength(3);
    const byId = Object.fromEntries(got.map((m) => [m.infer_response.id, m]));
    expect(byId.s1.error_message).toBe('');
    expect(byId.s1.infer_response.raw_output_contents).toHaveLength(2);
    expect(byId.s2.error_message).toBe("Request for unknown model: 'ghost' is not found");
    expect(byId.s3.infer_response.outputs[0].name).toBe('OUTPUT0');
  });

  it('answers ModelStatistics with counts of the requests sent', async () => {
    const before = (await client.call('ModelStatistics', { name: 'nobatch' })).model_stats[0];
    const image = Buffer.alloc(784 * 4);
    for (let i = 0; i < 3; i++) {
      await client.call('ModelInfer', {
        model_name: 'nobatch',
        inputs: [{ name: 'input.1', datatype: 'FP32', shape: [1, 1, 28, 28] }],
        raw_input_contents: [image],
      });
    }
    const after = (await client.call('ModelStatistics', { name: 'nobatch', version: '1' })).model_stats[0];
    expect(after.inference_count - before.inference_count).toBe(3);
    expect(after.inference_stats.success.count - before.inference_stats.success.count).toBe(3);
    expect(after.inference_stats.queue.count - before.inference_stats.queue.count).toBe(3);
    expect(after.batch_stats[0].batch_size).toBe(1);
    const all = await client.call('ModelStatistics', {});
    expect(all.model_stats.map((m: Json) => m.name).sort()).toEqual(['nobatch', 'simple']);
  });

  it('indexes, unloads and loads models through the repository RPCs, with a config override', async () => {
    const index = await client.call('RepositoryIndex', {});
    expect(index.models.map((m: Json) => [m.name, m.state, m.reason])).toEqual([
      ['nobatch', 'READY', ''],
      ['simple', 'READY', ''],
    ]);
    await client.call('RepositoryModelUnload', { model_name: 'nobatch' });
    expect(await client.call('ModelReady', { name: 'nobatch' })).toEqual({ ready: false });
    const after = await client.call('RepositoryIndex', {});
    expect(after.models.find((m: Json) => m.name === 'nobatch')).toMatchObject({
      state: 'UNAVAILABLE',
      reason: 'unloaded',
    });
    expect((await client.call('RepositoryIndex', { ready: true })).models).toHaveLength(1);
    const config = JSON.stringify({
      name: 'nobatch',
      backend: 'simulated',
      max_batch_size: 4,
      input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [2] }],
      output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [3] }],
    });
    await client.call('RepositoryModelLoad', {
      model_name: 'nobatch',
      parameters: { config: { string_param: config } },
    });
    const meta = await client.call('ModelMetadata', { name: 'nobatch' });
    expect(meta.inputs).toEqual([{ name: 'x', datatype: 'FP32', shape: [-1, 2] }]);
    // Triton answers INTERNAL for a model its repository does not hold.
    await expect(client.call('RepositoryModelLoad', { model_name: 'ghost' })).rejects.toMatchObject({
      code: grpc.status.INTERNAL,
      details: expect.stringMatching(/^failed to load 'ghost', failed to poll from model repository/),
    });
    // Unloading a model that is not loaded succeeds; parameters of the wrong type do not.
    expect(await client.call('RepositoryModelUnload', { model_name: 'ghost' })).toEqual({});
    await expect(
      client.call('RepositoryModelLoad', {
        model_name: 'nobatch',
        parameters: { config: { bool_param: true } },
      }),
    ).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: "invalid value type for load parameter 'config', expected string_param.",
    });
  });
});
