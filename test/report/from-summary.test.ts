import { describe, expect, it } from 'vitest';
import { buildRunReport, levelsFromSummary, windowsFromSummary } from '../../lib/summary/from-summary.ts';
import { summary } from './fixture.ts';

const levels = [
  { name: 'c1', mode: 'concurrency' as const, level: 1, window_s: 5 },
  { name: 'c2', mode: 'concurrency' as const, level: 2, window_s: 5 },
  { name: 'c4', mode: 'concurrency' as const, level: 4, window_s: 5 },
];

describe('levelsFromSummary', () => {
  const results = levelsFromSummary({ summary, batch: 4, levels });

  it('keeps the levels that ran and drops the one that never did', () => {
    expect(results.map((r) => r.name)).toEqual(['c1', 'c2']);
  });

  it('converts k6 ms into us and counts inferences with the batch', () => {
    const c1 = results[0]!;
    expect(c1.requests).toBe(1000);
    expect(c1.inferences).toBe(4000);
    expect(c1.throughput_infer_s).toBe(800);
    expect(c1.latency_us.avg).toBeCloseTo(1400, 6);
    expect(c1.latency_us.p95).toBeCloseTo(2000, 6);
    expect(c1.latency_us.p99).toBeCloseTo(3000, 6);
    expect(c1.latency_us.p50).toBeCloseTo(1372, 6);
    expect(c1.client_send_us).toBeCloseTo(50, 6);
    expect(c1.client_recv_us).toBeCloseTo(100, 6);
  });

  it('averages the differenced server statistics and leaves network time as the rest', () => {
    const c1 = results[0]!;
    expect(c1.server).toEqual({
      request_count: 1000,
      queue_us: 100,
      compute_input_us: 20,
      compute_infer_us: 900,
      compute_output_us: 10,
    });
    // 1400 − 50 − 100 − (100 + 20 + 900 + 10)
    expect(c1.network_server_us).toBeCloseTo(220, 6);
    expect(results[1]!.server).toBeUndefined();
    expect(results[1]!.network_server_us).toBeCloseTo(25_000, 6);
  });

  it('reads errors, dropped iterations and the budget verdicts k6 judged', () => {
    const c2 = results[1]!;
    expect(c2.errors).toBe(2);
    expect(c2.dropped_iterations).toBe(0);
    expect(c2.budgets).toContainEqual(
      expect.objectContaining({
        metric: 'http_req_duration{scenario:c2}',
        expr: 'p(95)<20',
        ok: false,
        measured: 24.5,
        state: 'missed',
        samples: 500,
      }),
    );
    // p(99) from 500 samples: 5 beyond it, fewer than the 10 a verdict needs, and its interval reaches below 30.
    expect(c2.budgets).toContainEqual(
      expect.objectContaining({ expr: 'p(99)<30', ok: false, state: 'inconclusive', samples: 500 }),
    );
    expect(c2.budgets).toContainEqual(
      expect.objectContaining({
        metric: 'http_req_failed{scenario:c2}',
        expr: 'rate<0.01',
        ok: true,
        measured: 0.004,
        state: 'met',
      }),
    );
    // probes (max>=0 on sending) are not budgets
    expect(results[0]!.budgets.map((b) => b.expr).sort()).toEqual(['p(95)<20', 'p(99)<30', 'rate<0.01']);
  });

  it('infers levels from the summary keys when no plan is given', () => {
    const inferred = levelsFromSummary({ summary, batch: 1, window_s: 5 });
    expect(inferred.map((r) => [r.name, r.level, r.throughput_infer_s])).toEqual([
      ['c1', 1, 200],
      // c2: 2 of its 500 requests failed; only successful ones are throughput, as in perf_analyzer.
      ['c2', 2, 99.6],
    ]);
    expect(() => levelsFromSummary({ summary, batch: 1 })).toThrow(/give levels or window_s/);
  });

  it('reads --summary-export files too (flat values, true = failed threshold)', () => {
    const exported = {
      metrics: {
        'grpc_req_duration{scenario:r100}': {
          avg: 2,
          min: 1,
          med: 2,
          max: 9,
          'p(90)': 3,
          'p(95)': 4,
          'p(99)': 5,
          count: 500,
          thresholds: { 'p(95)<3': true },
        },
        'infer_errors{scenario:r100}': {
          passes: 5,
          fails: 495,
          value: 0.01,
          thresholds: { 'rate<0.02': false },
        },
        'dropped_iterations{scenario:r100}': { count: 7, rate: 1 },
      },
    };
    const [r100] = levelsFromSummary({ summary: exported, batch: 2, window_s: 5 });
    expect(r100).toMatchObject({
      mode: 'request-rate',
      level: 100,
      requests: 500,
      // 5 failed requests are not inferences.
      inferences: 990,
      errors: 5,
    });
    expect(r100!.dropped_iterations).toBe(7);
    expect(r100!.latency_us.p50).toBe(2000);
    expect(r100!.budgets).toMatchObject([
      { metric: 'grpc_req_duration{scenario:r100}', expr: 'p(95)<3', ok: false, measured: 4 },
      { metric: 'infer_errors{scenario:r100}', expr: 'rate<0.02', ok: true, measured: 0.01 },
    ]);
  });

  it('judges stability from per-window records', () => {
    const [c1, c2] = levelsFromSummary({
      summary,
      batch: 1,
      levels,
      windows: {
        c1: [
          { throughput: 100, avg_latency_us: 1000 },
          { throughput: 101, avg_latency_us: 1010 },
          { throughput: 99, avg_latency_us: 990 },
        ],
        c2: [
          { throughput: 100, avg_latency_us: 1000 },
          { throughput: 150, avg_latency_us: 1000 },
          { throughput: 100, avg_latency_us: 1000 },
        ],
      },
    });
    expect(c1!.stable).toBe(true);
    expect(c2!.stable).toBe(false);
  });
});

