/**
 * The generative side of a run comparison, pure: per level measured in both runs, TTFT and ITL at p50/p95/p99,
 * output tokens/s and goodput, and the gates on them (the TTFT and ITL rise at one percentile, the drop of output
 * tokens/s and of goodput), in percent of the baseline (A), as the tensor gates are.
 */
import type { GenerativeLevel } from '../../lib/summary/types.ts';
import { type Delta, delta, fmtPct } from './delta.ts';

/** The percentiles a level summary carries for TTFT and ITL. */
export const GENAI_PERCENTILES = ['p50', 'p95', 'p99'] as const;
export type GenaiPercentile = (typeof GENAI_PERCENTILES)[number];

/** How much worse B's token figures may be than A's before it counts as a regression, percent of A. */
export interface GenaiTolerances {
  /** @default 10 */
  max_ttft_rise_pct: number;
  /** @default 10 */
  max_itl_rise_pct: number;
  /** Output tokens/s. @default 5 */
  max_tokens_drop_pct: number;
  /** Goodput (requests/s meeting every SLO). @default 5 */
  max_goodput_drop_pct: number;
  /** The TTFT and ITL percentile the rise gates judge. @default p99 */
  percentile: GenaiPercentile;
}

/** The defaults of the generative `compare` flags: the tensor defaults' rise and drop, on p99 as --max-p99-rise. */
export const DEFAULT_GENAI_TOLERANCES: GenaiTolerances = {
  max_ttft_rise_pct: 10,
  max_itl_rise_pct: 10,
  max_tokens_drop_pct: 5,
  max_goodput_drop_pct: 5,
  percentile: 'p99',
};

/** A generative level measured in both runs. */
export interface GenaiLevelComparison {
  ttft_ms: Record<GenaiPercentile, Delta>;
  itl_ms: Record<GenaiPercentile, Delta>;
  output_tokens_per_s: Delta;
  /** Good requests/s; absent when either run judged no goodput (no SLO) or their SLOs differ. */
  goodput_requests_per_s?: Delta;
  /** Why goodput was not compared, when A had it. */
  goodput_skipped?: string;
}

/** A generative gate: its name in findings and JUnit, and what it bounds. */
export interface GenaiGate {
  /** The words a finding starts with after the level, e.g. `TTFT p99`. */
  word: string;
  /** The JUnit testcase name, e.g. `TTFT p99 rise <= 10%`. */
  name: string;
}

function sameSlo(a: GenerativeLevel['goodput'], b: GenerativeLevel['goodput']): boolean {
  const keys = ['ttft_ms', 'itl_ms', 'latency_ms'] as const;
  return keys.every((key) => a?.slo[key] === b?.slo[key]);
}

/** The gates a generative level is judged on under these tolerances, in the order findings list them. */
export function genaiGates(t: GenaiTolerances): GenaiGate[] {
  return [
    { word: `TTFT ${t.percentile}`, name: `TTFT ${t.percentile} rise <= ${t.max_ttft_rise_pct}%` },
    { word: `ITL ${t.percentile}`, name: `ITL ${t.percentile} rise <= ${t.max_itl_rise_pct}%` },
    { word: 'output tokens/s', name: `output tokens/s drop <= ${t.max_tokens_drop_pct}%` },
    { word: 'goodput', name: `goodput drop <= ${t.max_goodput_drop_pct}%` },
  ];
}

/** The gates in one line, for the comparison's verdict. */
export function genaiGatesText(t: GenaiTolerances): string {
  return (
    `TTFT ${t.percentile} rise ≤ ${t.max_ttft_rise_pct}%, ITL ${t.percentile} rise ≤ ${t.max_itl_rise_pct}%, ` +
    `output tokens/s drop ≤ ${t.max_tokens_drop_pct}%, goodput drop ≤ ${t.max_goodput_drop_pct}%`
  );
}

/** Compares one generative level; the sentences of the gates B failed go into `regressions`. */
export function compareGenaiLevel(
  name: string,
  a: GenerativeLevel,
  b: GenerativeLevel,
  t: GenaiTolerances,
  regressions: string[],
): GenaiLevelComparison {
  const percentiles = (pick: (g: GenerativeLevel) => Record<GenaiPercentile, number>) =>
    Object.fromEntries(GENAI_PERCENTILES.map((p) => [p, delta(pick(a)[p], pick(b)[p])])) as Record<
      GenaiPercentile,
      Delta
    >;
  const level: GenaiLevelComparison = {
    ttft_ms: percentiles((g) => g.ttft_ms),
    itl_ms: percentiles((g) => g.itl_ms),
    output_tokens_per_s: delta(a.output_tokens_per_s, b.output_tokens_per_s),
  };
  if (a.goodput && b.goodput && sameSlo(a.goodput, b.goodput))
    level.goodput_requests_per_s = delta(a.goodput.requests_per_s, b.goodput.requests_per_s);
  else if (a.goodput)
    level.goodput_skipped = b.goodput
      ? 'the runs judged goodput on different SLOs'
      : 'B judged no goodput (no SLO)';

  const rise = (word: string, d: Delta, max: number) => {
    if (d.delta_pct > max)
      regressions.push(
        `${name}: ${word} ${d.a.toFixed(2)} → ${d.b.toFixed(2)} ms (${fmtPct(d.delta_pct)}), more than the ${max}% rise allowed`,
      );
  };
  const drop = (word: string, d: Delta, max: number, unit: string) => {
    if (-d.delta_pct > max)
      regressions.push(
        `${name}: ${word} ${d.a.toFixed(1)} → ${d.b.toFixed(1)} ${unit} (${fmtPct(d.delta_pct)}), more than the ${max}% drop allowed`,
      );
  };
  const p = t.percentile;
  rise(`TTFT ${p}`, level.ttft_ms[p], t.max_ttft_rise_pct);
  rise(`ITL ${p}`, level.itl_ms[p], t.max_itl_rise_pct);
  drop('output tokens/s', level.output_tokens_per_s, t.max_tokens_drop_pct, 'tokens/s');
  if (level.goodput_requests_per_s)
    drop('goodput', level.goodput_requests_per_s, t.max_goodput_drop_pct, 'req/s');
  return level;
}
