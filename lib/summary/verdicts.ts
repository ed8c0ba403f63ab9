/**
 * Budget verdicts in words: the measured value in its unit and the one-line message naming the metric,
 * the level, the budget and the measured value (console, report.md and JUnit use the same words).
 */
import { formatG } from './format.ts';
import type { BudgetVerdict, LevelResult } from './types.ts';

/** A measured value in the metric's own unit: ms for durations, percent for rates, plain for counts. */
export function formatMeasured(verdict: BudgetVerdict): string {
  if (verdict.measured === null) return 'no data';
  if (verdict.expr.trim().startsWith('rate')) return `${(verdict.measured * 100).toFixed(2)}%`;
  if (/duration|sending|receiving|waiting/.test(verdict.metric)) return `${verdict.measured.toFixed(2)} ms`;
  return formatG(verdict.measured);
}

/** The base metric name and the level of a sub-metric key (`http_req_duration{scenario:c8}`). */
export function splitMetricKey(key: string): { metric: string; level: string } {
  const match = /^([^{]+)\{scenario:([^}]+)\}$/.exec(key);
  return match ? { metric: match[1]!, level: match[2]! } : { metric: key, level: '' };
}

/** One line for a verdict: metric, level, budget, met or missed, measured value. */
export function verdictMessage(verdict: BudgetVerdict): string {
  const { metric, level } = splitMetricKey(verdict.metric);
  const state = verdict.ok ? 'met' : 'missed';
  return `${metric} at level ${level}: budget ${verdict.expr} ${state}, measured ${formatMeasured(verdict)}`;
}

/** One line per missed budget, for the end of a run's console output (empty when all were met). */
export function missedBudgetLines(results: readonly LevelResult[]): string[] {
  return results
    .flatMap((result) => result.budgets)
    .filter((verdict) => !verdict.ok)
    .map((verdict) => `budget missed: ${verdictMessage(verdict)}`);
}
