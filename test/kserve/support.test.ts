import { describe, expect, it } from 'vitest';
import { base64Decode, base64Encode } from '../../lib/kserve/base64.ts';
import { normalizeModelMetadata, normalizeServerMetadata } from '../../lib/kserve/metadata.ts';
import { outputProblems, outputsMatch } from '../../lib/kserve/outputs.ts';
import { headerValue, KSERVE_PATHS } from '../../lib/kserve/paths.ts';
import { normalizeStatistics } from '../../lib/kserve/stats.ts';
import { serverStatsDelta } from '../../lib/load/server-stats.ts';
import type { InferResult } from '../../lib/kserve/types.ts';

describe('base64', () => {
  it('matches Buffer for every length remainder and round-trips', () => {
    for (const length of [0, 1, 2, 3, 4, 5, 100, 70000]) {
      const bytes = new Uint8Array(length).map((_, i) => (i * 37 + 11) & 0xff);
      const text = base64Encode(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64'));
      expect([...base64Decode(text)]).toEqual([...bytes]);
    }
  });

  it('accepts unpadded and URL-safe input, rejects garbage', () => {
    expect([...base64Decode('-_8')]).toEqual([0xfb, 0xff]);
    expect(() => base64Decode('ab$d')).toThrow('invalid base64 in base64 data: character "$" at offset 2');
    expect(() => base64Decode('AAAAB', 'IN')).toThrow('invalid base64 in IN: a trailing single character');
  });

  it('skips the whitespace of wrapped text', () => {
    expect([...base64Decode('AQID\nBAUG\r\n Bw==\t')]).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});

describe('paths and headers', () => {
  it('builds KServe v2 paths with versions and encoded names', () => {
    expect(KSERVE_PATHS.infer('resnext101-32x4d')).toBe('/v2/models/resnext101-32x4d/infer');
    expect(KSERVE_PATHS.infer('onnx-mnist-cpu', '1')).toBe('/v2/models/onnx-mnist-cpu/versions/1/infer');
    expect(KSERVE_PATHS.modelStatistics('a b', '2')).toBe('/v2/models/a%20b/versions/2/stats');
    expect(KSERVE_PATHS.modelStatistics()).toBe('/v2/models/stats');
    expect(KSERVE_PATHS.modelConfig('m')).toBe('/v2/models/m/config');
  });

  it('finds headers regardless of case', () => {
    expect(headerValue({ 'Inference-Header-Content-Length': '12' }, 'inference-header-content-length')).toBe(
      '12',
    );
    expect(headerValue({ 'x-a': ['1', '2'] }, 'X-A')).toBe('1');
  });
});

describe('metadata', () => {
  it('normalises HTTP JSON and gRPC messages alike', () => {
    const http = normalizeModelMetadata({
      name: 'dlrm',
      versions: ['1'],
      platform: 'onnxruntime_onnx',
      inputs: [{ name: 'input__0', datatype: 'FP32', shape: [-1, 13] }],
      outputs: [{ name: 'output__0', datatype: 'FP32', shape: [-1, 1] }],
    });
    const grpc = normalizeModelMetadata({
      name: 'dlrm',
      versions: ['1'],
      platform: 'onnxruntime_onnx',
      inputs: [{ name: 'input__0', datatype: 'FP32', shape: ['-1', '13'] }],
      outputs: [{ name: 'output__0', datatype: 'FP32', shape: ['-1', '1'] }],
    });
    expect(grpc).toEqual(http);
    expect(http.inputs[0]!.shape).toEqual([-1, 13]);
    expect(
      normalizeServerMetadata({ name: 'triton', version: '2.50.0', extensions: ['binary_tensor_data'] }),
    ).toEqual({
      name: 'triton',
      version: '2.50.0',
      extensions: ['binary_tensor_data'],
    });
  });

  it('names the tensor with an unknown datatype', () => {
    expect(() =>
      normalizeModelMetadata({ name: 'm', inputs: [{ name: 'x', datatype: 'FLOAT', shape: [1] }] }),
    ).toThrow('model "m" metadata: tensor "x" has unknown datatype "FLOAT"');
  });
});

describe('outputProblems', () => {
  const specs = [{ name: 'OUTPUT__0', datatype: 'FP32' as const, dims: [1000] }];
  const result = (shape: number[], datatype: 'FP32' | 'FP16' = 'FP32', length = 1000): InferResult => ({
    modelName: 'm',
    modelVersion: '1',
    outputs: [{ name: 'OUTPUT__0', datatype, shape, data: new Float32Array(length) }],
  });

  it('accepts a matching output with the batch dimension', () => {
    expect(
      outputProblems(specs, result([4, 1000], 'FP32', 4000), { batchSize: 4, maxBatchSize: 64 }),
    ).toEqual([]);
    expect(outputsMatch(specs, result([7, 1000], 'FP32', 7000), { maxBatchSize: 64 })).toBe(true);
  });

  it('reports datatype, shape, element count, missing and unexpected outputs', () => {
    expect(outputProblems(specs, result([1, 1000], 'FP16'), { batchSize: 1, maxBatchSize: 64 })).toEqual([
      'output "OUTPUT__0": expected datatype FP32, got FP16',
    ]);
    expect(outputProblems(specs, result([1, 10], 'FP32', 10), { batchSize: 1, maxBatchSize: 64 })).toEqual([
      'output "OUTPUT__0": expected shape [1,1000], got [1,10]',
    ]);
    expect(outputProblems(specs, result([1000], 'FP32', 999))).toEqual([
      'output "OUTPUT__0": shape [1000] holds 1000 elements, got 999',
    ]);
    const renamed: InferResult = {
      modelName: 'm',
      modelVersion: '1',
      outputs: [{ name: 'probs', datatype: 'FP32', shape: [1000], data: new Float32Array(1000) }],
    };
    expect(outputProblems(specs, renamed)).toEqual([
      'missing output "OUTPUT__0"',
      'unexpected output "probs"',
    ]);
    expect(outputProblems(specs, renamed, { requested: ['probs'], allowExtra: true })).toEqual([]);
  });
});

describe('statistics', () => {
  const httpStats = {
    model_stats: [
      {
        name: 'resnext101-32x4d',
        version: '1',
        last_inference: 1700000000000,
        inference_count: 10,
        execution_count: 4,
        inference_stats: {
          success: { count: 10, ns: 5000000 },
          fail: { count: 0, ns: 0 },
          queue: { count: 10, ns: 1000000 },
          compute_input: { count: 4, ns: 400000 },
          compute_infer: { count: 4, ns: 3000000 },
          compute_output: { count: 4, ns: 200000 },
          cache_hit: { count: 0, ns: 0 },
          cache_miss: { count: 0, ns: 0 },
        },
        batch_stats: [
          {
            batch_size: 2,
            compute_input: { count: 4, ns: 400000 },
            compute_infer: { count: 4, ns: 3000000 },
            compute_output: { count: 4, ns: 200000 },
          },
        ],
      },
    ],
  };
  const grpcStats = {
    modelStats: [
      {
        name: 'resnext101-32x4d',
        version: '1',
        lastInference: '1700000000000',
        inferenceCount: '10',
        executionCount: '4',
        inferenceStats: {
          success: { count: '10', ns: '5000000' },
          fail: { count: '0', ns: '0' },
          queue: { count: '10', ns: '1000000' },
          computeInput: { count: '4', ns: '400000' },
          computeInfer: { count: '4', ns: '3000000' },
          computeOutput: { count: '4', ns: '200000' },
          cacheHit: { count: '0', ns: '0' },
          cacheMiss: { count: '0', ns: '0' },
        },
        batchStats: [
          {
            batchSize: '2',
            computeInput: { count: '4', ns: '400000' },
            computeInfer: { count: '4', ns: '3000000' },
            computeOutput: { count: '4', ns: '200000' },
          },
        ],
      },
    ],
  };

  it('normalises HTTP and gRPC statistics to the same numbers', () => {
    const fromHttp = normalizeStatistics(httpStats);
    expect(normalizeStatistics(grpcStats)).toEqual(fromHttp);
    expect(fromHttp[0]!.inference.computeInfer).toEqual({ count: 4, ns: 3000000 });
    expect(fromHttp[0]!.inference.queue).toEqual({ count: 10, ns: 1000000 });
  });

  it('diffs two normalised snapshots into a window', () => {
    const before = normalizeStatistics(httpStats)[0]!;
    const after = structuredClone(before);
    after.inferenceCount = 30;
    after.executionCount = 9;
    after.inference.queue = { count: 30, ns: 4000000 };
    after.inference.computeInfer = { count: 9, ns: 7000000 };
    const window = serverStatsDelta([before], [after], { model: before.name });
    expect(window.inference_count).toBe(20);
    expect(window.execution_count).toBe(5);
    expect([window.queue_count, window.queue_us]).toEqual([20, 3000]);
    expect(window.compute_infer_us).toBe(4000);
  });
});
