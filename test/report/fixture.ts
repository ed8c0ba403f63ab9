/** A hand-written k6 handleSummary `data` object for a 2-level HTTP run (c4 never ran), and its report. */
import { buildRunReport, type K6SummaryData } from '../../lib/summary/from-summary.ts';
import type { LevelResult, RunReport } from '../../lib/summary/types.ts';

const trend = (avg: number, p95: number, p99: number, count: number) => ({
  type: 'trend',
  contains: 'time',
  values: {
    avg,
    min: avg / 2,
    med: avg,
    max: p99 * 2,
    'p(50)': avg * 0.98,
    'p(90)': p95 * 0.95,
    'p(95)': p95,
    'p(99)': p99,
    count,
  },
});

const counter = (count: number) => ({
  type: 'counter',
  contains: 'default',
  values: { count, rate: count / 14 },
});

export const summary: K6SummaryData = {
  root_group: { name: '', checks: [] },
  state: { testRunDurationMs: 14000 },
  metrics: {
    http_req_duration: trend(3, 6, 9, 2500),
    'http_req_duration{scenario:c1}': {
      ...trend(1.4, 2.0, 3.0, 1000),
      thresholds: { 'p(95)<20': { ok: true }, 'p(99)<30': { ok: true } },
    },
    'http_req_duration{scenario:c2}': {
      ...trend(25, 24.5, 40, 500),
      thresholds: { 'p(95)<20': { ok: false }, 'p(99)<30': { ok: false } },
    },
    'http_req_duration{scenario:c4}': {
      type: 'trend',
      contains: 'time',
      values: { count: 0 },
      thresholds: {},
    },
    'http_req_sending{scenario:c1}': {
      ...trend(0.05, 0.1, 0.1, 1000),
      thresholds: { 'max>=0': { ok: true } },
    },
    'http_req_receiving{scenario:c1}': {
      ...trend(0.1, 0.2, 0.2, 1000),
      thresholds: { 'max>=0': { ok: true } },
    },
    'http_req_failed{scenario:c1}': {
      type: 'rate',
      contains: 'default',
      values: { rate: 0, passes: 0, fails: 1000 },
      thresholds: { 'rate<0.01': { ok: true } },
    },
    'http_req_failed{scenario:c2}': {
      type: 'rate',
      contains: 'default',
      values: { rate: 0.004, passes: 2, fails: 498 },
      thresholds: { 'rate<0.01': { ok: true } },
    },
    'iterations{scenario:c1}': counter(1000),
    'iterations{scenario:c2}': counter(500),
    'dropped_iterations{scenario:c2}': counter(0),
    'triton_request_count{scenario:c1_stats}': counter(1000),
    'triton_queue_count{scenario:c1_stats}': counter(1000),
    'triton_queue_us{scenario:c1_stats}': counter(100_000),
    'triton_compute_count{scenario:c1_stats}': counter(1000),
    'triton_compute_input_us{scenario:c1_stats}': counter(20_000),
    'triton_compute_infer_us{scenario:c1_stats}': counter(900_000),
    'triton_compute_output_us{scenario:c1_stats}': counter(10_000),
  },
};

/** A LevelResult with round numbers for the writers' tests. */
export function level(
  overrides: Partial<LevelResult> & { level: number; throughput_infer_s: number },
): LevelResult {
  return {
    mode: 'concurrency',
    name: `c${overrides.level}`,
    window_s: 5,
    requests: 100,
    inferences: 100,
    latency_us: { avg: 1402.7, p50: 1390.2, p90: 1800.9, p95: 2000.5, p99: 3000.1, min: 900, max: 5000 },
    client_send_us: 30.6,
    client_recv_us: 12.2,
    server: {
      request_count: 100,
      queue_us: 64.9,
      compute_input_us: 206,
      compute_infer_us: 900.5,
      compute_output_us: 19,
    },
    network_server_us: 169.5,
    errors: 0,
    dropped_iterations: 0,
    budgets: [],
    ...overrides,
  };
}

/** A run report of the results, judged as the bench judges it (buildRunReport). */
export function report(results: LevelResult[]): RunReport {
  return buildRunReport({
    model: 'mnist',
    protocol: 'http',
    runtime: 'node',
    batch: 1,
    started_at: '2026-11-22T07:00:00Z',
    results,
  });
}
