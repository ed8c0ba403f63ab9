/**
 * The capacity search, pure: measured levels in, the next level to measure (or the answer) out.
 * Exponential growth until a level misses the budget, then bisection between the highest level within it
 * and the lowest outside it (perf_analyzer's --binary-search with --latency-threshold), an unstable level
 * re-measured, and the boundary re-measured before it is believed. No I/O, no clock: tests feed it numbers.
 */
import type { LoadMode } from '../../lib/load/shapes.ts';

/** What one measured level showed, reduced to what the search judges. */
export interface Measurement {
  level: number;
  throughput_infer_s: number;
  p95_ms: number;
  p99_ms: number;
  /** Failed requests over requests, 0..1; 1 when no request completed. */
  error_rate: number;
  /** perf_analyzer's stability verdict; undefined when the level was not judged. */
  stable?: boolean;
  /** The level's generator.bound: the load generator, not the server, may have set the numbers. */
  generator_bound: boolean;
}

/** The budget a level must stay within (thresholds/<model>.json after P95_MS/P99_MS). */
export interface SearchBudget {
  p95_ms: number;
  p99_ms: number;
  /** Highest allowed error rate, exclusive as k6's `rate<x`; 0 means no error at all. */
  error_rate: number;
}

/** How the search runs. */
export interface SearchConfig {
  mode: LoadMode;
  budget: SearchBudget;
  /** First level measured. */
  start: number;
  /** Highest level the search may measure (its ceiling). */
  max: number;
  /** Bisection stops when hi − lo ≤ max(absolute, relative × lo). Concurrency: 1 and 0. */
  resolution: { absolute: number; relative: number };
  /** Measurements of one level while it is unstable, before the last one is taken as it is. @default 3 */
  attempts?: number;
  /** Most measurements in all; the search answers with what it has when they run out. @default 24 */
  maxTrials?: number;
}

/** Why a level is measured. */
export type Purpose = 'explore' | 'bisect' | 'confirm' | 'retry';

/** One measured level as the search saw it: why it was measured and what came back. */
export interface Trial {
  purpose: Purpose;
  /** Why this level was chosen, one line. */
  reason: string;
  measurement: Measurement;
}

/** A budget check a level failed. */
export type Miss = 'p95' | 'p99' | 'errors';

/** What stops the load from going higher. */
export type LimitKind = 'budget' | 'errors' | 'generator' | 'ceiling' | 'trials';

/** The search's answer. */
export interface Answer {
  /** The highest level within budget, or null when even the first level missed it. */
  level: number | null;
  /** The measurement reported for it: its confirmation when there was one. */
  measurement: Measurement | null;
  /** The lowest level measured outside the budget, when there was one. */
  above: { level: number; misses: Miss[]; measurement: Measurement } | null;
  limit: LimitKind;
  /** One line saying what limits the capacity. */
  limit_detail: string;
  trials: number;
}

/** The search's next move. */
export type Step =
  | { kind: 'measure'; level: number; purpose: Purpose; reason: string }
  | { kind: 'done'; answer: Answer };

/** The budget checks a measurement misses; empty when it is within budget (k6's strict `<`). */
export function misses(m: Measurement, budget: SearchBudget): Miss[] {
  const out: Miss[] = [];
  if (!(m.p95_ms < budget.p95_ms)) out.push('p95');
  if (!(m.p99_ms < budget.p99_ms)) out.push('p99');
  const errorsOk = budget.error_rate > 0 ? m.error_rate < budget.error_rate : m.error_rate === 0;
  if (!errorsOk) out.push('errors');
  return out;
}

/** A measurement the search judges: the last of a level's attempts (stable, or the attempts ran out). */
interface Judged {
  level: number;
  purpose: Purpose;
  measurement: Measurement;
  misses: Miss[];
}

/** Groups trials into episodes (a measurement and its retries) and keeps the last of each. */
function judged(trials: readonly Trial[], budget: SearchBudget): Judged[] {
  const out: Judged[] = [];
  for (const trial of trials) {
    const m = trial.measurement;
    const entry = { level: m.level, purpose: trial.purpose, measurement: m, misses: misses(m, budget) };
    if (trial.purpose === 'retry' && out.length > 0) {
      // A retry replaces the unstable measurement it repeats, keeping the episode's purpose.
      out[out.length - 1] = { ...entry, purpose: out[out.length - 1]!.purpose };
    } else out.push(entry);
  }
  return out;
}

/** Trailing trials at the last trial's level in one episode (the measurement and its retries). */
function episodeLength(trials: readonly Trial[]): number {
  let n = 0;
  for (let i = trials.length - 1; i >= 0; i--) {
    n++;
    if (trials[i]!.purpose !== 'retry') break;
  }
  return n;
}

function roundLevel(config: SearchConfig, value: number): number {
  // Concurrency is whole VUs; a request rate keeps one decimal.
  return config.mode === 'concurrency' ? Math.floor(value) : Math.round(value * 10) / 10;
}

