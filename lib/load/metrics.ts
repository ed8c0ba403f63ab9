/**
 * The custom k6 metrics the report reads: Counters that carry each window's server statistics into the
 * summary (tagged by the `<level>_stats` scenario that adds them), the infer_errors Rate and the response
 * validation counters.
 * Create them in the init context (k6 registers metrics there).
 */
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';
import {
  INFER_CHECKED_METRIC,
  INFER_ERRORS_METRIC,
  INFER_INVALID_METRIC,
  SCHEDULED_LATENCY_METRIC,
  SERVER_COUNTERS,
  type ServerCounterField,
  WINDOW_START_METRIC,
} from './names.ts';
import type { ServerStatsDelta } from './server-stats.ts';

/** One Counter per SERVER_COUNTERS field. */
export type ServerCounters = Record<ServerCounterField, Counter>;

/** Registers the server-statistics counters; call once at module top level of a scenario. */
export function createServerCounters(): ServerCounters {
  const counters = {} as ServerCounters;
  for (const [field, name] of Object.entries(SERVER_COUNTERS) as [ServerCounterField, string][]) {
    counters[field] = new Counter(name);
  }
  return counters;
}

/** Adds one window's delta; zeros are added too, so every level has the sub-metric in the summary. */
export function recordServerStats(counters: ServerCounters, delta: ServerStatsDelta): void {
  for (const field of Object.keys(counters) as ServerCounterField[]) counters[field].add(delta[field] ?? 0);
}

/** Registers the infer_errors Rate (add `true` per failed request, `false` per good one); error budgets judge it. */
export function createInferErrors(): Rate {
  return new Rate(INFER_ERRORS_METRIC);
}

/** Registers the response-validation Counters: outputs checked, and responses found invalid. */
export function createResponseCounters(): { checked: Counter; invalid: Counter } {
  return { checked: new Counter(INFER_CHECKED_METRIC), invalid: new Counter(INFER_INVALID_METRIC) };
}

/** Registers the window-start Gauge (see WINDOW_START_METRIC). */
export function createWindowStart(): Gauge {
  return new Gauge(WINDOW_START_METRIC);
}

/** Registers the scheduled-start latency Trend of open-loop runs (see SCHEDULED_LATENCY_METRIC); times in ms. */
export function createScheduledLatency(): Trend {
  return new Trend(SCHEDULED_LATENCY_METRIC, true);
}
