/**
 * A worker's metrics as plain data (structured-clone safe, no classes) and their exact merge into
 * another registry: counters summed, rates summed numerator and denominator, trends as HDR buckets
 * plus exact count/sum/min/max (and their values while few enough to keep), checks per group summed. Gauges: `vus` and `vus_max` count the
 * run's VUs, which the workers split, so their value, min and max are summed; every other gauge
 * keeps the latest value of any worker (one run's "last value") and the extremes of all.
 */
import { groupAtPath, newRootGroup, type Group } from '../groups.ts';
import { TrendHistogram } from '../metrics/histogram.ts';
import {
  CounterSink,
  GaugeSink,
  type MetricRegistry,
  type MetricType,
  MetricRegistry as Registry,
  newSink,
  RateSink,
  type Sink,
  type ValueType,
} from '../metrics/registry.ts';
import { Section, SectionTracker } from '../metrics/sections.ts';
import type { TestRun } from '../run-state.ts';

/** One sink's aggregates. */
export type SinkData =
  | { kind: 'counter'; sum: number }
  | { kind: 'gauge'; value: number; min: number; max: number; time_ms: number }
  | { kind: 'rate'; passes: number; total: number }
  | {
      kind: 'trend';
      count: number;
      sum: number;
      min: number;
      max: number;
      buckets: number[];
      /** Every value, while the trend kept them all (k6's exact percentiles); else null. */
      values: number[] | null;
    };

/** One metric with its sub-metrics (by canonical key, `name{tag:value}`). */
export interface MetricData {
  name: string;
  type: MetricType;
  contains: ValueType;
  observed: boolean;
  sink: SinkData;
  subs: { key: string; sink: SinkData }[];
}

/** A full-summary-mode section: a scenario, or a group (path) inside it. */
export interface SectionData {
  scenario: string;
  group: string | null;
  sinks: { metric: string; sink: SinkData }[];
  checks: { name: string; passes: number; fails: number }[];
}

/** Everything of a worker's run that the summary, thresholds and handleSummary read. */
export interface RunSnapshot {
  metrics: MetricData[];
  /** Every group path, in first-seen order (groups show in root_group even without checks). */
  groups: string[];
  checks: { group: string; name: string; passes: number; fails: number }[];
  markedFailed: boolean;
  sections: SectionData[] | null;
}

/** Gauges whose workers' values add up to the run's. */
const ADDITIVE_GAUGES: ReadonlySet<string> = new Set(['vus', 'vus_max']);

/** A sink's aggregates as plain data. */
export function sinkData(sink: Sink): SinkData {
  if (sink instanceof TrendHistogram)
    return {
      kind: 'trend',
      count: sink.count,
      sum: sink.sum,
      min: sink.min,
      max: sink.max,
      buckets: sink.buckets(),
      values: sink.exactValues(),
    };
  if (sink instanceof GaugeSink)
    return { kind: 'gauge', value: sink.value, min: sink.min, max: sink.max, time_ms: sink.time_ms };
  if (sink instanceof RateSink) return { kind: 'rate', passes: sink.passes, total: sink.total };
  return { kind: 'counter', sum: (sink as CounterSink).sum };
}

/** Adds `data` into `sink` (same metric type) by the rules above. */
export function absorbSink(sink: Sink, data: SinkData, metric: string): void {
  if (data.kind === 'trend' && sink instanceof TrendHistogram)
    sink.addBuckets(data.buckets, data, data.values);
  else if (data.kind === 'counter' && sink instanceof CounterSink) sink.sum += data.sum;
  else if (data.kind === 'rate' && sink instanceof RateSink) {
    sink.passes += data.passes;
    sink.total += data.total;
  } else if (data.kind === 'gauge' && sink instanceof GaugeSink) {
    if (!Number.isFinite(data.min)) return;
    if (ADDITIVE_GAUGES.has(metric) && Number.isFinite(sink.min)) {
      sink.value += data.value;
      sink.min += data.min;
      sink.max += data.max;
    } else {
      if (data.time_ms >= sink.time_ms) {
        sink.value = data.value;
        sink.time_ms = data.time_ms;
      }
      sink.min = Math.min(sink.min, data.min);
      sink.max = Math.max(sink.max, data.max);
    }
  } else throw new Error(`cannot merge a ${data.kind} into metric "${metric}" of another type`);
}

function groupPaths(g: Group, out: string[]): string[] {
  out.push(g.path);
  for (const sub of g.groups.values()) groupPaths(sub, out);
  return out;
}

