import { describe, expect, it } from 'vitest';
import { serverAverages_us, serverStatsDelta } from '../../lib/load/server-stats.ts';

/** A statistics reading shaped like Triton's GET /v2/models/<m>/stats. */
function reading(requests: number, queue_ns: number, infer_ns: number, version = '1', name = 'dlrm') {
  return {
    name,
    version,
    inference_count: requests * 4,
    execution_count: Math.ceil(requests / 2),
    inference_stats: {
      success: { count: requests, ns: 0 },
      queue: { count: requests, ns: queue_ns },
      compute_input: { count: requests, ns: requests * 1000 },
      compute_infer: { count: requests, ns: infer_ns },
      compute_output: { count: String(requests), ns: String(requests * 2000) },
    },
  };
}

describe('serverStatsDelta', () => {
  it('differences two readings and converts ns to us', () => {
    const before = { model_stats: [reading(10, 1_000_000, 5_000_000)] };
    const after = { model_stats: [reading(30, 3_000_000, 25_000_000)] };
    const delta = serverStatsDelta(before, after, { model: 'dlrm' });
    expect(delta).toEqual({
      request_count: 20,
      inference_count: 80,
      execution_count: 10,
      queue_count: 20,
      queue_us: 2000,
      compute_count: 20,
      compute_input_us: 20,
      compute_infer_us: 20_000,
      compute_output_us: 40,
    });
    expect(serverAverages_us(delta)).toEqual({
      request_count: 20,
      queue_us: 100,
      compute_input_us: 1,
      compute_infer_us: 1000,
      compute_output_us: 2,
    });
  });

  it('keeps to the asked model and version and never goes negative', () => {
    const before = {
      model_stats: [reading(10, 0, 0, '1'), reading(5, 0, 0, '2'), reading(1, 0, 0, '1', 'other')],
    };
    const after = {
      model_stats: [reading(12, 0, 0, '1'), reading(9, 0, 0, '2'), reading(100, 0, 0, '1', 'other')],
    };
    expect(serverStatsDelta(before, after, { model: 'dlrm', version: '2' }).request_count).toBe(4);
    expect(serverStatsDelta(before, after, { model: 'dlrm' }).request_count).toBe(6);
    expect(serverStatsDelta(after, before, { model: 'dlrm' }).request_count).toBe(0);
  });

  it('reads k6 gRPC camelCase responses with uint64 strings', () => {
    const grpc = (requests: number, queue_ns: number) => ({
      modelStats: [
        {
          name: 'dlrm',
          version: '1',
          inferenceCount: String(requests),
          executionCount: String(requests),
          inferenceStats: {
            success: { count: String(requests), ns: '0' },
            queue: { count: String(requests), ns: String(queue_ns) },
            computeInput: { count: String(requests), ns: '0' },
            computeInfer: { count: String(requests), ns: String(requests * 5000) },
            computeOutput: { count: String(requests), ns: '0' },
          },
        },
      ],
    });
    const delta = serverStatsDelta(grpc(1, 1000), grpc(11, 51_000), { model: 'dlrm' });
    expect(serverAverages_us(delta)).toMatchObject({ request_count: 10, queue_us: 5, compute_infer_us: 5 });
  });

  it("reads lib/kserve's normalised ModelStats arrays", () => {
    const normalised = (requests: number) => [
      {
        name: 'dlrm',
        version: '1',
        inferenceCount: requests * 2,
        executionCount: requests,
        inference: {
          success: { count: requests, ns: 0 },
          queue: { count: requests, ns: requests * 3000 },
          computeInput: { count: requests, ns: 0 },
          computeInfer: { count: requests, ns: 0 },
          computeOutput: { count: requests, ns: 0 },
        },
        batches: [],
      },
    ];
    const delta = serverStatsDelta(normalised(2), normalised(6), { model: 'dlrm', version: '1' });
    expect(delta).toMatchObject({ request_count: 4, inference_count: 8, queue_us: 12 });
  });

  it('averages to zero when the server saw nothing', () => {
    const empty = serverStatsDelta({}, {}, { model: 'x' });
    expect(serverAverages_us(empty).queue_us).toBe(0);
  });
});
