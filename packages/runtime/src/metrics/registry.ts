/**
 * Metrics as k6 defines them: four types (counter, gauge, rate, trend), a value type
 * (default, time, data), sinks that aggregate, and sub-metrics selected by tags.
 * The registry knows k6's built-in metrics so samples that protocol modules emit by
 * name land in a metric of the right type.
 */
import type { Tags } from '../vu-context.ts';
import { TrendHistogram } from './histogram.ts';

export type MetricType = 'counter' | 'gauge' | 'rate' | 'trend';
export type ValueType = 'default' | 'time' | 'data';

/** Aggregated values of a counter. */
export class CounterSink {
  sum = 0;
  add(v: number): void {
    this.sum += v;
  }
}

/** Aggregated values of a gauge: the last value and the extremes. */
export class GaugeSink {
  value = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;
  /** When the last value came (epoch ms): merging workers' gauges keeps the latest (workers/merge.ts). */
  time_ms = 0;
  add(v: number): void {
    this.value = v;
    this.time_ms = Date.now();
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }
}

/** Aggregated values of a rate: non-zero samples over all samples. */
export class RateSink {
  passes = 0;
  total = 0;
  add(v: number): void {
    this.total++;
    if (v !== 0) this.passes++;
  }
}

export type Sink = CounterSink | GaugeSink | RateSink | TrendHistogram;

/** Creates the sink that aggregates a metric of the given type. */
export function newSink(type: MetricType, contains: ValueType = 'default'): Sink {
  switch (type) {
    case 'counter':
      return new CounterSink();
    case 'gauge':
      return new GaugeSink();
    case 'rate':
      return new RateSink();
    case 'trend':
      return new TrendHistogram(contains === 'time' ? 1e6 : 1e3);
  }
}

/** A metric restricted to samples whose tags match every `filter` pair, e.g. `http_req_duration{scenario:c8}`. */
export class Submetric {
  readonly sink: Sink;
  constructor(
    readonly name: string,
    readonly parent: Metric,
    readonly filter: ReadonlyArray<readonly [string, string]>,
  ) {
    this.sink = newSink(parent.type, parent.contains);
  }

  /** True when the sample's tags carry every tag of the filter. */
  matches(tags: Tags): boolean {
    for (const [k, v] of this.filter) if (tags[k] !== v) return false;
    return true;
  }
}

/** Sub-metrics whose first filter tag is `key`, by that tag's value. */
interface SubIndexEntry {
  key: string;
  byValue: Map<string, Submetric[]>;
}

/** Up to this many sub-metrics a sample checks them one by one; beyond, through the index. */
const LINEAR_SUBMETRICS = 4;

/** One metric: its k6 type, value type, sink and sub-metrics. */
export class Metric {
  readonly sink: Sink;
  readonly #subs: Submetric[] = [];
  /**
   * Sub-metrics indexed by their first tag, so a sample of a metric with many threshold keys
   * (one per load level and window) costs a map lookup per tag name, not a test per sub-metric.
   */
  #index: SubIndexEntry[] = [];
  /** True once a sample was recorded: k6 leaves unobserved metrics out of summaries. */
  observed = false;
  constructor(
    readonly name: string,
    readonly type: MetricType,
    readonly contains: ValueType,
  ) {
    this.sink = newSink(type, contains);
  }

  /** The metric's sub-metrics, in creation order. */
  get submetrics(): readonly Submetric[] {
    return this.#subs;
  }

  /** Attaches a sub-metric (the registry creates them). */
  addSubmetric(sub: Submetric): void {
    this.#subs.push(sub);
    const [key, value] = sub.filter[0]!;
    let entry = this.#index.find((e) => e.key === key);
    if (!entry) {
      entry = { key, byValue: new Map() };
      this.#index.push(entry);
    }
    const list = entry.byValue.get(value);
    if (list) list.push(sub);
    else entry.byValue.set(value, [sub]);
  }

  /** Adds one sample value to the metric and every sub-metric its tags match. */
  add(value: number, tags: Tags): void {
    this.observed = true;
    this.sink.add(value);
    const subs = this.#subs;
    if (subs.length <= LINEAR_SUBMETRICS) {
      for (let i = 0; i < subs.length; i++) {
        const s = subs[i]!;
        if (s.matches(tags)) s.sink.add(value);
      }
      return;
    }
    const index = this.#index;
    for (let i = 0; i < index.length; i++) {
      const e = index[i]!;
      const v = tags[e.key];
      if (v === undefined) continue;
      const candidates = e.byValue.get(v);
      if (candidates === undefined) continue;
      for (let j = 0; j < candidates.length; j++) {
        const s = candidates[j]!;
        if (s.filter.length === 1 || s.matches(tags)) s.sink.add(value);
      }
    }
  }
}

