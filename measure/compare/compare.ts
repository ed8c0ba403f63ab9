/**
 * Run comparison, pure: two runs' level results in, per-level deltas of throughput and p50/p95/p99 and a
 * regression verdict out. Levels are matched by load mode and level (c4 with c4, r100 with r100); gates are
 * the throughput drop and the p99 rise, in percent of the baseline (A).
 */
import type { LevelResult, RunReport } from '../../lib/summary/types.ts';
import { us_to_ms } from '../../lib/units.ts';
import { type Delta, delta, fmtPct } from './delta.ts';
import {
  compareGenaiLevel,
  DEFAULT_GENAI_TOLERANCES,
  type GenaiLevelComparison,
  type GenaiTolerances,
} from './compare-genai.ts';

export { type Delta, deltaPct } from './delta.ts';

/** How much worse B may be than A before it counts as a regression, percent of A. */
export interface Tolerances {
  /** @default 5 */
  max_throughput_drop_pct: number;
  /** @default 10 */
  max_p99_rise_pct: number;
  /** Generative levels' gates (TTFT, ITL, output tokens/s, goodput). @default DEFAULT_GENAI_TOLERANCES */
  genai?: GenaiTolerances;
}

/** The defaults of the `compare` flags. */
export const DEFAULT_TOLERANCES: Tolerances = { max_throughput_drop_pct: 5, max_p99_rise_pct: 10 };

/** One level measured in both runs. */
export interface LevelComparison {
  name: string;
  throughput_infer_s: Delta;
  p50_ms: Delta;
  p95_ms: Delta;
  p99_ms: Delta;
  /** One sentence per gate this level failed; empty when it passed. */
  regressions: string[];
  /** Both runs measured the level's tokens (a generative model): TTFT, ITL, tokens/s, goodput. */
  genai?: GenaiLevelComparison;
}

/** What a run is, in one line, for the report's header. */
export interface RunLabel {
  path: string;
  model: string;
  protocol: string;
  runtime: string;
  batch: number;
  started_at: string;
}

/** The whole comparison of B against A. */
export interface Comparison {
  a: RunLabel;
  b: RunLabel;
  tolerances: Tolerances;
  levels: LevelComparison[];
  /** Levels A measured and B did not: a regression (B measured less), named. */
  missing_in_b: string[];
  /** Levels only B measured: shown, not judged. */
  only_in_b: string[];
  /** Settings that differ between the runs (model, protocol, batch): the comparison may not be like for like. */
  mismatches: string[];
  regressed: boolean;
  /** Every reason for the verdict, one sentence each. */
  findings: string[];
  /**
   * What makes the figures less comparable without failing the gate, one line each: windows of different
   * lengths, levels that did not stabilise in A or in B.
   */
  notes: string[];
}

/** Parses a tolerance flag ('5%', '5', '0.5%') to a percentage; throws naming the flag on anything else. */
export function parsePercent(flag: string, text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  if (!match) throw new Error(`invalid ${flag}; expected a percentage such as 5%, got '${text}'`);
  return Number(match[1]);
}

/** A level's identity across runs: mode and level, so c4 never meets r4. */
function levelKey(result: LevelResult): string {
  return `${result.mode}:${result.level}`;
}

function compareLevel(a: LevelResult, b: LevelResult, tolerances: Tolerances): LevelComparison {
  const level: LevelComparison = {
    name: b.name,
    throughput_infer_s: delta(a.throughput_infer_s, b.throughput_infer_s),
    p50_ms: delta(us_to_ms(a.latency_us.p50), us_to_ms(b.latency_us.p50)),
    p95_ms: delta(us_to_ms(a.latency_us.p95), us_to_ms(b.latency_us.p95)),
    p99_ms: delta(us_to_ms(a.latency_us.p99), us_to_ms(b.latency_us.p99)),
    regressions: [],
  };
  const throughput = level.throughput_infer_s;
  if (-throughput.delta_pct > tolerances.max_throughput_drop_pct)
    level.regressions.push(
      `${level.name}: throughput ${throughput.a.toFixed(1)} → ${throughput.b.toFixed(1)} infer/s ` +
        `(${fmtPct(throughput.delta_pct)}), more than the ${tolerances.max_throughput_drop_pct}% drop allowed`,
    );
  const p99 = level.p99_ms;
  if (p99.delta_pct > tolerances.max_p99_rise_pct)
    level.regressions.push(
      `${level.name}: p99 ${p99.a.toFixed(2)} → ${p99.b.toFixed(2)} ms (${fmtPct(p99.delta_pct)}), ` +
        `more than the ${tolerances.max_p99_rise_pct}% rise allowed`,
    );
  if (a.genai && b.genai)
    level.genai = compareGenaiLevel(
      level.name,
      a.genai,
      b.genai,
      tolerances.genai ?? DEFAULT_GENAI_TOLERANCES,
      level.regressions,
    );
  return level;
}