describe('stability from sub-window sub-metrics', () => {
  const sub = (avg: number, count: number) => ({ type: 'trend', contains: 'time', values: { avg, count } });
  const tagged = (counts: number[], avgs: number[]) => ({
    metrics: {
      'http_req_duration{scenario:c2}': { type: 'trend', contains: 'time', values: { avg: 2, count: 300 } },
      ...Object.fromEntries(
        counts.map((n, i) => [`http_req_duration{scenario:c2,window:${i}}`, sub(avgs[i]!, n)]),
      ),
    },
  });

  it('marks a level stable when its thirds agree, unstable when they drift', () => {
    const [steady] = levelsFromSummary({
      summary: tagged([100, 102, 98], [2, 2.05, 1.95]),
      batch: 1,
      window_s: 6,
    });
    expect(steady!.stable).toBe(true);
    expect(steady!.stability_spread_pct).toBeCloseTo(2.5, 5);
    const [drifting] = levelsFromSummary({
      summary: tagged([100, 100, 100], [2, 2, 3]),
      batch: 1,
      window_s: 6,
    });
    expect(drifting!.stable).toBe(false);
  });

  it('turns sub-window counts into throughput over a third of the window', () => {
    const level = { name: 'c2', mode: 'concurrency' as const, level: 2, window_s: 6 };
    expect(windowsFromSummary(tagged([100, 50, 10], [1, 1, 1]), 'http_req_duration', level, 2)).toEqual([
      { throughput: 100, avg_latency_us: 1000 },
      { throughput: 50, avg_latency_us: 1000 },
      { throughput: 10, avg_latency_us: 1000 },
    ]);
  });

  it('leaves stability unjudged without sub-windows', () => {
    const [plain] = levelsFromSummary({ summary: tagged([], []), batch: 1, window_s: 6 });
    expect(plain!.stable).toBeUndefined();
  });
});

describe('buildRunReport', () => {
  it('fails the verdict when any budget failed', () => {
    const results = levelsFromSummary({ summary, batch: 1, levels });
    const base = { model: 'dlrm', protocol: 'http', runtime: 'k6' as const, batch: 1, started_at: 'now' };
    expect(buildRunReport({ ...base, results }).verdict_ok).toBe(false);
    expect(buildRunReport({ ...base, results: results.slice(0, 1) }).verdict_ok).toBe(true);
  });
});

describe('a level where every request failed', () => {
  it('counts no throughput and fails its latency budgets', () => {
    const failedSummary = {
      metrics: {
        'http_req_duration{scenario:c1}': {
          values: { avg: 0, 'p(95)': 0, 'p(99)': 0, count: 900 },
          thresholds: { 'p(95)<20': { ok: true } },
        },
        'http_req_failed{scenario:c1}': {
          values: { rate: 1, passes: 900, fails: 0 },
          thresholds: { 'rate<0.01': { ok: false } },
        },
      },
    };
    const [c1] = levelsFromSummary({ summary: failedSummary, batch: 1, window_s: 5 });
    expect(c1!.throughput_infer_s).toBe(0);
    expect(c1!.budgets.find((b) => b.expr === 'p(95)<20')?.ok).toBe(false);
  });
});
