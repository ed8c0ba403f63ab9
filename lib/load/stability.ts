/**
 * perf_analyzer's stability rule, pure: a level is stable when over its last N windows (default 3) both
 * throughput and latency stay within ±STABILITY% (default 10) of their mean. Runs inside k6 and on Node.
 */
import { DEFAULT_STABILITY_PCT } from './shapes.ts';

/** One measurement window (or sub-window) of a level. */
export interface WindowRecord {
  throughput: number;
  avg_latency_us: number;
}

/** Options of judgeStability. */
export interface StabilityOptions {
  /** Allowed deviation from the mean, percent. @default 10 */
  stability_pct?: number;
  /** How many trailing windows are judged. @default 3 */
  windows?: number;
}

/** The verdict: spread_pct is the largest deviation from the mean seen (null when too few windows). */
export interface StabilityVerdict {
  stable: boolean;
  spread_pct: number | null;
  windows_used: number;
}

function largestDeviation_pct(values: number[]): number {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  if (mean === 0) return values.every((value) => value === 0) ? 0 : Number.POSITIVE_INFINITY;
  return Math.max(...values.map((value) => (Math.abs(value - mean) / mean) * 100));
}

/** Judges the last `windows` records; fewer records than that is "not yet stable". */
export function judgeStability(
  records: readonly WindowRecord[],
  options: StabilityOptions = {},
): StabilityVerdict {
  const stability_pct = options.stability_pct ?? DEFAULT_STABILITY_PCT;
  const windows = options.windows ?? 3;
  if (records.length < windows) return { stable: false, spread_pct: null, windows_used: records.length };
  const last = records.slice(-windows);
  const spread_pct = Math.max(
    largestDeviation_pct(last.map((record) => record.throughput)),
    largestDeviation_pct(last.map((record) => record.avg_latency_us)),
  );
  return { stable: spread_pct <= stability_pct, spread_pct, windows_used: windows };
}