/** A run's label from its report and where it was read. */
export function runLabel(path: string, report: RunReport): RunLabel {
  const { model, protocol, runtime, batch, started_at } = report;
  return { path, model, protocol, runtime, batch, started_at };
}

/** Compares run B against baseline A, level by level, under the tolerances. */
export function compareRuns(
  a: { path: string; report: RunReport },
  b: { path: string; report: RunReport },
  tolerances: Tolerances = DEFAULT_TOLERANCES,
): Comparison {
  const inB = new Map(b.report.results.map((result) => [levelKey(result), result]));
  const inA = new Set(a.report.results.map(levelKey));
  const levels: LevelComparison[] = [];
  const missing_in_b: string[] = [];
  for (const result of a.report.results) {
    const other = inB.get(levelKey(result));
    if (other) levels.push(compareLevel(result, other, tolerances));
    else missing_in_b.push(result.name);
  }
  const only_in_b = b.report.results.filter((result) => !inA.has(levelKey(result))).map((r) => r.name);
  const mismatches = (['model', 'protocol', 'batch'] as const)
    .filter((field) => a.report[field] !== b.report[field])
    .map((field) => `${field}: ${a.report[field]} in A, ${b.report[field]} in B`);
  const findings = [
    ...levels.flatMap((level) => level.regressions),
    ...missing_in_b.map((name) => `${name}: measured in A, not in B`),
  ];
  // Nothing in common is not a pass: a gate that compared nothing must not turn green.
  if (levels.length === 0) findings.push('no level was measured in both runs');
  const common = a.report.results.flatMap((result) => {
    const other = inB.get(levelKey(result));
    return other ? [[result, other] as const] : [];
  });
  return {
    a: runLabel(a.path, a.report),
    b: runLabel(b.path, b.report),
    tolerances,
    levels,
    missing_in_b,
    only_in_b,
    mismatches,
    regressed: findings.length > 0,
    findings,
    notes: comparabilityNotes(common),
  };
}

function seconds(s: number): string {
  return `${s.toLocaleString('en-US', { maximumFractionDigits: 1 })} s`;
}

/**
 * One line per reason the common levels' figures compare less well: their windows differ in length (a short
 * window's percentiles rest on fewer samples), or a level did not stabilise in A or in B (its figures may be
 * off by its spread, so a delta within that spread says nothing).
 */
export function comparabilityNotes(pairs: readonly (readonly [LevelResult, LevelResult])[]): string[] {
  const notes: string[] = [];
  const windows = pairs.filter(([a, b]) => Math.abs(a.window_s - b.window_s) > 0.05 * a.window_s);
  if (windows.length > 0)
    notes.push(
      `windows differ: ${windows.map(([a, b]) => `${b.name} ${seconds(a.window_s)} in A, ${seconds(b.window_s)} in B`).join('; ')}`,
    );
  for (const [run, pick] of [
    ['A', 0],
    ['B', 1],
  ] as const) {
    const unstable = pairs.map((pair) => pair[pick]).filter((r) => r.stable === false);
    if (unstable.length > 0)
      notes.push(
        `unstable in ${run}: ${unstable
          .map(
            (r) =>
              `${r.name}${r.stability_spread_pct == null ? '' : ` (±${r.stability_spread_pct.toFixed(0)}%)`}`,
          )
          .join(', ')}; their deltas may be noise`,
      );
  }
  return notes;
}
