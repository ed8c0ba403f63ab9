/**
 * What a budget verdict may claim. k6 compares a number with a limit; whether that number can carry the
 * verdict is decided here: a level with no successful request measured nothing ("not measured"), a
 * percentile from too few samples beyond it, or from a level that never became stable, is "inconclusive",
 * and a run's verdict is "met" only when something was judged and nothing was missed, unmeasured or
 * inconclusive. Pure; runs inside k6 (handleSummary) and on Node.
 */
import { PERCENTILE_GRID } from '../load/names.ts';
import { formatCount } from './format.ts';
import { type ThresholdExpr, thresholdPasses } from '../load/threshold-expr.ts';
import type {
  BudgetState,
  BudgetVerdict,
  LevelResult,
  PercentileInterval,
  RunReport,
  RunVerdict,
} from './types.ts';

/**
 * Samples a percentile budget needs beyond its percentile: p(99) is judged on at least 1,000 samples (10
 * above it), p(95) on 200, p(90) on 100. Fewer, and one or two slow requests move the percentile past any
 * budget; the verdict is then inconclusive, not met.
 */
export const SAMPLES_BEYOND_PERCENTILE = 10;

/** Confidence of the percentile intervals report.md prints. */
export const INTERVAL_CONFIDENCE = 0.95;
const Z_95 = 1.959964;

/** The least sample count that judges percentile `q` (0..100): SAMPLES_BEYOND_PERCENTILE beyond it. */
export function samplesNeeded(q: number): number {
  if (q >= 100) return Number.POSITIVE_INFINITY;
  return Math.ceil((SAMPLES_BEYOND_PERCENTILE * 100) / (100 - q) - 1e-9);
}

/**
 * A distribution-free interval of percentile `q` from `n` samples (order statistics, normal approximation
 * of the binomial rank): ranks n·q ∓ 1.96·√(n·q·(1−q)). k6 keeps no raw samples, so each bound is read from
 * the nearest percentile of PERCENTILE_GRID outside its rank (min and max at the ends): the interval is at
 * least as wide as the exact one. `high` is null when the upper rank lies beyond the last sample.
 */
export function percentileInterval(
  q: number,
  n: number,
  values: Readonly<Record<string, number>>,
): PercentileInterval | undefined {
  if (!(n > 0) || q <= 0 || q >= 100) return undefined;
  const p = q / 100;
  const spread = Z_95 * Math.sqrt(n * p * (1 - p));
  const lowRank = Math.floor(n * p - spread);
  const highRank = Math.ceil(n * p + spread) + 1;
  const at = (percentile: number) => values[`p(${percentile})`];
  let low: number | undefined;
  if (lowRank < 1) low = values['min'];
  else {
    const below = PERCENTILE_GRID.filter((g) => g <= (100 * lowRank) / n && at(g) !== undefined);
    low = below.length > 0 ? at(below[below.length - 1]!) : values['min'];
  }
  let high: number | null | undefined;
  if (highRank > n) high = null;
  else {
    const above = PERCENTILE_GRID.find((g) => g >= (100 * highRank) / n && at(g) !== undefined);
    high = above !== undefined ? at(above) : values['max'];
  }
  if (low === undefined || high === undefined) return undefined;
  return { confidence: INTERVAL_CONFIDENCE, low, high };
}

/** What a verdict is judged with besides k6's own: the level's samples, stability and successes. */
export interface JudgeContext {
  /** The metric's values at the level, as k6 summarised them (count, percentiles). */
  values: Readonly<Record<string, number>>;
  /** The level's successful requests. */
  succeeded: number;
  /** The level's stability verdict; undefined when not judged. */
  stable?: boolean;
  stability_spread_pct?: number | null;
  stability_pct: number;
  /** Whether the metric is a latency trend (its verdicts need successes, samples and stability). */
  trend: boolean;
}

/** Whether the interval lies wholly on the failing side of the budget: a miss even from few samples. */
function surelyMissed(expr: ThresholdExpr, interval: PercentileInterval | undefined): boolean {
  if (!interval) return false;
  if (expr.op === '<' || expr.op === '<=') return !thresholdPasses(expr, interval.low);
  if (expr.op === '>' || expr.op === '>=')
    return interval.high !== null && !thresholdPasses(expr, interval.high);
  return false;
}

/**
 * One verdict's state from k6's `ok` and the level's samples: not measured without a successful request,
 * inconclusive on too few samples beyond a percentile or on an unstable level, else k6's met or missed.
 */