/** k6's built-in metrics: name → [type, value type]. */
export const BUILTIN_METRICS: Readonly<Record<string, readonly [MetricType, ValueType]>> = {
  vus: ['gauge', 'default'],
  vus_max: ['gauge', 'default'],
  iterations: ['counter', 'default'],
  iteration_duration: ['trend', 'time'],
  dropped_iterations: ['counter', 'default'],
  data_received: ['counter', 'data'],
  data_sent: ['counter', 'data'],
  checks: ['rate', 'default'],
  group_duration: ['trend', 'time'],
  http_reqs: ['counter', 'default'],
  http_req_failed: ['rate', 'default'],
  http_req_duration: ['trend', 'time'],
  http_req_blocked: ['trend', 'time'],
  http_req_connecting: ['trend', 'time'],
  http_req_tls_handshaking: ['trend', 'time'],
  http_req_sending: ['trend', 'time'],
  http_req_waiting: ['trend', 'time'],
  http_req_receiving: ['trend', 'time'],
  grpc_req_duration: ['trend', 'time'],
  grpc_streams: ['counter', 'default'],
  grpc_streams_msgs_sent: ['counter', 'default'],
  grpc_streams_msgs_received: ['counter', 'default'],
  ws_sessions: ['counter', 'default'],
  ws_msgs_sent: ['counter', 'default'],
  ws_msgs_received: ['counter', 'default'],
  ws_ping: ['trend', 'time'],
  ws_session_duration: ['trend', 'time'],
  ws_connecting: ['trend', 'time'],
};

const NAME_RE = /^[\p{L}\p{N}._!?/&#()<>%-]{1,128}$/u;

/** Parses `name{tag:value,...}` into the parent name and tag filter; throws on bad syntax. */
export function parseMetricKey(key: string): { name: string; filter: [string, string][] } {
  const open = key.indexOf('{');
  if (open < 0) return { name: key.trim(), filter: [] };
  if (!key.trimEnd().endsWith('}')) throw new Error(`missing closing '}' in "${key}"`);
  const name = key.slice(0, open).trim();
  const inner = key.trim().slice(open + 1, -1);
  const filter: [string, string][] = [];
  for (const part of inner.split(',')) {
    if (part.trim() === '') continue;
    const colon = part.indexOf(':');
    if (colon < 0) throw new Error(`tag "${part.trim()}" in "${key}" has no ':' (expected {tag:value})`);
    const k = part.slice(0, colon).trim();
    const v = part
      .slice(colon + 1)
      .trim()
      .replace(/^(["'])(.*)\1$/, '$2');
    if (!k) throw new Error(`empty tag name in "${key}"`);
    filter.push([k, v]);
  }
  if (filter.length === 0) throw new Error(`no tags between '{' and '}' in "${key}"`);
  return { name, filter };
}

/** All metrics of one test run, built-in and custom, with their sub-metrics. */
export class MetricRegistry {
  readonly #byName = new Map<string, Metric>();
  readonly #subs = new Map<string, Submetric>();

  constructor() {
    for (const [name, [type, contains]] of Object.entries(BUILTIN_METRICS)) {
      this.#byName.set(name, new Metric(name, type, contains));
    }
    // k6 always tracks successful request durations, shown under http_req_duration.
    this.submetric('http_req_duration{expected_response:true}');
  }

  /** Returns the metric, creating it; throws when it exists with another type (as k6 does). */
  define(name: string, type: MetricType, contains: ValueType = 'default'): Metric {
    const found = this.#byName.get(name);
    if (found) {
      if (found.type !== type || (found.contains !== contains && !(name in BUILTIN_METRICS))) {
        throw new Error(
          `metric "${name}" already exists as a ${found.type} (${found.contains}); cannot redefine it as a ${type} (${contains})`,
        );
      }
      return found;
    }
    if (!NAME_RE.test(name)) {
      throw new Error(`invalid metric name "${name}": use 1-128 letters, digits and _ (k6's rule)`);
    }
    const m = new Metric(name, type, contains);
    this.#byName.set(name, m);
    return m;
  }

  /** The metric with this name, or undefined. */
  get(name: string): Metric | undefined {
    return this.#byName.get(name);
  }

  /** Every metric, in definition order. */
  all(): Metric[] {
    return [...this.#byName.values()];
  }

  /** Every sub-metric, in creation order. */
  allSubmetrics(): Submetric[] {
    return [...this.#subs.values()];
  }

  /** Returns the sub-metric for `name{tag:value}`, creating it; throws when the parent is unknown. */
  submetric(key: string): Submetric {
    const { name, filter } = parseMetricKey(key);
    const canonical = `${name}{${filter.map(([k, v]) => `${k}:${v}`).join(',')}}`;
    const found = this.#subs.get(canonical);
    if (found) return found;
    const parent = this.#byName.get(name);
    if (!parent) throw new Error(`no metric name "${name}" found`);
    const sub = new Submetric(canonical, parent, filter);
    parent.addSubmetric(sub);
    this.#subs.set(canonical, sub);
    return sub;
  }
}
