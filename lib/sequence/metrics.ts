/**
 * The sequence counters as k6 metrics and their summary line. Create the counters in the init context (k6
 * registers metrics there).
 */
import { Counter } from 'k6/metrics';
import type { K6SummaryData } from '../summary/from-summary.ts';
import { SEQUENCE_METRICS, type SequenceCounters } from './names.ts';

/** Registers the four sequence counters. */
export function createSequenceCounters(): SequenceCounters {
  return {
    started: new Counter(SEQUENCE_METRICS.started),
    completed: new Counter(SEQUENCE_METRICS.completed),
    outOfOrder: new Counter(SEQUENCE_METRICS.outOfOrder),
    orphaned: new Counter(SEQUENCE_METRICS.orphaned),
  };
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
