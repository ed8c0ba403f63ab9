/**
 * Turns a sink into the `values` object k6 hands to handleSummary: counter {count, rate},
 * gauge {value, min, max}, rate {rate, passes, fails}, trend {<each summaryTrendStat>}.
 */
import { TrendHistogram } from './histogram.ts';
import { CounterSink, GaugeSink, type MetricType, RateSink, type Sink } from './registry.ts';

/** k6's default summaryTrendStats. */
export const DEFAULT_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'];

const PCT_RE = /^p\((\d+(?:\.\d+)?)\)$/;

/** Throws when a summaryTrendStats entry is not one k6 accepts (avg, min, med, max, count, p(N)). */
export function validateTrendStat(stat: string): void {
  if (['avg', 'min', 'med', 'max', 'count'].includes(stat)) return;
  const m = PCT_RE.exec(stat);
  if (m && Number(m[1]) >= 0 && Number(m[1]) <= 100) return;
  throw new Error(
    `invalid summaryTrendStats entry "${stat}": use avg, min, med, max, count or p(N) with 0<=N<=100`,
  );
}

/** One trend statistic ('avg', 'min', 'med', 'max', 'count', 'p(N)'). */
export function trendStat(h: TrendHistogram, stat: string): number {
  switch (stat) {
    case 'avg':
      return h.avg();
    case 'min':
      return h.count ? h.min : 0;
    case 'max':
      return h.count ? h.max : 0;
    case 'med':
      return h.percentile(50);
    case 'count':
      return h.count;
    default: {
      const m = PCT_RE.exec(stat);
      if (!m) throw new Error(`unknown trend statistic "${stat}"`);
      return h.percentile(Number(m[1]));
    }
  }
}

/** The `values` object of a metric as k6 reports it; rates per second use the test duration. */
export function sinkValues(
  type: MetricType,
  sink: Sink,
  trendStats: readonly string[],
  durationMs: number,
): Record<string, number> {
  if (type === 'counter' && sink instanceof CounterSink) {
    return { count: sink.sum, rate: durationMs > 0 ? sink.sum / (durationMs / 1000) : 0 };
  }
  if (type === 'gauge' && sink instanceof GaugeSink) {
    const seen = Number.isFinite(sink.min);
    return { value: sink.value, min: seen ? sink.min : 0, max: seen ? sink.max : 0 };
  }
  if (type === 'rate' && sink instanceof RateSink) {
    return {
      rate: sink.total ? sink.passes / sink.total : 0,
      passes: sink.passes,
      fails: sink.total - sink.passes,
    };
  }
  if (sink instanceof TrendHistogram) {
    const out: Record<string, number> = {};
    for (const s of trendStats) out[s] = trendStat(sink, s);
    return out;
  }
  throw new Error(`sink does not match metric type ${type}`);
}
