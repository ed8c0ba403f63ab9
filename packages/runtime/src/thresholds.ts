/**
 * Thresholds with k6's grammar: `<aggregation> <operator> <number>` where the aggregation is
 * avg, min, max, med, p(N) (trends), count or rate (counters), rate (rates), value (gauges),
 * and the operator one of < <= > >= == === !=. Object form: {threshold, abortOnFail, delayAbortEval}.
 * The expression grammar is lib/load/threshold-expr.ts's (budgets are checked with it before k6 starts);
 * this module attaches expressions to metrics and evaluates them during a run.
 */
import { parseDuration_ms } from '@k6-triton/lib/duration.ts';
import {
  parseThresholdExpr,
  type ThresholdExpr,
  thresholdPasses,
} from '@k6-triton/lib/load/threshold-expr.ts';
import type { Metric, MetricRegistry, MetricType, Sink, Submetric } from './metrics/registry.ts';
import { trendStat } from './metrics/values.ts';
import { CounterSink, GaugeSink, RateSink } from './metrics/registry.ts';
import { TrendHistogram } from './metrics/histogram.ts';

/** One parsed threshold expression attached to a metric or sub-metric. */
export interface Threshold extends ThresholdExpr {
  /** The expression as written (k6 uses it as the key in summaries). */
  source: string;
  abortOnFail: boolean;
  delayAbortEval_ms: number;
  /** Last verdict; true until evaluated. */
  ok: boolean;
}

/** The thresholds of one metric key (`http_req_duration` or `http_req_duration{scenario:a}`). */
export interface ThresholdSet {
  key: string;
  type: MetricType;
  sink: Sink;
  thresholds: Threshold[];
}

/** Parses one expression (lib's parser, k6's grammar); throws a one-line error naming it when k6 would reject it. */
export function parseThresholdExpression(expr: string, metricKey: string, type: MetricType): Threshold {
  const parsed = parseThresholdExpr(expr, `invalid threshold defined on ${metricKey}`, type);
  return { ...parsed, source: expr, abortOnFail: false, delayAbortEval_ms: 0, ok: true };
}

type RawThreshold = string | { threshold?: unknown; abortOnFail?: unknown; delayAbortEval?: unknown };

/** Builds every threshold set from `options.thresholds`, creating sub-metrics for tagged keys. */
export function buildThresholds(raw: unknown, registry: MetricRegistry): ThresholdSet[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new Error('invalid options.thresholds: expected an object {metric: [expressions]}');
  }
  const sets: ThresholdSet[] = [];
  for (const [key, list] of Object.entries(raw as Record<string, unknown>)) {
    let target: Metric | Submetric;
    try {
      target = key.includes('{') ? registry.submetric(key) : lookup(registry, key);
    } catch (err) {
      throw new Error(`invalid threshold defined on ${key}: ${(err as Error).message}`);
    }
    const type = 'parent' in target ? target.parent.type : target.type;
    const items: RawThreshold[] = Array.isArray(list) ? list : [list as RawThreshold];
    const thresholds = items.map((item) => parseItem(item, key, type));
    sets.push({ key: 'parent' in target ? target.name : key, type, sink: target.sink, thresholds });
  }
  return sets;
}

function lookup(registry: MetricRegistry, name: string): Metric {
  const m = registry.get(name);
  if (!m) throw new Error(`no metric name "${name}" found`);
  return m;
}

function parseItem(item: RawThreshold, key: string, type: MetricType): Threshold {
  if (typeof item === 'string') return parseThresholdExpression(item, key, type);
  if (item && typeof item === 'object' && typeof item.threshold === 'string') {
    const t = parseThresholdExpression(item.threshold, key, type);
    t.abortOnFail = item.abortOnFail === true;
    if (item.delayAbortEval !== undefined) {
      t.delayAbortEval_ms = parseDuration_ms(item.delayAbortEval, `thresholds.${key}.delayAbortEval`);
    }
    return t;
  }
  throw new Error(
    `invalid threshold defined on ${key}: expected a string or {threshold: string}, got ${JSON.stringify(item)}`,
  );
}

/** The aggregated value a threshold compares; rates per second use the elapsed test time. */
export function aggregate(sink: Sink, aggregation: string, elapsed_ms: number): number {
  if (sink instanceof TrendHistogram) return trendStat(sink, aggregation);
  if (sink instanceof CounterSink)
    return aggregation === 'count' ? sink.sum : elapsed_ms > 0 ? sink.sum / (elapsed_ms / 1000) : 0;
  if (sink instanceof GaugeSink) return sink.value;
  if (sink instanceof RateSink) return sink.total ? sink.passes / sink.total : 0;
  return 0;
}

/**
 * Evaluates every threshold, updating `ok`; returns whether all pass and whether an
 * abortOnFail threshold (past its delayAbortEval) failed.
 */
export function evaluateThresholds(
  sets: readonly ThresholdSet[],
  elapsed_ms: number,
): { ok: boolean; abort: boolean; failedKeys: string[] } {
  let ok = true;
  let abort = false;
  const failedKeys: string[] = [];
  for (const set of sets) {
    for (const t of set.thresholds) {
      t.ok = thresholdPasses(t, aggregate(set.sink, t.aggregation, elapsed_ms));
      if (!t.ok) {
        ok = false;
        failedKeys.push(`${set.key}: ${t.source}`);
        if (t.abortOnFail && elapsed_ms >= t.delayAbortEval_ms) abort = true;
      }
    }
  }
  return { ok, abort, failedKeys };
}
