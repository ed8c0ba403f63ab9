/**
 * Golden tests of the generative metrics: recorded timestamps replayed through lib/genai/metrics.ts and checked
 * against the figures worked out by hand here from genai-perf's and vLLM's formulas, edge cases included
 * (one-token outputs, empty chunks, usage counts, errors mid-stream), plus the consistency checks.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type GenerationRecord,
  levelMetrics,
  meetsSlo,
  recordsWindow,
  requestMetrics,
} from '../../lib/genai/metrics.ts';
import { percentileOfSorted, summarize } from '../../lib/genai/stats.ts';

const chunk = (at_ms: number, tokens = 1) => ({ at_ms, tokens });

describe('requestMetrics', () => {
  it('one token per chunk: TTFT, time to second token, latency, ITL, gaps, tokens/s', () => {
    const m = requestMetrics({
      sent_ms: 1000,
      inputTokens: 200,
      chunks: [chunk(1010), chunk(1012), chunk(1015), chunk(1019)],
    });
    expect(m).toEqual({
      ok: true,
      ttft_ms: 10,
      ttst_ms: 2,
      latency_ms: 19,
      itl_ms: (19 - 10) / (4 - 1),
      gaps_ms: [2, 3, 4],
      inputTokens: 200,
      outputTokens: 4,
      tokensPerSecond: 4 / 0.019,
    });
  });

  it('several tokens per chunk: ITL divides by OSL - 1, gaps stay per chunk', () => {
    const m = requestMetrics({ sent_ms: 0, inputTokens: 5, chunks: [chunk(10, 3), chunk(20, 3)] });
    expect(m.outputTokens).toBe(6);
    expect(m.itl_ms).toBe((20 - 10) / 5);
    expect(m.gaps_ms).toEqual([10]);
  });

  it('role-only first chunk and empty final response: dropped by default (genai-perf), counted with any (vLLM)', () => {
    const record: GenerationRecord = {
      sent_ms: 1000,
      inputTokens: 8,
      chunks: [chunk(1005, 0), chunk(1010), chunk(1020), chunk(1021, 0)],
    };
    const nonEmpty = requestMetrics(record);
    expect([nonEmpty.ttft_ms, nonEmpty.latency_ms, nonEmpty.itl_ms, nonEmpty.ttst_ms]).toEqual([
      10, 20, 10, 10,
    ]);
    expect(nonEmpty.gaps_ms).toEqual([10]);
    const any = requestMetrics(record, { firstToken: 'any' });
    expect([any.ttft_ms, any.latency_ms, any.ttst_ms]).toEqual([5, 21, 5]);
    expect(any.itl_ms).toBe((21 - 5) / (2 - 1));
    expect(any.gaps_ms).toEqual([5, 10, 1]);
    expect(any.outputTokens).toBe(2);
  });

  it('one-token output: latency equals TTFT, no ITL and no time to second token', () => {
    const m = requestMetrics({ sent_ms: 100, inputTokens: 3, chunks: [chunk(130)] });
    expect(m.ok).toBe(true);
    expect(m.ttft_ms).toBe(30);
    expect(m.latency_ms).toBe(30);
    expect(m.itl_ms).toBeUndefined();
    expect(m.ttst_ms).toBeUndefined();
    expect(m.gaps_ms).toEqual([]);
  });

  it("the server's usage count wins over the chunks' sum", () => {
    const m = requestMetrics({
      sent_ms: 0,
      inputTokens: 1,
      outputTokens: 7,
      chunks: [chunk(10, 2), chunk(40, 3)],
    });
    expect(m.outputTokens).toBe(7);
    expect(m.itl_ms).toBe((40 - 10) / 6);
  });

  it('an error mid-stream fails the request; a stream with no token fails it too', () => {
    const mid = requestMetrics({ sent_ms: 0, inputTokens: 1, chunks: [chunk(5), chunk(9)], error: 'boom' });
    expect(mid).toEqual({ ok: false, error: 'boom', gaps_ms: [], inputTokens: 1, outputTokens: 0 });
    const none = requestMetrics({ sent_ms: 0, inputTokens: 1, chunks: [chunk(5, 0)] });
    expect(none.ok).toBe(false);
    expect(none.error).toBe('no token received');
    expect(
      requestMetrics({ sent_ms: 0, inputTokens: 1, chunks: [chunk(5, 0)] }, { firstToken: 'any' }).ok,
    ).toBe(true);
  });
});

describe('summarize', () => {
  it('numpy-style linear percentiles, population std, min, max', () => {
    const s = summarize([4, 1, 3, 2])!;
    expect(s.count).toBe(4);
    expect(s.avg).toBe(2.5);
    expect(s.min).toBe(1);
    expect(s.max).toBe(4);
    expect(s.std).toBeCloseTo(Math.sqrt(1.25), 12);
    // rank = (n - 1) p / 100: p50 -> 1.5 -> 2.5; p99 -> 2.97 -> 3.97; p1 -> 0.03 -> 1.03
    expect(s.p50).toBeCloseTo(2.5, 12);
    expect(s.p99).toBeCloseTo(3.97, 12);
    expect(s.p1).toBeCloseTo(1.03, 12);
    expect(s.p25).toBeCloseTo(1.75, 12);
    expect(summarize([])).toBeUndefined();
    expect(percentileOfSorted([7], 90)).toBe(7);
  });
});

describe('levelMetrics', () => {
  // Three requests, two concurrent, one failing mid-stream, one with a role-only first chunk.
  const records: GenerationRecord[] = [
    { sent_ms: 0, inputTokens: 10, chunks: [chunk(20), chunk(30), chunk(40), chunk(50)] },
    { sent_ms: 5, inputTokens: 12, chunks: [chunk(10, 0), chunk(60), chunk(100)] },
    { sent_ms: 50, inputTokens: 9, chunks: [chunk(70)], error: 'stream broke', done_ms: 120 },
  ];

  it('window, throughputs, errors and distributions by hand', () => {
    const level = levelMetrics(records);
    // Window 0 .. 120 ms (the failure's end is the last event).
    expect(level.window_s).toBeCloseTo(0.12, 12);
    expect([level.requests, level.completed, level.errors]).toEqual([3, 2, 1]);
    expect(level.errorCounts).toEqual({ 'stream broke': 1 });
    expect(level.requestThroughput).toBeCloseTo(2 / 0.12, 9);
    // OSL 4 + 2 over the window.
    expect(level.outputTokenThroughput).toBeCloseTo(6 / 0.12, 9);
    // TTFT 20 and 55; latency 50 and 95; ITL (50-20)/3 = 10 and (95-55)/1 = 40.
    expect(level.ttft_ms).toMatchObject({ count: 2, avg: 37.5, min: 20, max: 55 });
    expect(level.latency_ms).toMatchObject({ avg: 72.5, min: 50, max: 95 });
    expect(level.itl_ms).toMatchObject({ min: 10, max: 40, avg: 25 });
    // Pooled gaps 10, 10, 10 and 40.
    expect(level.chunkGaps_ms).toMatchObject({ count: 4, avg: 17.5, max: 40 });
    expect(level.tokensPerUser!.max).toBeCloseTo(4 / 0.05, 9);
    expect(level.inputTokens).toMatchObject({ min: 10, max: 12 });
    expect(level.goodput).toBeUndefined();
  });

  it('goodput counts a request only when every SLO holds', () => {
    expect(levelMetrics(records, { slo: { ttft_ms: 30 } }).goodRequests).toBe(1);
    expect(levelMetrics(records, { slo: { itl_ms: 50, latency_ms: 100 } }).goodRequests).toBe(2);
    expect(levelMetrics(records, { slo: { ttft_ms: 60, itl_ms: 20 } }).goodRequests).toBe(1);
    const level = levelMetrics(records, { slo: { latency_ms: 95 }, window: { start_ms: 0, end_ms: 1000 } });
    expect(level.goodRequests).toBe(2);
    expect(level.goodput).toBeCloseTo(2, 12);
    expect(level.requestThroughput).toBeCloseTo(2, 12);
    // A one-token request has no ITL: it passes an ITL SLO (vLLM's rule); a failed one never passes.
    expect(meetsSlo(requestMetrics({ sent_ms: 0, inputTokens: 1, chunks: [chunk(9)] }), { itl_ms: 0 })).toBe(
      true,
    );
    expect(meetsSlo(requestMetrics(records[2]!), {})).toBe(false);
    // tokens/s per user: 4 / 0.05 s = 80 and 2 / 0.095 s = 21.1 (genai-perf's SLO, a lower bound).
    expect(levelMetrics(records, { slo: { minTokensPerUser: 50 } }).goodRequests).toBe(1);
    expect(levelMetrics(records, { slo: { minTokensPerUser: 20, ttft_ms: 50 } }).goodRequests).toBe(1);
    expect(levelMetrics(records, { slo: { minTokensPerUser: 20 } }).goodRequests).toBe(2);
  });

  it('an empty level has zero rates and no distributions', () => {
    const level = levelMetrics([]);
    expect(recordsWindow([])).toEqual({ start_ms: 0, end_ms: 0 });
    expect([level.requestThroughput, level.outputTokenThroughput, level.completed]).toEqual([0, 0, 0]);
    expect(level.ttft_ms).toBeUndefined();
  });
});

describe('consistency', () => {
  // Concurrency 1, requests back to back, OSL 5 each, with uneven gaps inside each stream.
  const OSL = 5;
  const records: GenerationRecord[] = [];
  let t = 1000;
  for (let i = 0; i < 6; i++) {
    const sent_ms = t;
    const arrivals = [13.68 + i, 2, 1.5, 2.5, 1.8].map((d) => (t += d));
    records.push({ sent_ms, inputTokens: 200, chunks: arrivals.map((at) => chunk(at)) });
  }

  it('latency = TTFT + (OSL - 1) x ITL for every request', () => {
    for (const r of records) {
      const m = requestMetrics(r);
      expect(m.latency_ms).toBeCloseTo(m.ttft_ms! + (OSL - 1) * m.itl_ms!, 9);
    }
  });

  it('output tokens/s = requests/s x OSL at concurrency 1', () => {
    const level = levelMetrics(records);
    expect(level.outputTokenThroughput).toBeCloseTo(level.requestThroughput * OSL, 9);
    // And the window is the sum of the latencies, since the requests ran back to back.
    const sum = records.reduce((s, r) => s + requestMetrics(r).latency_ms!, 0);
    expect(level.window_s * 1000).toBeCloseTo(sum, 9);
  });
});

describe('replay of records measured on real Triton (repeat backend, gRPC and generate_stream)', () => {
  const fixture = JSON.parse(
    readFileSync(new URL('./fixtures/repeat-records.json', import.meta.url), 'utf8'),
  ) as {
    rows: { protocol: string; delays_ms: number[]; records: GenerationRecord[] }[];
  };

  it('holds the cases it is meant to: both protocols, gRPC with its empty final response', () => {
    expect(fixture.rows.map((r) => r.protocol)).toEqual(['grpc', 'http']);
    const grpcLast = fixture.rows[0]!.records[0]!.chunks.at(-1)!;
    expect(grpcLast.tokens).toBe(0);
  });

  for (const row of fixture.rows) {
    it(`${row.protocol}: genai-perf's and vLLM's formulas, written out here, give the same figures`, () => {
      const { records } = row;
      // genai-perf, per request, on the responses with content.
      const ttft: number[] = [];
      const latency: number[] = [];
      const itl: number[] = [];
      const gaps: number[] = [];
      let tokens = 0;
      for (const r of records) {
        const ts = r.chunks.filter((c) => c.tokens > 0).map((c) => c.at_ms);
        const osl = r.chunks.reduce((s, c) => s + c.tokens, 0);
        ttft.push(ts[0]! - r.sent_ms);
        latency.push(ts[ts.length - 1]! - r.sent_ms);
        itl.push((latency.at(-1)! - ttft.at(-1)!) / (osl - 1));
        for (let i = 1; i < ts.length; i++) gaps.push(ts[i]! - ts[i - 1]!);
        tokens += osl;
      }
      const start = Math.min(...records.map((r) => r.sent_ms));
      const end = Math.max(...records.map((r) => r.chunks.at(-1)!.at_ms));
      const window_s = (end - start) / 1000;
      const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;

      const level = levelMetrics(records);
      expect(level.completed).toBe(records.length);
      expect(level.ttft_ms!.avg).toBeCloseTo(mean(ttft), 9);
      expect(level.latency_ms!.avg).toBeCloseTo(mean(latency), 9);
      expect(level.itl_ms!.avg).toBeCloseTo(mean(itl), 9);
      expect(level.itl_ms!.max).toBeCloseTo(Math.max(...itl), 9);
      expect(level.chunkGaps_ms!.count).toBe(gaps.length);
      expect(level.chunkGaps_ms!.avg).toBeCloseTo(mean(gaps), 9);
      expect(level.outputTokens!.avg).toBe(row.delays_ms.length);
      expect(level.window_s).toBeCloseTo(window_s, 12);
      expect(level.requestThroughput).toBeCloseTo(records.length / window_s, 9);
      expect(level.outputTokenThroughput).toBeCloseTo(tokens / window_s, 9);

      // vLLM counts every chunk: gRPC's empty final response then ends the latency and adds a gap.
      const any = levelMetrics(records, { firstToken: 'any' });
      const anyLatency = mean(records.map((r) => r.chunks.at(-1)!.at_ms - r.sent_ms));
      expect(any.latency_ms!.avg).toBeCloseTo(anyLatency, 9);
      const empties = records.reduce((s, r) => s + r.chunks.filter((c) => c.tokens === 0).length, 0);
      expect(any.chunkGaps_ms!.count).toBe(gaps.length + empties);
      expect(empties).toBe(row.protocol === 'grpc' ? records.length : 0);
    });
  }
});
