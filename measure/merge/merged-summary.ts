/**
 * Pooled aggregates → k6 summary data (the shape handleSummary receives), with every threshold of the run
 * plan judged on the pooled values, as k6 would judge them on one machine. levelsFromSummary then reads
 * it like any run's summary, so a merged run's table, CSV and verdicts come from the same code as a bench's.
 */
import { parseThresholdExpr, thresholdPasses } from '../../lib/load/threshold-expr.ts';
import type { K6SummaryData, K6SummaryMetric } from '../../lib/summary/from-summary.ts';
import { percentileOfSorted } from '../../lib/genai/stats.ts';
import type { Aggregate, Aggregates, ExactValues } from './samples.ts';

/** Trend statistics every merged trend reports (the run plan's summaryTrendStats). */
const TREND_PERCENTILES = [50, 90, 95, 99];

/** The p-th percentile of every pooled value, as k6's Trend takes it (linear between closest ranks). */
function exactPercentile(exact: ExactValues, p: number): number {
  if (exact.values.length === 0) return 0;
  if (!exact.sorted) {
    exact.values.sort((a, b) => a - b);
    exact.sorted = true;
  }
  return percentileOfSorted(exact.values, p);
}

/** k6's value of one aggregation ('p(99.9)', 'avg', 'count', 'rate', 'value') of a pooled aggregate. */
export function aggregationValue(agg: Aggregate, aggregation: string): number | undefined {
  switch (agg.type) {
    case 'trend': {
      const percentile = /^p\((\d+(?:\.\d+)?)\)$/.exec(aggregation);
      const at = (p: number) => (agg.exact ? exactPercentile(agg.exact, p) : agg.hist.percentile(p));
      if (percentile) return at(Number(percentile[1]));
      if (aggregation === 'med') return at(50);
      if (aggregation === 'avg') return agg.hist.avg();
      if (aggregation === 'min') return agg.hist.count > 0 ? agg.hist.min : 0;
      if (aggregation === 'max') return agg.hist.count > 0 ? agg.hist.max : 0;
      if (aggregation === 'count') return agg.hist.count;
      return undefined;
    }
    case 'rate':
      if (aggregation === 'rate') return agg.total > 0 ? agg.passes / agg.total : 0;
      if (aggregation === 'passes') return agg.passes;
      if (aggregation === 'fails') return agg.total - agg.passes;
      return undefined;
    case 'gauge':
      return aggregation === 'value' ? agg.value : undefined;
    default:
      return aggregation === 'count' ? agg.sum : undefined;
  }
}

function values(agg: Aggregate, extraPercentiles: readonly number[]): Record<string, number> {
  const names =
    agg.type === 'trend'
      ? [
          'avg',
          'min',
          'med',
          'max',
          'count',
          ...[...TREND_PERCENTILES, ...extraPercentiles].map((p) => `p(${p})`),
        ]
      : agg.type === 'rate'
        ? ['rate', 'passes', 'fails']
        : agg.type === 'gauge'
          ? ['value']
          : ['count'];
  const out: Record<string, number> = {};
  for (const name of names) out[name] = aggregationValue(agg, name)!;
  return out;
}

/** The expressions of one k6 threshold entry (strings or `{ threshold }` objects). */
function exprs(raw: unknown): string[] {
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((t) => (typeof t === 'string' ? t : String((t as { threshold: string }).threshold)));
}

/**
 * Summary data of the pooled samples, thresholds judged on the pooled values (a missing sub-metric fails);
 * `extraPercentiles` beside p50/p90/p95/p99 (a generative run's summaryTrendStats add p1 ... p75).
 */
export function mergedSummary(
  aggregates: Aggregates,
  thresholds: Record<string, unknown>,
  extraPercentiles: readonly number[] = [],
): K6SummaryData {
  const metrics: Record<string, K6SummaryMetric> = {};
  for (const [key, agg] of aggregates)
    metrics[key] = { type: agg.type, values: values(agg, extraPercentiles) };
  for (const [key, raw] of Object.entries(thresholds)) {
    const agg = aggregates.get(key);
    const judged: Record<string, { ok: boolean }> = {};
    for (const expr of exprs(raw)) {
      const parsed = parseThresholdExpr(expr, key);
      const measured = agg ? aggregationValue(agg, parsed.aggregation) : undefined;
      judged[expr] = { ok: measured !== undefined && thresholdPasses(parsed, measured) };
      if (agg && measured !== undefined) metrics[key]!.values![parsed.aggregation] = measured;
    }
    if (metrics[key]) metrics[key]!.thresholds = judged;
  }
  return { metrics };
}
