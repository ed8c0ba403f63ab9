/** The sequence counters' k6 metric names (thresholds gate the last two; count==0 by default), apart from k6/metrics so that Node code can read them. */
export const SEQUENCE_METRICS = {
  started: 'k6_triton_sequences_started',
  completed: 'k6_triton_sequences_completed',
  outOfOrder: 'k6_triton_sequences_out_of_order',
  orphaned: 'k6_triton_sequences_orphaned',
} as const;

/** The counters the sequence loop adds to (k6 Counters, or fakes in tests). */
export type SequenceCounters = Record<keyof typeof SEQUENCE_METRICS, { add(value: number): void }>;
