/**
 * The suite's time-unit conversions, in one place: k6 reports milliseconds, perf_analyzer's CSV and the run
 * records microseconds (`_us` fields), Triton's statistics nanoseconds. Pure; runs inside k6 and on Node.
 */

/** Milliseconds (k6's summaries) as microseconds (the records' unit). */
export function ms_to_us(ms: number): number {
  return ms * 1000;
}

/** Microseconds (the records' unit) as milliseconds (budgets, tables, charts). */
export function us_to_ms(us: number): number {
  return us / 1000;
}

/** Nanoseconds (Triton's statistics) as microseconds. */
export function ns_to_us(ns: number): number {
  return ns / 1000;
}
