/**
 * Summary statistics of one distribution as genai-perf reports them: mean, min, max, population standard
 * deviation and p1, p5, p10, p25, p50, p75, p90, p95, p99 by linear interpolation between closest ranks
 * (numpy.percentile's default, which genai-perf and vLLM both use). Pure; runs inside k6 and on Node.
 */

/** The percentiles every distribution reports (genai-perf's set). */
export const PERCENTILES = [1, 5, 10, 25, 50, 75, 90, 95, 99] as const;

/** One distribution summarised. */
export interface Stats {
  count: number;
  avg: number;
  min: number;
  max: number;
  /** Population standard deviation (divides by count, as numpy.std). */
  std: number;
  p1: number;
  p5: number;
  p10: number;
  p25: number;
  p50: number;
  p75: number;
  p90: number;
  p95: number;
  p99: number;
}

/** The p-th percentile (0..100) of values sorted ascending, interpolated linearly between ranks. */
export function percentileOfSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = ((sorted.length - 1) * p) / 100;
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const low = sorted[lo]!;
  return low + (sorted[hi]! - low) * (rank - lo);
}

/** Summarises values; undefined when there are none. */
export function summarize(values: readonly number[]): Stats | undefined {
  const n = values.length;
  if (n === 0) return undefined;
  const sorted = values.slice().sort((a, b) => a - b);
  let sum = 0;
  for (const v of sorted) sum += v;
  const avg = sum / n;
  let squares = 0;
  for (const v of sorted) squares += (v - avg) * (v - avg);
  const at = (p: number) => percentileOfSorted(sorted, p);
  return {
    count: n,
    avg,
    min: sorted[0]!,
    max: sorted[n - 1]!,
    std: Math.sqrt(squares / n),
    p1: at(1),
    p5: at(5),
    p10: at(10),
    p25: at(25),
    p50: at(50),
    p75: at(75),
    p90: at(90),
    p95: at(95),
    p99: at(99),
  };
}
