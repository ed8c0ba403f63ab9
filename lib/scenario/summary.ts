/**
 * handleSummary for model scenarios, the same under k6 and the Node runtime: perf_analyzer's
 * closing lines and each missed budget (metric, level, budget, measured) on stdout, and k6's
 * summary data as JSON where SUMMARY_JSON points (the bench command reads it to write reports).
 */
import type { RequestMetric } from '../load/names.ts';
import type { LoadPlan } from '../load/scenarios.ts';
import { missedBudgetLines } from '../summary/verdicts.ts';
import { type K6SummaryData, levelsFromSummary } from '../summary/from-summary.ts';
import { perfAnalyzerSummary } from '../summary/stdout.ts';

/** What the summary needs besides k6's data. */
export interface LevelSummaryOptions {
  plan: LoadPlan;
  batch: number;
  metric: RequestMetric;
  env: Record<string, string | undefined>;
}

/** The handleSummary result map: stdout text, plus the raw data file when SUMMARY_JSON is set. */
export function levelSummary(
  data: Record<string, unknown>,
  options: LevelSummaryOptions,
): Record<string, string> {
  const results = levelsFromSummary({
    summary: data as K6SummaryData,
    batch: options.batch,
    levels: options.plan.levels,
    metric: options.metric,
  });
  const lines = [perfAnalyzerSummary(results).trimEnd()];
  const missed = missedBudgetLines(results);
  lines.push(...missed);
  if (results.length > 0 && missed.length === 0) lines.push('all budgets met');
  const out: Record<string, string> = { stdout: `${lines.filter(Boolean).join('\n')}\n` };
  const path = options.env.SUMMARY_JSON;
  if (path) out[path] = JSON.stringify(data);
  return out;
}
