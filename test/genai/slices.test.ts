/**
 * What the raw records give beyond k6's summary: AIPerf's prefill throughput per user (ISL / TTFT per
 * request) and time slices, each request in the slice its last response came in; and the pre-flight's error
 * figures against the server's real send times, paired per request or side by side.
 */
import { describe, expect, it } from 'vitest';
import { errorFigures } from '../../lib/genai/error-bar.ts';
import type { GenerationRecord } from '../../lib/genai/metrics.ts';
import { levelSlices, prefillThroughput } from '../../lib/genai/slices.ts';

/** A request sent at `sent_ms` of `isl` input tokens, its tokens arriving at the given times. */
function request(sent_ms: number, isl: number, arrivals: number[], error?: string): GenerationRecord {
  return {
    sent_ms,
    inputTokens: isl,
    chunks: arrivals.map((at_ms) => ({ at_ms, tokens: 1 })),
    ...(error ? { error, done_ms: arrivals.at(-1) ?? sent_ms } : {}),
  };
}

describe('prefillThroughput', () => {
  it("is each successful request's input tokens over its TTFT, failures left out", () => {
    const stats = prefillThroughput([
      request(0, 200, [20, 22]), // 200 tokens in 20 ms: 10,000 tokens/s
      request(100, 100, [140, 142]), // 100 in 40 ms: 2,500 tokens/s
      request(200, 300, [210], 'boom'),
    ]);
    expect(stats?.min).toBeCloseTo(2500, 6);
    expect(stats?.max).toBeCloseTo(10000, 6);
    expect(stats?.avg).toBeCloseTo(6250, 6);
    expect(prefillThroughput([])).toBeUndefined();
  });
});

describe('levelSlices', () => {
  const records = [
    request(1000, 10, [1100, 1200]), // ends 0.2 s after the first send: slice 0
    request(1200, 20, [1500, 2100]), // ends at 1.1 s: slice 1
    request(2100, 30, [2200, 2400]), // 1.4 s: slice 1
    request(2400, 40, [3200, 3400]), // 2.4 s: past a 2 s window, so the last slice
    request(1300, 50, [1800], 'cut'), // failed at 0.8 s: slice 0, an error
  ];

  it('counts each request in the slice its last response came in, rates over the slice', () => {
    const slices = levelSlices(records, 2, 1);
    expect(slices.map((s) => [s.start_s, s.end_s, s.requests, s.errors])).toEqual([
      [0, 1, 1, 1],
      [1, 2, 3, 0],
    ]);
    expect(slices[1]!.input_tokens_per_s).toBe(90);
    expect(slices[1]!.output_tokens_per_s).toBe(6);
    expect(slices[0]!.ttft_ms).toEqual({ p50: 100, p99: 100 });
  });

  it('makes the last slice shorter when the window is not whole slices, and its rates per its length', () => {
    const slices = levelSlices(records, 2, 1.5);
    expect(slices.map((s) => [s.start_s, s.end_s])).toEqual([
      [0, 1.5],
      [1.5, 2],
    ]);
    // Slice 1 (0.5 s) holds only the request past the window: 1 request, 2 req/s.
    expect(slices[1]!.requests).toBe(1);
    expect(slices[1]!.requests_per_s).toBe(2);
  });

  it('refuses a slice of 0 s', () => {
    expect(() => levelSlices(records, 2, 0)).toThrow(/expected > 0 s/);
  });
});

describe('errorFigures', () => {
  const known = { first_ms: 10, gap_ms: 2 };

  it('pairs records with the server streams in order at c1 and measures above the real send times', () => {
    const sent = [{ sends_ms: [10.5, 12.5, 14.5] }, { sends_ms: [10, 12, 14.2] }];
    const records = [
      request(1000, 5, [1011.5, 1013.5, 1015.5]), // TTFT 11.5 over a real 10.5: +1
      request(1100, 5, [1113, 1115, 1117.4]), // 13 over 10: +3; gaps 2/2.4 against 2/2.2
    ];
    const f = errorFigures(records, sent, known)!;
    expect(f.paired).toBe(true);
    expect(f.requests).toBe(2);
    expect(f.ttft_error_ms.p50).toBeCloseTo(2, 9);
    // Gap errors 0, 0, 0 and 0.2: p50 0, p99 interpolated at rank 2.97 (numpy's rule).
    expect(f.gap_error_ms.p50).toBe(0);
    expect(f.gap_error_ms.p99).toBeCloseTo(0.194, 6);
    // Lateness 0.5, 0.5, 0.5, 0, 0, 0.2 against the planned 10, 12, 14: p50 between 0.2 and 0.5.
    expect(f.server_late_ms.p50).toBeCloseTo(0.35, 9);
  });

  it("pairs the measured requests with the server's last streams (the warm-up's came first)", () => {
    const sent = [{ sends_ms: [30, 32] }, { sends_ms: [10, 12] }];
    const f = errorFigures([request(0, 5, [11, 13])], sent, known)!;
    expect(f.paired).toBe(true);
    expect(f.ttft_error_ms.p50).toBeCloseTo(1, 9);
  });

  it('sets percentiles side by side above c1, and is undefined without a success', () => {
    const sent = [{ sends_ms: [10, 12] }, { sends_ms: [10, 12] }, { sends_ms: [10, 12] }];
    const f = errorFigures([request(0, 5, [14, 16])], sent, known, false)!;
    expect(f.paired).toBe(false);
    expect(f.ttft_error_ms.p50).toBeCloseTo(4, 9);
    expect(errorFigures([request(0, 5, [14], 'x')], sent, known)).toBeUndefined();
    // More successes than streams the server logged: they cannot be matched.
    const one = [{ sends_ms: [10, 12] }];
    expect(errorFigures([request(0, 5, [14, 16]), request(50, 5, [64, 66])], one, known)!.paired).toBe(false);
  });
});