export function judgeVerdict(
  base: { metric: string; expr: string; ok: boolean; measured: number | null },
  expr: ThresholdExpr,
  ctx: JudgeContext,
): BudgetVerdict {
  const samples = ctx.trend
    ? (ctx.values['count'] ?? 0)
    : (ctx.values['passes'] ?? 0) + (ctx.values['fails'] ?? 0);
  const q = expr.percentile ?? (expr.aggregation === 'med' ? 50 : undefined);
  const interval = q === undefined ? undefined : percentileInterval(q, samples, ctx.values);
  const verdict = (state: BudgetState, reason?: string): BudgetVerdict => ({
    ...base,
    ok: state === 'met',
    state,
    samples,
    ...(interval ? { interval } : {}),
    ...(reason ? { reason } : {}),
  });
  if (samples === 0 || (ctx.trend && ctx.succeeded <= 0))
    return { ...verdict('not_measured', 'no request succeeded at this level'), measured: null };
  if (!ctx.trend) return verdict(base.ok ? 'met' : 'missed');
  // Every sample beyond the budget: a miss whatever the windows or the count say.
  const least = ctx.values['min'];
  if (!base.ok && least !== undefined && surelyMissed(expr, { confidence: 1, low: least, high: null }))
    return verdict('missed');
  if (ctx.stable === false && expr.aggregation !== 'max' && expr.aggregation !== 'min') {
    const spread =
      ctx.stability_spread_pct === null || ctx.stability_spread_pct === undefined
        ? 'too few windows'
        : `±${ctx.stability_spread_pct.toFixed(0)}%`;
    return verdict(
      'inconclusive',
      `level unstable (${spread} over its windows, limit ±${ctx.stability_pct}%)`,
    );
  }
  if (q !== undefined && samples < samplesNeeded(q)) {
    if (!base.ok && surelyMissed(expr, interval)) return verdict('missed');
    return verdict(
      'inconclusive',
      `${expr.aggregation} needs ${formatCount(samplesNeeded(q))} samples (${SAMPLES_BEYOND_PERCENTILE} beyond it); ${formatCount(samples)} measured`,
    );
  }
  return verdict(base.ok ? 'met' : 'missed');
}

/** A verdict's state; records written before states existed read as their `ok`. */
export function stateOf(verdict: Pick<BudgetVerdict, 'ok' | 'state'>): BudgetState {
  return verdict.state ?? (verdict.ok ? 'met' : 'missed');
}

/**
 * The verdict of a run's level results against its planned level names: a planned level with no result is
 * not measured. The scenarios' handleSummary and buildRunReport judge a run with it.
 */
export function judgeLevels(
  results: readonly Pick<LevelResult, 'name' | 'budgets'>[],
  planned: readonly string[],
): { verdict: RunVerdict; reasons: string[]; unmeasured: string[] } {
  const measured = new Set(results.map((r) => r.name));
  const unmeasured = planned.filter((name) => !measured.has(name));
  return {
    ...runVerdict(
      results.flatMap((r) => r.budgets),
      unmeasured,
    ),
    unmeasured,
  };
}

/** A run report's verdict; reports written before verdicts existed read as their `verdict_ok`. */
export function verdictOf(report: Pick<RunReport, 'verdict' | 'verdict_ok'>): RunVerdict {
  return report.verdict ?? (report.verdict_ok ? 'met' : 'missed');
}

/** The run's verdict and why: missed before not measured before inconclusive before met. */
export function runVerdict(
  budgets: readonly Pick<BudgetVerdict, 'ok' | 'state'>[],
  unmeasured: readonly string[],
): { verdict: RunVerdict; reasons: string[] } {
  const states = budgets.map(stateOf);
  const count = (state: BudgetState) => states.filter((s) => s === state).length;
  const reasons: string[] = [];
  if (count('missed') > 0) reasons.push(`${count('missed')} budget(s) missed`);
  if (unmeasured.length > 0) reasons.push(`not measured: ${unmeasured.join(', ')}`);
  if (count('not_measured') > 0) reasons.push(`${count('not_measured')} budget(s) not measured`);
  const judged = states.filter((s) => s === 'met' || s === 'missed' || s === 'inconclusive').length;
  if (judged === 0 && unmeasured.length === 0) reasons.push('no budget judged a measured level');
  if (count('inconclusive') > 0) reasons.push(`${count('inconclusive')} budget(s) inconclusive`);
  if (count('missed') > 0) return { verdict: 'missed', reasons };
  if (unmeasured.length > 0 || count('not_measured') > 0 || judged === 0)
    return { verdict: 'not_measured', reasons };
  if (count('inconclusive') > 0) return { verdict: 'inconclusive', reasons };
  return { verdict: 'met', reasons: [] };
}
