/** A three-level run for report.html's tests: one unstable level, one missed budget, one generator-bound level. */
import type {
  BudgetVerdict,
  GenerativeLevel,
  LevelResult,
  RunReport,
  ServerTimeline,
  TimeStats_ms,
} from '../../lib/summary/types.ts';
import { level, report } from './fixture.ts';

const verdict = (name: string, ok: boolean, measured: number): BudgetVerdict => ({
  metric: `http_req_duration{scenario:${name}}`,
  expr: 'p(95)<2',
  ok,
  measured,
});

/**
 * Scrapes every 0.5 s over 12 s: levels c1, c2 and c4 measured 3 s each from 1, 5 and 9 s, queue time
 * growing with the level, CPU only (no GPU served): the server-metrics chart's input.
 */
export function htmlTimeline(): ServerTimeline {
  const windows = [
    { level: 'c1', from_s: 1, to_s: 4 },
    { level: 'c2', from_s: 5, to_s: 8 },
    { level: 'c4', from_s: 9, to_s: 12 },
  ];
  const points = Array.from({ length: 24 }, (_, i) => {
    const t_s = (i + 1) / 2;
    const level = windows.find((w) => t_s - 0.25 >= w.from_s && t_s - 0.25 <= w.to_s)?.level;
    const load = level ? Number(level.slice(1)) : 0;
    return {
      t_s,
      ...(level ? { level } : {}),
      requests_s: 600 * load,
      ...(load > 0 ? { avg_queue_us: 150 * load, avg_compute_infer_us: 900 } : {}),
      cpu_utilization_pct: 10 + 20 * load,
    };
  });
  return { points, windows };
}

/** The run, its budget (p95 2 ms, p99 4 ms) and the number of levels. */
export function htmlRun(): RunReport {
  return withTimeline([
    level({ level: 1, throughput_infer_s: 700.5, budgets: [verdict('c1', true, 1.6)] }),
    level({
      level: 2,
      throughput_infer_s: 1250.25,
      stable: false,
      stability_spread_pct: 14.2,
      latency_us: { avg: 1600, p50: 1500, p90: 1900, p95: 2100, p99: 3500, min: 900, max: 6000 },
      budgets: [verdict('c2', false, 2.1)],
      generator: { iteration_avg_us: 2000, overhead_us: 400, overhead_pct: 20, cpu_pct: 97, bound: true },
    }),
    level({ level: 4, throughput_infer_s: 1400, budgets: [verdict('c4', true, 1.9)], server: undefined }),
  ]);
}

function withTimeline(levels: Parameters<typeof report>[0]): RunReport {
  return { ...report(levels), server_timeline: htmlTimeline() };
}

export const HTML_BUDGET = { p95_ms: 2, p99_ms: 4 };

/** Latency statistics from four percentiles in ms (avg at the p50). */
function percentiles_ms(p50: number, p90: number, p95: number, p99: number) {
  const us = (ms: number) => ms * 1000;
  return {
    avg: us(p50),
    p50: us(p50),
    p90: us(p90),
    p95: us(p95),
    p99: us(p99),
    min: us(p50 / 2),
    max: us(p99 * 2),
  };
}

/** A run far under its budget (HTML_FAR_BUDGET): MNIST's ~1 ms against 20 and 50 ms, as on this machine. */
export function htmlFarUnderBudgetRun(): RunReport {
  return report([
    level({ level: 1, throughput_infer_s: 800, latency_us: percentiles_ms(0.8, 1.2, 1.5, 2.5) }),
    level({ level: 2, throughput_infer_s: 1300, latency_us: percentiles_ms(0.9, 1.4, 1.8, 3.0) }),
    level({ level: 4, throughput_infer_s: 1700, latency_us: percentiles_ms(1.0, 1.6, 2.1, 3.6) }),
  ]);
}

export const HTML_FAR_BUDGET = { p95_ms: 20, p99_ms: 50 };

/** Time stats from a p50: p95 twice it, p99 three times. */
export function timeStatsAt(p50: number): TimeStats_ms {
  return { avg: p50, p50, p95: p50 * 2, p99: p50 * 3, min: p50, max: p50 * 3 };
}

/** htmlRun's levels as a generative run's: level i's token figures, with `more` of its own on top. */
export function generativeHtmlRun(more: (i: number) => Partial<GenerativeLevel> = () => ({})): RunReport {
  const run = htmlRun();
  return {
    ...run,
    results: run.results.map((r: LevelResult, i: number) => ({
      ...r,
      genai: {
        requests_per_s: 5 * (i + 1),
        output_tokens: 500 * (i + 1),
        output_tokens_per_s: 500 * (i + 1),
        ttft_ms: timeStatsAt(14 * (i + 1)),
        itl_ms: timeStatsAt(1.9),
        latency_ms: timeStatsAt(200),
        chunk_gap_ms: timeStatsAt(1.9),
        ...more(i),
      },
    })),
  };
}
