/**
 * k6's mapping of samples to Prometheus series (its experimental-prometheus-rw output): one aggregate per
 * time series (metric + tags) over the whole run, named `k6_<metric>` plus `_total` (counter), `_rate`
 * (rate), nothing (gauge) or `_<stat>` per trend stat; labels are the tags with non-empty names and values,
 * sorted. Each push sends the series that got a sample in a later millisecond than their last push.
 */
import { trendStat, validateTrendStat } from '../../metrics/values.ts';
import { TrendHistogram } from '../../metrics/histogram.ts';
import { CounterSink, GaugeSink, type Metric, newSink, RateSink, type Sink } from '../../metrics/registry.ts';
import type { Tags } from '../../vu-context.ts';

/** One Prometheus label. */
export interface Label {
  name: string;
  value: string;
}

/** One remote-write sample; `stale` makes it Prometheus's staleness marker (the value is then ignored). */
export interface PromSample {
  value: number;
  timestamp: number;
  stale?: boolean;
}

/** One remote-write series: sorted labels (with `__name__`) and its samples. */
export interface PromSeries {
  labels: Label[];
  samples: PromSample[];
}

/** k6's default K6_PROMETHEUS_RW_TREND_STATS. */
export const DEFAULT_RW_TREND_STATS: readonly string[] = ['p(99)'];

const PREFIX = 'k6_';

/** The series-name suffix of a trend stat: `p(99)` → `p99`, `p(99.9)` → `p999`, `avg` → `avg`. */
export function trendStatSuffix(stat: string): string {
  return stat.startsWith('p(') ? `p${stat.slice(2, -1).replaceAll('.', '')}` : stat;
}

/** Checks trend stats as k6 does (avg, min, med, max, count, sum, p(N)); throws k6's line for the first bad one. */
export function checkTrendStats(stats: readonly string[]): void {
  for (const stat of stats) {
    if (stat === 'sum') continue;
    try {
      validateTrendStat(stat);
    } catch {
      throw new Error(`invalid trend stat '${stat}', unknown format`);
    }
  }
}

/** The labels of a series: the tags with a non-empty name and value plus `__name__`, sorted by name. */
export function seriesLabels(name: string, tags: Tags): Label[] {
  const labels: Label[] = [{ name: '__name__', value: PREFIX + name }];
  for (const key in tags) {
    const value = tags[key];
    if (key !== '' && value !== undefined && value !== '') labels.push({ name: key, value });
  }
  // Byte order, as the remote-write spec asks (Go's string comparison).
  return labels.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** `labels` with `_suffix` appended to `__name__`. */
function withSuffix(labels: readonly Label[], suffix: string): Label[] {
  if (suffix === '') return labels as Label[];
  return labels.map((l) => (l.name === '__name__' ? { name: l.name, value: `${l.value}_${suffix}` } : l));
}

interface Entry {
  metric: Metric;
  labels: Label[];
  sink: Sink;
  /** The latest sample's time, whole ms. */
  latest_ms: number;
}

/** Aggregates samples per series and maps them to remote-write series. */
export class SeriesStore {
  readonly #entries = new Map<string, Entry>();
  /** Series to send at the next push. */
  #seen = new Set<Entry>();
  /**
   * Samples share tag objects (a VU's per scenario and group, a request's per outcome), so a tag object's
   * series are found by the object first, and by its tags' text only the first time.
   */
  readonly #byTags = new WeakMap<Tags, Map<Metric, Entry>>();

  readonly trendStats: readonly string[];

  /** @param trendStats the stats each trend series is sent as; repeats count once, as in k6. */
  constructor(trendStats: readonly string[] = DEFAULT_RW_TREND_STATS) {
    checkTrendStats(trendStats);
    this.trendStats = [...new Set(trendStats)];
  }

  /** Adds one sample to its series' aggregate. */
  add(metric: Metric, value: number, tags: Tags, time_ms: number): void {
    let byMetric = this.#byTags.get(tags);
    if (byMetric === undefined) {
      byMetric = new Map();
      this.#byTags.set(tags, byMetric);
    }
    const t = Math.floor(time_ms);
    let e = byMetric.get(metric);
    if (e === undefined) {
      e = this.#entry(metric, tags, t);
      byMetric.set(metric, e);
    }
    if (t > e.latest_ms) {
      // A sample in the same millisecond as the last push is aggregated but not sent again (a duplicate to Prometheus).
      e.latest_ms = t;
      this.#seen.add(e);
    }
    e.sink.add(value);
  }

  /** The series of `metric` with `tags`, made (and due at the next push) the first time. */
  #entry(metric: Metric, tags: Tags, t: number): Entry {
    const key = `${metric.name}\u0000${JSON.stringify(Object.entries(tags).sort((a, b) => (a[0] < b[0] ? -1 : 1)))}`;
    let e = this.#entries.get(key);
    if (e === undefined) {
      e = {
        metric,
        labels: seriesLabels(metric.name, tags),
        sink: newSink(metric.type, metric.contains),
        latest_ms: t,
      };
      this.#entries.set(key, e);
      this.#seen.add(e);
    }
    return e;
  }

  /** The series with news since the last call, as remote-write series. */
  take(): PromSeries[] {
    const out: PromSeries[] = [];
    for (const e of this.#seen) out.push(...this.#map(e));
    this.#seen = new Set();
    return out;
  }

  /** Every series ever sent, valued with the staleness marker one ms after `now_ms` (k6's stale markers). */
  staleMarkers(now_ms: number): PromSeries[] {
    const timestamp = Math.floor(now_ms) + 1;
    const out: PromSeries[] = [];
    for (const e of this.#entries.values()) {
      for (const s of this.#map(e))
        out.push({ labels: s.labels, samples: [{ value: Number.NaN, timestamp, stale: true }] });
    }
    return out;
  }

  #map(e: Entry): PromSeries[] {
    const timestamp = e.latest_ms;
    const one = (suffix: string, value: number): PromSeries => ({
      labels: withSuffix(e.labels, suffix),
      samples: [{ value, timestamp }],
    });
    const sink = e.sink;
    if (sink instanceof CounterSink) return [one('total', sink.sum)];
    if (sink instanceof GaugeSink) return [one('', sink.value)];
    if (sink instanceof RateSink) return [one('rate', sink.total ? sink.passes / sink.total : 0)];
    if (sink instanceof TrendHistogram) {
      // k6 turns every stat of a time trend from ms into seconds, its count and sum included.
      const unit = e.metric.contains === 'time' ? 1000 : 1;
      return this.trendStats.map((stat) =>
        one(trendStatSuffix(stat), (stat === 'sum' ? sink.sum : trendStat(sink, stat)) / unit),
      );
    }
    throw new Error(`metric ${e.metric.name}: unknown sink`);
  }
}
