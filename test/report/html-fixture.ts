/** A three-level run for report.html's tests: one unstable level, one missed budget, one generator-bound level. */
import type { BudgetVerdict, RunReport } from '../../lib/summary/types.ts';
import { level, report } from './fixture.ts';

const verdict = (name: string, ok: boolean, measured: number): BudgetVerdict => ({
  metric: `http_req_duration{scenario:${name}}`,
  expr: 'p(95)<2',
  ok,
  measured,
});

/** The run, its budget (p95 2 ms, p99 4 ms) and the number of levels. */
export function htmlRun(): RunReport {
  return report([
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

export const HTML_BUDGET = { p95_ms: 2, p99_ms: 4 };
