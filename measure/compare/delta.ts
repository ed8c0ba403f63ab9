/** One figure in two runs and its change, in percent of the baseline (A): the arithmetic every compare gate uses. */

/** One figure in both runs and its change, percent of A (Infinity when A is 0 and B is not). */
export interface Delta {
  a: number;
  b: number;
  delta_pct: number;
}

/** B's change relative to A, percent. */
export function deltaPct(a: number, b: number): number {
  if (a === 0) return b === 0 ? 0 : Number.POSITIVE_INFINITY * Math.sign(b);
  return ((b - a) / Math.abs(a)) * 100;
}

/** The Delta of A and B. */
export function delta(a: number, b: number): Delta {
  return { a, b, delta_pct: deltaPct(a, b) };
}

/** A change in percent with its sign, e.g. +12.3% (±inf% when A was 0). */
export function fmtPct(pct: number): string {
  if (!Number.isFinite(pct)) return pct > 0 ? '+inf%' : '-inf%';
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`;
}
