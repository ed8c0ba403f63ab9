/**
 * handleSummary for model scenarios, the same under k6 and the Node runtime: perf_analyzer's
 * closing lines and each missed budget (metric, level, budget, measured) on stdout, and the data the
 * bench command writes its reports from.
 */
import { missedBudgetLines, runVerdictLine } from '../../lib/summary/verdicts.ts';
import { judgeLevels } from '../../lib/summary/judge.ts';
import { type K6SummaryData, levelsFromSummary, uncountedTrend } from '../../lib/summary/from-summary.ts';
import { failureLines } from '../../lib/summary/failure.ts';
import { cutAfter_s, windowStart_ms } from '../../lib/summary/partial.ts';
import { generatorWarnings } from '../../lib/summary/generator.ts';
import { openLoopLines } from '../../lib/summary/open-loop.ts';
import { perfAnalyzerSummary } from '../../lib/summary/stdout.ts';
import { SUMMARY_TREND_STATS } from '../../lib/load/names.ts';
import type { LevelResult } from '../../lib/summary/types.ts';
import type { RunPlan } from './run-plan.ts';

/** A run plan's level results from k6's summary data, and the lines handleSummary prints about them. */
export function levelLines(
  data: Record<string, unknown>,
  run: RunPlan,
): { results: LevelResult[]; lines: string[] } {
  const results = levelsFromSummary({
    summary: data as K6SummaryData,
    batch: run.settings.batch,
    levels: run.plan.levels,
    metric: run.metric,
    errorMetric: run.errorMetric,
    stability_pct: run.load.stability_pct,
  });
  const lines = [perfAnalyzerSummary(results).trimEnd()];
  lines.push(...failureLines(results));
  lines.push(...openLoopLines(results));
  lines.push(...generatorWarnings(results));
  const missed = missedBudgetLines(results);
  lines.push(...missed);
  // Levels the run never finished (interrupted, aborted) are named: "all budgets met" must not hide them.
  const measured = new Set(results.map((r) => r.name));
  const unmeasured = run.plan.levels.filter((l) => !measured.has(l.name)).map((l) => l.name);
  // A level is counted from its trend's `count`; summary trend stats without it (a user's
  // --summary-trend-stats) leave every level uncounted, which is not an early end.
  const uncounted = unmeasured.filter((name) => uncountedTrend(data as K6SummaryData, run.metric, name));
  if (uncounted.length > 0) {
    lines.push(
      `not measured: ${uncounted.join(', ')} (the summary's ${run.metric} has no count; keep count in --summary-trend-stats, e.g. ${SUMMARY_TREND_STATS.join(',')})`,
    );
  }
  // A level whose window ran to its end without a completed request (a server that never answers) differs
  // from one the run ended before: each is named with its own cause.
  const rest = unmeasured.filter((name) => !uncounted.includes(name));
  const now = Date.now();
  const silent = rest.filter((name) => {
    const start_ms = windowStart_ms(data['metrics'] as K6SummaryData['metrics'], name);
    const level = run.plan.levels.find((l) => l.name === name);
    return (
      start_ms !== undefined && level !== undefined && cutAfter_s(start_ms, level.window_s, now) === undefined
    );
  });
  for (const name of silent) lines.push(`${name}: not measured: no request completed in its window`);
  const ended = rest.filter((name) => !silent.includes(name));
  if (ended.length > 0)
    lines.push(
      `not measured: ${ended.join(', ')} (no request completed in their windows, or the run ended first)`,
    );
  // The same verdict the bench gives: met only when something was judged and nothing missed or unknown.
  const { verdict, reasons } = judgeLevels(
    results,
    run.plan.levels.map((l) => l.name),
  );
  lines.push(runVerdictLine(verdict, reasons));
  return { results, lines: lines.filter(Boolean) };
}

/**
 * The handleSummary result map: stdout text; k6's summary data as JSON where SUMMARY_JSON points; and
 * the level results, computed here once, where LEVELS_JSON points (the bench reads them to write reports).
 */
export function levelSummary(
  data: Record<string, unknown>,
  run: RunPlan,
  env: Record<string, string | undefined>,
): Record<string, string> {
  const { results, lines } = levelLines(data, run);
  const out: Record<string, string> = { stdout: `${lines.join('\n')}\n` };
  if (env.SUMMARY_JSON) out[env.SUMMARY_JSON] = JSON.stringify(data);
  if (env.LEVELS_JSON) out[env.LEVELS_JSON] = JSON.stringify(results);
  return out;
}
