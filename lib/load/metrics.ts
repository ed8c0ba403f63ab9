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
  RUNTIME_TAG,
  type ServerCounterField,
  WINDOW_LENGTH_METRIC,
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

/** A stats probe's record of its level's window: start (epoch ms) and length (s), under real k6 or the Node runtime. */
export interface WindowRecord {
  add(start_ms: number, window_s: number): void;
}

/**
 * Registers the window-start and window-length Gauges (WINDOW_START_METRIC, WINDOW_LENGTH_METRIC). Only the
 * Node runtime sets K6_TRITON_RUNTIME=node (cli/run.ts), so without it real k6 is the one measuring.
 */
export function createWindowRecord(env: Record<string, string | undefined>): WindowRecord {
  const start = new Gauge(WINDOW_START_METRIC);
  const length = new Gauge(WINDOW_LENGTH_METRIC);
  const tags = { [RUNTIME_TAG]: env.K6_TRITON_RUNTIME === 'node' ? 'node' : 'k6' };
  return {
    add(start_ms, window_s) {
      start.add(start_ms);
      length.add(window_s, tags);
    },
  };
}

/** Registers the response-validation Counters: outputs checked, and responses found invalid. */
export function createResponseCounters(): { checked: Counter; invalid: Counter } {
  return { checked: new Counter(INFER_CHECKED_METRIC), invalid: new Counter(INFER_INVALID_METRIC) };
}

/** Registers the scheduled-start latency Trend of open-loop runs (see SCHEDULED_LATENCY_METRIC); times in ms. */
export function createScheduledLatency(): Trend {
  return new Trend(SCHEDULED_LATENCY_METRIC, true);
}
