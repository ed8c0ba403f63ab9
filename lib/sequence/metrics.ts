/**
 * The sequence counters as k6 metrics, their thresholds and their summary line. Create the counters in the init
 * context (k6 registers metrics there).
 */
import { Counter } from 'k6/metrics';
import type { Options } from 'k6/options';
import { WARMUP_SUFFIX } from '../load/names.ts';
import type { K6SummaryData } from '../summary/from-summary.ts';
import { SEQUENCE_METRICS, type SequenceCounters } from './loop.ts';

/** Registers the four sequence counters. */
export function createSequenceCounters(): SequenceCounters {
  return {
    started: new Counter(SEQUENCE_METRICS.started),
    completed: new Counter(SEQUENCE_METRICS.completed),
    outOfOrder: new Counter(SEQUENCE_METRICS.outOfOrder),
    orphaned: new Counter(SEQUENCE_METRICS.orphaned),
  };
}

/**
 * The options for whole-sequence iterations: a warm-up's iterations get its level's graceful stop (k6 would cut a
 * sequence at the warm-up's end and leave it open on the server), and thresholds fail the run on any out-of-order
 * or orphaned sequence (the options' own thresholds win).
 */
export function withSequenceOptions(options: Options): Options {
  const scenarios = { ...options.scenarios };
  for (const [name, scenario] of Object.entries(scenarios)) {
    const level = name.endsWith(WARMUP_SUFFIX) ? scenarios[name.slice(0, -WARMUP_SUFFIX.length)] : undefined;
    if (level?.gracefulStop) scenarios[name] = { ...scenario, gracefulStop: level.gracefulStop };
  }
  return {
    ...options,
    ...(options.scenarios ? { scenarios } : {}),
    thresholds: {
      [SEQUENCE_METRICS.outOfOrder]: ['count==0'],
      [SEQUENCE_METRICS.orphaned]: ['count==0'],
      ...options.thresholds,
    },
  };
}

/** VUs that may run at once: every scenario's VUs added up (an upper bound; ids are split by it). */
export function vuBound(options: Options): number {
  let total = 0;
  for (const s of Object.values(options.scenarios ?? {})) {
    const v = s as { vus?: number; maxVUs?: number; preAllocatedVUs?: number };
    total += Math.max(v.vus ?? 0, v.maxVUs ?? 0, v.preAllocatedVUs ?? 0, 1);
  }
  return Math.max(1, total);
}

/** "sequences: 120 started, 120 completed, 0 out of order, 0 orphaned" from the summary data. */
export function sequenceSummaryLine(data: K6SummaryData): string {
  const count = (name: string) => Number(data.metrics[name]?.values?.count ?? 0);
  const started = count(SEQUENCE_METRICS.started);
  const completed = count(SEQUENCE_METRICS.completed);
  // A sequence neither completed nor abandoned was cut short (the run ended inside it): orphaned too.
  const orphaned = Math.max(count(SEQUENCE_METRICS.orphaned), started - completed);
  return `sequences: ${started} started, ${completed} completed, ${count(SEQUENCE_METRICS.outOfOrder)} out of order, ${orphaned} orphaned`;
}