function sectionData(scenario: string, group: string | null, s: Section): SectionData {
  return {
    scenario,
    group,
    sinks: [...s.sinks].map(([m, sink]) => ({ metric: m.name, sink: sinkData(sink) })),
    checks: [...s.checks].map(([name, c]) => ({ name, ...c })),
  };
}

function sectionsData(tracker: SectionTracker): SectionData[] {
  return [...tracker.scenarios].flatMap(([name, sc]) => [
    sectionData(name, null, sc.section),
    ...[...sc.groups].map(([path, g]) => sectionData(name, path, g)),
  ]);
}

/** The run's metrics, groups, checks and sections as plain data (deferred samples recorded first). */
export function snapshotRun(run: TestRun): RunSnapshot {
  run.pipeline.flush();
  return snapshotOf({
    registry: run.registry,
    rootGroup: run.rootGroup,
    sections: run.pipeline.sections,
    markedFailed: run.markedFailed,
  });
}

/** A registry's, group tree's and sections' aggregates as plain data. */
export function snapshotOf(src: MergeTarget & { markedFailed: boolean }): RunSnapshot {
  const checks: RunSnapshot['checks'] = [];
  const walk = (g: Group) => {
    for (const c of g.checks.values())
      checks.push({ group: g.path, name: c.name, passes: c.passes, fails: c.fails });
    for (const sub of g.groups.values()) walk(sub);
  };
  walk(src.rootGroup);
  return {
    metrics: src.registry.all().map((m) => ({
      name: m.name,
      type: m.type,
      contains: m.contains,
      observed: m.observed,
      sink: sinkData(m.sink),
      subs: m.submetrics.map((s) => ({ key: s.name, sink: sinkData(s.sink) })),
    })),
    groups: groupPaths(src.rootGroup, []).slice(1),
    checks,
    markedFailed: src.markedFailed,
    sections: src.sections ? sectionsData(src.sections) : null,
  };
}

/** Where a snapshot is merged into: a registry, a group tree and (full summary mode) sections. */
export interface MergeTarget {
  registry: MetricRegistry;
  rootGroup: Group;
  sections?: SectionTracker | null;
}

/** Adds a worker's snapshot into `target`; returns whether that worker's run was marked as failed. */
export function absorbSnapshot(target: MergeTarget, snap: RunSnapshot): boolean {
  const { registry, rootGroup } = target;
  for (const m of snap.metrics) {
    const metric = registry.define(m.name, m.type, m.contains);
    if (m.observed) metric.observed = true;
    absorbSink(metric.sink, m.sink, m.name);
    for (const s of m.subs) absorbSink(registry.submetric(s.key).sink, s.sink, m.name);
  }
  for (const path of snap.groups) groupAtPath(rootGroup, path);
  for (const c of snap.checks) {
    const stats = groupAtPath(rootGroup, c.group).check(c.name);
    stats.passes += c.passes;
    stats.fails += c.fails;
  }
  if (target.sections && snap.sections) absorbSections(target.sections, registry, snap.sections);
  return snap.markedFailed;
}

function absorbSections(tracker: SectionTracker, registry: MetricRegistry, data: SectionData[]): void {
  for (const d of data) {
    let sc = tracker.scenarios.get(d.scenario);
    if (!sc) {
      sc = { section: new Section(), groups: new Map() };
      tracker.scenarios.set(d.scenario, sc);
    }
    let section = sc.section;
    if (d.group !== null) {
      section = sc.groups.get(d.group) ?? new Section();
      sc.groups.set(d.group, section);
    }
    for (const s of d.sinks) {
      const metric = registry.get(s.metric);
      if (!metric) continue;
      let sink = section.sinks.get(metric);
      if (!sink) {
        sink = newSink(metric.type, metric.contains);
        section.sinks.set(metric, sink);
      }
      absorbSink(sink, s.sink, s.metric);
    }
    for (const c of d.checks) {
      const stats = section.checks.get(c.name) ?? { passes: 0, fails: 0 };
      stats.passes += c.passes;
      stats.fails += c.fails;
      section.checks.set(c.name, stats);
    }
  }
}

/** The merge of several snapshots (e.g. every worker's latest), as one snapshot. */
export function mergeSnapshots(snaps: readonly RunSnapshot[]): RunSnapshot {
  const registry = new Registry();
  const rootGroup = newRootGroup();
  const sections = snaps.some((s) => s.sections) ? new SectionTracker() : null;
  let markedFailed = false;
  for (const s of snaps) markedFailed = absorbSnapshot({ registry, rootGroup, sections }, s) || markedFailed;
  return snapshotOf({ registry, rootGroup, sections, markedFailed });
}
