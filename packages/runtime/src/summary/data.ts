/**
 * The object k6 hands to handleSummary(data): metrics {type, contains, values, thresholds{expr:{ok}}},
 * root_group {name, path, id, groups, checks[{name, path, id, passes, fails}]},
 * options {summaryTrendStats, summaryTimeUnit, noColor}, state {isStdOutTTY, isStdErrTTY, testRunDurationMs}.
 */
import type { Group } from '../groups.ts';
import { TrendHistogram } from '../metrics/histogram.ts';
import type { MetricRegistry, MetricType, Sink, ValueType } from '../metrics/registry.ts';
import { CounterSink, GaugeSink, RateSink } from '../metrics/registry.ts';
import type { Section, SectionTracker } from '../metrics/sections.ts';
import { sinkValues } from '../metrics/values.ts';
import type { ThresholdSet } from '../thresholds.ts';

export interface SummaryMetric {
  type: MetricType;
  contains: ValueType;
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}

export interface SummaryCheck {
  name: string;
  path: string;
  id: string;
  passes: number;
  fails: number;
}

export interface SummaryGroup {
  name: string;
  path: string;
  id: string;
  groups: SummaryGroup[];
  checks: SummaryCheck[];
}

export interface SummaryData {
  root_group: SummaryGroup;
  options: { summaryTrendStats: string[]; summaryTimeUnit: string; noColor: boolean };
  state: { isStdOutTTY: boolean; isStdErrTTY: boolean; testRunDurationMs: number };
  metrics: Record<string, SummaryMetric>;
}

/** The group tree as k6's summary shows it. */
export function groupData(g: Group): SummaryGroup {
  return {
    name: g.name,
    path: g.path,
    id: g.id,
    groups: [...g.groups.values()].map(groupData),
    checks: [...g.checks.values()].map((c) => ({
      name: c.name,
      path: c.path,
      id: c.id,
      passes: c.passes,
      fails: c.fails,
    })),
  };
}

/** Whether a sink has seen any sample. */
export function sinkObserved(s: Sink): boolean {
  if (s instanceof TrendHistogram) return s.count > 0;
  if (s instanceof RateSink) return s.total > 0;
  if (s instanceof GaugeSink) return Number.isFinite(s.min);
  if (s instanceof CounterSink) return s.sum !== 0;
  return false;
}

/** Inputs of the summary data. */
export interface SummaryInputs {
  registry: MetricRegistry;
  thresholds: readonly ThresholdSet[];
  rootGroup: Group;
  trendStats: string[];
  timeUnit: string | null;
  noColor: boolean;
  testRunDuration_ms: number;
  isStdOutTTY: boolean;
  isStdErrTTY: boolean;
}

/** Builds handleSummary's data: observed metrics and sub-metrics, plus any with thresholds. */
export function buildSummaryData(inp: SummaryInputs): SummaryData {
  const byKey = new Map<string, ThresholdSet>();
  for (const t of inp.thresholds) byKey.set(t.key, t);
  const metrics: Record<string, SummaryMetric> = {};
  const entry = (key: string, type: MetricType, contains: ValueType, sink: Sink) => {
    const th = byKey.get(key);
    if (!sinkObserved(sink) && !th) return;
    const m: SummaryMetric = {
      type,
      contains,
      values: sinkValues(type, sink, inp.trendStats, inp.testRunDuration_ms),
    };
    if (th) {
      m.thresholds = {};
      for (const t of th.thresholds) m.thresholds[t.source] = { ok: t.ok };
    }
    metrics[key] = m;
  };
  for (const m of inp.registry.all()) {
    if (m.observed || byKey.has(m.name)) entry(m.name, m.type, m.contains, m.sink);
    for (const s of m.submetrics) entry(s.name, m.type, m.contains, s.sink);
  }
  return {
    root_group: groupData(inp.rootGroup),
    options: {
      summaryTrendStats: [...inp.trendStats],
      summaryTimeUnit: inp.timeUnit ?? '',
      noColor: inp.noColor,
    },
    state: {
      isStdOutTTY: inp.isStdOutTTY,
      isStdErrTTY: inp.isStdErrTTY,
      testRunDurationMs: inp.testRunDuration_ms,
    },
    metrics,
  };
}

/** Checks as a section shows them: name, passes, fails. */
export interface SectionCheck {
  name: string;
  passes: number;
  fails: number;
}

/** A full-mode section: a scenario, or a group inside one. */
export interface SummarySection {
  name: string;
  metrics: Record<string, SummaryMetric>;
  checks: SectionCheck[];
  groups: SummarySection[];
}

/** Full-mode sections (per scenario, then its groups) from the section tracker. */
export function buildSections(
  tracker: SectionTracker,
  trendStats: string[],
  duration_ms: number,
): SummarySection[] {
  const metricsOf = (sec: Section): Record<string, SummaryMetric> => {
    const out: Record<string, SummaryMetric> = {};
    const entries = [...sec.sinks.entries()].sort((a, b) => a[0].name.localeCompare(b[0].name));
    for (const [m, sink] of entries) {
      if (!sinkObserved(sink)) continue;
      out[m.name] = {
        type: m.type,
        contains: m.contains,
        values: sinkValues(m.type, sink, trendStats, duration_ms),
      };
    }
    return out;
  };
  const checksOf = (sec: Section) => [...sec.checks.entries()].map(([name, c]) => ({ name, ...c }));
  return [...tracker.scenarios.entries()].map(([name, sc]) => ({
    name,
    metrics: metricsOf(sc.section),
    checks: checksOf(sc.section),
    groups: [...sc.groups.entries()].map(([path, g]) => ({
      name: path.replace(/^::/, ''),
      metrics: metricsOf(g),
      checks: checksOf(g),
      groups: [],
    })),
  }));
}
