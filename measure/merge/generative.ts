/**
 * `merge` of a generative run's runners: each runner's per-request TTFT, ITL, latency and token counts pooled
 * value by value (exact percentiles, as one process's k6 Trend takes them; never an average of the runners'),
 * the budgets' TTFT/ITL/latency expressions judged on the pool, the levels built by the same code as a bench's
 * (lib/genai/level-summary.ts), and the runners' request records pooled into one records.jsonl for `rescore`.
 */
import { join } from 'node:path';
import { budgetSlo, generativeBudgetExprs } from '../../lib/genai/budget.ts';
import { generativeLevels } from '../../lib/genai/level-summary.ts';
import { GENAI_METRIC_DEFS, RECORDED_GENAI_METRICS } from '../../lib/genai/metric-defs.ts';
import { PERCENTILES } from '../../lib/genai/stats.ts';
import type { PlannedLevel } from '../../lib/load/scenarios.ts';
import { subMetricKey } from '../../lib/load/names.ts';
import type { K6SummaryData } from '../../lib/summary/from-summary.ts';
import type { LevelResult } from '../../lib/summary/types.ts';
import { writeResult } from '../../report/not-written.ts';
import type { RunPlan } from '../../scenarios/kit/run-plan.ts';
import { RECORDS_FILE, recordLine } from '../core/genai-records.ts';
import type { ReadOptions } from './samples.ts';

/**
 * The per-request trends kept value by value: one value per request, few enough to keep. The chunk gaps (one
 * per token) stay in the histogram.
 */
export const EXACT_GENAI_TRENDS: ReadonlySet<string> = new Set(
  RECORDED_GENAI_METRICS.filter((key) => GENAI_METRIC_DEFS[key].type === 'trend' && key !== 'chunkGap').map(
    (key) => GENAI_METRIC_DEFS[key].name,
  ),
);

/** The percentiles a generative level reports (genai-perf's set, as the scenario's summaryTrendStats). */
export const GENAI_SUMMARY_PERCENTILES: readonly number[] = PERCENTILES;

/** The pooled records, one records.jsonl line each, in file order. */
export interface PooledRecords {
  lines: string[];
}

/** What `readSamples` reads beside the aggregates for a generative run: exact trends, and its records. */
export function generativeReadOptions(pooled: PooledRecords): ReadOptions {
  return {
    exactTrends: EXACT_GENAI_TRENDS,
    onRecord: (point) => {
      const line = recordLine(point);
      if (line !== undefined) pooled.lines.push(line);
    },
  };
}

/** The thresholds the runners' budgets had, per level (the scenario's budget expressions; probes are not judged). */
export function generativeThresholds(
  plan: RunPlan,
  levels: readonly PlannedLevel[],
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { name } of levels)
    for (const [metric, exprs] of Object.entries(
      generativeBudgetExprs(plan.budget, plan.overrides, plan.tokens, name),
    ))
      out[subMetricKey(metric, name)] = exprs;
  return out;
}

/** The merged levels, read from the pooled summary as a bench's, goodput on the budget's SLOs. */
export function generativeMergedLevels(
  summary: K6SummaryData,
  plan: RunPlan,
  levels: readonly PlannedLevel[],
): LevelResult[] {
  return generativeLevels(summary, levels, { slo: budgetSlo(plan.tokens, plan.limits.p95_ms) });
}

/** Writes the pooled records as `dir`/records.jsonl (none when the runners wrote none); returns how many. */
export async function writePooledRecords(dir: string, pooled: PooledRecords): Promise<number> {
  if (pooled.lines.length > 0) await writeResult(join(dir, RECORDS_FILE), pooled.lines.join(''));
  return pooled.lines.length;
}