function fmt(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

function missText(m: Measurement, list: Miss[], budget: SearchBudget): string {
  return list
    .map((miss) =>
      miss === 'errors'
        ? `errors ${(m.error_rate * 100).toFixed(2)}% (budget < ${(budget.error_rate * 100).toFixed(2)}%)`
        : `${miss} ${(miss === 'p95' ? m.p95_ms : m.p99_ms).toFixed(2)} ms (budget ${(miss === 'p95' ? budget.p95_ms : budget.p99_ms).toLocaleString('en-US', { maximumFractionDigits: 3 })} ms)`,
    )
    .join(', ');
}

/** Decides the limit of an answer from the level within budget and the first one outside it. */
function limitOf(
  config: SearchConfig,
  best: Judged | undefined,
  above: Judged | undefined,
  outOfTrials: boolean,
): Pick<Answer, 'limit' | 'limit_detail'> {
  const bound = [best, above].filter((j) => j?.measurement.generator_bound).map((j) => j!.level);
  if (bound.length > 0) {
    // A bound generator measured itself: the server may hold more than the search found.
    return {
      limit: 'generator',
      limit_detail: `the load generator (bound at ${bound.join(' and ')}); the server may hold more, measure with a faster client or another machine`,
    };
  }
  if (outOfTrials)
    return {
      limit: 'trials',
      limit_detail: `the search ran out of its ${config.maxTrials ?? 24} measurements`,
    };
  if (!above) {
    return {
      limit: 'ceiling',
      limit_detail: `the search's ceiling ${fmt(config.max)} (raise --max to search higher)`,
    };
  }
  const kind = above.misses.every((m) => m === 'errors') ? 'errors' : 'budget';
  return {
    limit: kind,
    limit_detail: `${kind === 'errors' ? 'errors' : 'the latency budget'} at ${fmt(above.level)}: ${missText(above.measurement, above.misses, config.budget)}`,
  };
}

/** The next level to measure given the trials so far, or the answer when the search has converged. */
export function nextStep(config: SearchConfig, trials: readonly Trial[]): Step {
  const attempts = config.attempts ?? 3;
  const maxTrials = config.maxTrials ?? 24;
  if (!(config.start > 0) || !(config.max >= config.start))
    throw new Error(`capacity search: start ${config.start} must be > 0 and at most max ${config.max}`);
  if (trials.length === 0)
    return { kind: 'measure', level: config.start, purpose: 'explore', reason: 'the first level' };

  const last = trials[trials.length - 1]!;
  const outOfTrials = trials.length >= maxTrials;
  if (!outOfTrials && last.measurement.stable === false && episodeLength(trials) < attempts) {
    return {
      kind: 'measure',
      level: last.measurement.level,
      purpose: 'retry',
      reason: `${fmt(last.measurement.level)} was unstable; measure it again (attempt ${episodeLength(trials) + 1} of ${attempts})`,
    };
  }

  const all = judged(trials, config.budget);
  // A level is within budget only if every judged measurement of it was: noise counts against it.
  const failing = all.filter((j) => j.misses.length > 0).map((j) => j.level);
  const hi = failing.length > 0 ? Math.min(...failing) : undefined;
  const okLevels = all
    .map((j) => j.level)
    .filter((l) => !failing.includes(l) && (hi === undefined || l < hi));
  const lo = okLevels.length > 0 ? Math.max(...okLevels) : undefined;
  const at = (level: number | undefined, pick: (list: Judged[]) => Judged | undefined) =>
    level === undefined ? undefined : pick(all.filter((j) => j.level === level));
  const above = at(hi, (list) => list.find((j) => j.misses.length > 0));
  const best = at(lo, (list) => list[list.length - 1]);

  const done = (): Step => ({
    kind: 'done',
    answer: {
      level: lo ?? null,
      measurement: best?.measurement ?? null,
      above: above ? { level: above.level, misses: above.misses, measurement: above.measurement } : null,
      ...(lo === undefined && above
        ? {
            limit: above.misses.every((m) => m === 'errors') ? ('errors' as const) : ('budget' as const),
            limit_detail: `no level within budget; the first, ${fmt(above.level)}, missed it: ${missText(above.measurement, above.misses, config.budget)}`,
          }
        : limitOf(config, best, above, outOfTrials)),
      trials: trials.length,
    },
  });
  if (lo === undefined || outOfTrials) return done();

  if (hi === undefined) {
    if (lo >= config.max) {
      if (all.some((j) => j.level === lo && j.purpose === 'confirm')) return done();
      return confirm(lo, 'the ceiling is within budget; measure it again to confirm');
    }
    const next = Math.min(config.mode === 'concurrency' ? lo * 2 : roundLevel(config, lo * 2), config.max);
    return {
      kind: 'measure',
      level: next,
      purpose: 'explore',
      reason: `${fmt(lo)} is within budget; double to ${fmt(next)}`,
    };
  }

  const gap = Math.max(config.resolution.absolute, config.resolution.relative * lo);
  if (hi - lo > gap) {
    const mid = roundLevel(config, (lo + hi) / 2);
    if (mid > lo && mid < hi) {
      return {
        kind: 'measure',
        level: mid,
        purpose: 'bisect',
        reason: `${fmt(lo)} is within budget and ${fmt(hi)} is not; halve the gap`,
      };
    }
  }
  if (all.some((j) => j.level === lo && j.purpose === 'confirm')) return done();
  return confirm(
    lo,
    `${fmt(lo)} is the highest level within budget below ${fmt(hi)}; measure it again to confirm`,
  );
}

function confirm(level: number, reason: string): Step {
  return { kind: 'measure', level, purpose: 'confirm', reason };
}
