/**
 * Budget verdicts in words: the measured value in its unit and the one-line message naming the metric,
 * the level, the budget and the measured value (console, report.md and JUnit use the same words).
 */
import { GENAI_METRIC_DEFS, type GenaiMetricDef } from '../genai/metric-defs.ts';
import { formatCount, formatG } from './format.ts';
import { stateOf } from './judge.ts';
import type { BudgetState, BudgetVerdict, LevelResult, RunVerdict } from './types.ts';

/** The k6 names of the generative metrics that are times (TTFT, ITL, latency...): shown in ms. */
const GENAI_TIMES = new Set(
  Object.values(GENAI_METRIC_DEFS as Record<string, GenaiMetricDef>).flatMap((def) =>
    def.time && def.name ? [def.name] : [],
  ),
);

/** A measured value in the metric's own unit: ms for durations, percent for rates, plain for counts. */
export function formatMeasured(verdict: BudgetVerdict): string {
  if (verdict.measured === null) return 'no data';
  if (verdict.expr.trim().startsWith('rate')) return `${(verdict.measured * 100).toFixed(2)}%`;
  const time =
    /duration|sending|receiving|waiting/.test(verdict.metric) ||
    GENAI_TIMES.has(splitMetricKey(verdict.metric).metric);
  if (time) return `${verdict.measured.toFixed(2)} ms`;
  return formatG(verdict.measured);
}

/** The base metric name and the level of a sub-metric key (`http_req_duration{scenario:c8}`). */
export function splitMetricKey(key: string): { metric: string; level: string } {
  const match = /^([^{]+)\{scenario:([^}]+)\}$/.exec(key);
  return match ? { metric: match[1]!, level: match[2]! } : { metric: key, level: '' };
}

/** A verdict's state in words, as the console, report.md and JUnit print it. */
export const STATE_WORDS: Record<BudgetState, string> = {
  met: 'met',
  missed: 'missed',
  not_measured: 'not measured',
  inconclusive: 'inconclusive',
};

/** One line for a verdict: metric, level, budget, its state, measured value, samples and why. */
export function verdictMessage(verdict: BudgetVerdict): string {
  const { metric, level } = splitMetricKey(verdict.metric);
  const samples = verdict.samples === undefined ? '' : ` (${formatCount(verdict.samples)} samples)`;
  const why = verdict.reason ? `: ${verdict.reason}` : '';
  return `${metric} at level ${level}: budget ${verdict.expr} ${STATE_WORDS[stateOf(verdict)]}, measured ${formatMeasured(verdict)}${samples}${why}`;
}

/**
 * One line per budget that was not met (missed, not measured, inconclusive), for the end of a run's
 * console output; empty when all were met.
 */
export function missedBudgetLines(results: readonly LevelResult[]): string[] {
  return results
    .flatMap((result) => result.budgets)
    .filter((verdict) => stateOf(verdict) !== 'met')
    .map((verdict) => `budget ${STATE_WORDS[stateOf(verdict)]}: ${verdictMessage(verdict)}`);
}

/** The run's verdict as one closing line, e.g. "verdict: not measured (not measured: c2)". */
export function runVerdictLine(verdict: RunVerdict, reasons: readonly string[], partialRun = false): string {
  if (verdict === 'met') return partialRun ? 'budgets met on the measured levels' : 'all budgets met';
  return `verdict: ${STATE_WORDS[verdict]} (${reasons.join('; ')})`;
}
