/**
 * The capacity search, pure: measured levels in, the next level to measure (or the answer) out.
 * Exponential growth until a level misses the budget, then bisection between the highest level within it
 * and the lowest level that missed it (perf_analyzer's --binary-search with --latency-threshold), an unstable
 * level re-measured, and the boundary re-measured before it is believed. No I/O, no clock: tests feed it numbers.
 *
 * Noise: near the boundary p95 moves less per level (MNIST: ~0.7 ms) than between two runs of one level
 * (3-5 ms), so one miss does not make a level outside the budget. A level's verdict comes from all its
 * measurements: within (every one within budget), outside (every one missed) or ambiguous (they disagree).
 * The answer is the highest level within budget in every measurement below the lowest level that missed at
 * all. Once the answer is re-measured, the level that missed above it is measured again; if it now holds, the
 * search steps up from it (max(resolution, 10% of the level), the step doubling on each level that holds or
 * disagrees) to the lowest level outside the budget in at least two measurements, each miss re-measured once.
 * Every level measured between the answer and that level is "within noise of the budget": ambiguous, or
 * within budget but above a level that was not (one good run above a miss proves no more than the miss did).
 */
import type { BudgetLimits } from '../../lib/budget.ts';
import { GOODPUT_FRACTION, type TokenBudget } from '../../lib/genai/budget.ts';
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
  /** Passes of perf_analyzer's rules (MAX_TRIALS) the measurement took, when more than one. */
  passes?: number;
  /** The level's generator.bound: the load generator, not the server, may have set the numbers. */
  generator_bound: boolean;
  /** A generative model's level: its token figures and goodput (docs/generative-metrics.md). */
  genai?: GenerativeMeasurement;
}

/** What the search judges of a generative level besides latency and errors. */
export interface GenerativeMeasurement {
  ttft_p95_ms: number;
  itl_p95_ms: number;
  output_tokens_per_s: number;
  /** Requests meeting every SLO over all requests, 0..1; absent when no SLO was set. */
  good_fraction?: number;
  /** Good requests per second. */
  goodput_per_s?: number;
}

/**
 * The budget a level must stay within (thresholds/<model>.json after P95_MS/P99_MS; RunPlan.limits), and a
 * generative model's TTFT and ITL p95 bounds (after TTFT_P95_MS/ITL_P95_MS).
 */
export type SearchBudget = BudgetLimits & TokenBudget;

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
  /** Most measurements in all; the search answers with what it has when they run out. @default DEFAULT_MAX_TRIALS */
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

/**
 * A budget check a level failed; a generative level also: TTFT or ITL p95 over its bound, or goodput (under
 * GOODPUT_FRACTION of its requests met every SLO).
 */
export type Miss = 'p95' | 'p99' | 'errors' | 'ttft' | 'itl' | 'goodput';

/** What stops the load from going higher. */
export type LimitKind = 'budget' | 'errors' | 'generator' | 'ceiling' | 'trials';

/** A level's verdict from all its judged measurements. */
export type Verdict = 'within' | 'outside' | 'ambiguous';

/** Levels above the answer the search could not tell apart from the budget. */
export interface Noise {
  /** The measured levels within noise of the budget, ascending; empty when none. */
  levels: number[];
  /**
   * The band they stand for, both ends included; null when there are none. Concurrency: every level between
   * the answer and `above` (up to the highest noisy level when there is no `above`); a rate: the measured ones.
   */
  band: { from: number; to: number } | null;
}

/** The search's answer. */
export interface Answer {
  /** The highest level within budget in every measurement below any level that missed it; null: none. */
  level: number | null;
  /** The measurement reported for it: its confirmation when there was one. */
  measurement: Measurement | null;
  /**
   * The lowest level above the noise band that missed the budget in every measurement (normally two or more;
   * one when the search ran out of measurements or no level was within budget), or null.
   */
  above: { level: number; misses: Miss[]; measurement: Measurement } | null;
  /** The levels between the answer and `above` within noise of the budget. */
  noise: Noise;
  limit: LimitKind;
  /**
   * What limits the capacity, read after "limited by" (limitClause in capacity-report.ts); with no level
   * within budget and no noise, the first level's miss as a clause of its own.
   */
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
  const g = m.genai;
  if (!g) return out;
  if (budget.ttft_p95_ms !== undefined && !(g.ttft_p95_ms < budget.ttft_p95_ms)) out.push('ttft');
  if (budget.itl_p95_ms !== undefined && !(g.itl_p95_ms < budget.itl_p95_ms)) out.push('itl');
  if (g.good_fraction !== undefined && !(g.good_fraction >= GOODPUT_FRACTION)) out.push('goodput');
  return out;
}

/** The band of an answer's noise in words, e.g. "24-25 within noise of the budget"; undefined when none. */
export function noiseWords(noise: Noise): string | undefined {
  if (!noise.band) return undefined;
  const { from, to } = noise.band;
  return `${from === to ? fmt(from) : `${fmt(from)}-${fmt(to)}`} within noise of the budget`;
}

/**
 * Most measurements of a search by default. Stability retries (up to 3 per level) and the re-measured
 * boundary levels come out of it: a quiet-machine MNIST search used 24 to answer 27 of 32.
 */
export const DEFAULT_MAX_TRIALS = 32;

/** Above a noisy level the search steps up by this share of the level (at least the resolution), doubling. */
const NOISE_STEP = 0.1;

/** A measurement the search judges: the last of a level's attempts (stable, or the attempts ran out). */
interface Judged {
  level: number;
  purpose: Purpose;
  measurement: Measurement;
  misses: Miss[];
}

/** A measured level: its judged measurements in order and their verdict. */
interface Level {
  level: number;
  judged: Judged[];
  verdict: Verdict;
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

/** The measured levels, ascending, each with its verdict. */
function levels(all: readonly Judged[]): Level[] {
  const byLevel = new Map<number, Judged[]>();
  for (const j of all) byLevel.set(j.level, [...(byLevel.get(j.level) ?? []), j]);
  return [...byLevel.entries()]
    .sort(([a], [b]) => a - b)
    .map(([level, list]) => {
      const missed = list.filter((j) => j.misses.length > 0).length;
      const verdict: Verdict = missed === 0 ? 'within' : missed === list.length ? 'outside' : 'ambiguous';
      return { level, judged: list, verdict };
    });
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

/** One missed check in words, e.g. "p95 21.30 ms (budget 20 ms)". */
function missWords(m: Measurement, miss: Miss, budget: SearchBudget): string {
  const bound = (n: number | undefined) => (n ?? 0).toLocaleString('en-US', { maximumFractionDigits: 3 });
  switch (miss) {
    case 'errors':
      return `errors ${(m.error_rate * 100).toFixed(2)}% (budget < ${(budget.error_rate * 100).toFixed(2)}%)`;
    case 'p95':
    case 'p99': {
      const value = miss === 'p95' ? m.p95_ms : m.p99_ms;
      return `${miss} ${value.toFixed(2)} ms (budget ${bound(miss === 'p95' ? budget.p95_ms : budget.p99_ms)} ms)`;
    }
    case 'ttft':
      return `TTFT p95 ${m.genai!.ttft_p95_ms.toFixed(2)} ms (budget ${bound(budget.ttft_p95_ms)} ms)`;
    case 'itl':
      return `ITL p95 ${m.genai!.itl_p95_ms.toFixed(2)} ms (budget ${bound(budget.itl_p95_ms)} ms)`;
    case 'goodput':
      return `goodput: ${((m.genai!.good_fraction ?? 0) * 100).toFixed(1)}% of requests met every SLO (needs ${GOODPUT_FRACTION * 100}%)`;
  }
}

function missText(m: Measurement, list: Miss[], budget: SearchBudget): string {
  return list.map((miss) => missWords(m, miss, budget)).join(', ');
}

/** How often a level was measured, as the limit sentences say it: "", " twice", " 3 times". */
function times(level: Level): string {
  const n = level.judged.length;
  return n === 1 ? '' : n === 2 ? ' twice' : ` ${n} times`;
}

/** The last measurement of a level that missed the budget (its last one, when none did). */
function lastMiss(level: Level): Judged {
  const missed = level.judged.filter((j) => j.misses.length > 0);
  return missed[missed.length - 1] ?? level.judged[level.judged.length - 1]!;
}

/** Decides the limit of an answer from the level within budget and the first one outside it. */
function limitOf(
  config: SearchConfig,
  best: Judged | undefined,
  above: Level | undefined,
  outOfTrials: boolean,
): Pick<Answer, 'limit' | 'limit_detail'> {
  const miss = above ? lastMiss(above) : undefined;
  const bound = [best, miss].filter((j) => j?.measurement.generator_bound).map((j) => j!.level);
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
      limit_detail: `the number of measurements: all ${config.maxTrials ?? DEFAULT_MAX_TRIALS} were used (raise --max-levels to search on)`,
    };
  if (!above || !miss) {
    return {
      limit: 'ceiling',
      limit_detail: `the search's ceiling ${fmt(config.max)} (raise --max to search higher)`,
    };
  }
  const kind = miss.misses.every((m) => m === 'errors') ? 'errors' : 'budget';
  const missed = above.judged.length === 1 ? '' : ` (missed${times(above)})`;
  return {
    limit: kind,
    limit_detail: `${kind === 'errors' ? 'errors' : miss.measurement.genai ? 'the SLOs' : 'the latency budget'} at ${fmt(above.level)}${missed}: ${missText(miss.measurement, miss.misses, config.budget)}`,
  };
}

/** What the search knows: the measured levels, the answer so far and the lowest miss. */
interface State {
  levels: Level[];
  /** The highest level within budget in every measurement below `hi`. */
  lo: Level | undefined;
  /** The lowest level that missed the budget at least once. */
  hi: Level | undefined;
}

function stateOf(config: SearchConfig, trials: readonly Trial[]): State {
  const list = levels(judged(trials, config.budget));
  const hi = list.find((l) => l.verdict !== 'within');
  const below = list.filter((l) => l.verdict === 'within' && (hi === undefined || l.level < hi.level));
  return { levels: list, lo: below[below.length - 1], hi };
}

/** Where the walk above the answer ended: the lowest level outside the budget, and the noise below it. */
interface WalkEnd {
  above: Level | undefined;
  noise: number[];
}

/** The next level up from a noisy level `from`, the `nth` noisy level in a row; undefined at the ceiling. */
function stepUp(config: SearchConfig, from: number, nth: number): number | undefined {
  if (from >= config.max) return undefined;
  const base = Math.max(config.resolution.absolute, config.resolution.relative * from, NOISE_STEP * from);
  const least = config.mode === 'concurrency' ? 1 : 0.1;
  const next = Math.max(roundLevel(config, from + base * 2 ** (nth - 1)), roundLevel(config, from + least));
  return Math.min(next, config.max);
}

/**
 * Walks the levels above the answer upward: a level that missed every time twice or more ends it (`above`),
 * one that missed once is measured again, and a noisy one (ambiguous, or within above a miss) is passed,
 * with a new level measured a step above it unless a measured level is already that close. `final` measures
 * nothing: a single miss ends the walk, and so does the last measured level.
 */
function walk(config: SearchConfig, state: State, final: boolean): Step | WalkEnd {
  const upper = state.levels.filter((l) => state.lo === undefined || l.level > state.lo.level);
  const noise: number[] = [];
  for (let i = 0; i < upper.length; i++) {
    const level = upper[i]!;
    if (level.verdict === 'outside') {
      if (level.judged.length >= 2 || final) return { above: level, noise };
      return {
        kind: 'measure',
        level: level.level,
        purpose: 'confirm',
        reason: `${fmt(level.level)} missed once; measure it again to tell noise from the limit`,
      };
    }
    noise.push(level.level);
    if (final) continue;
    const next = stepUp(config, level.level, noise.length);
    const measured = upper[i + 1]?.level;
    if (next !== undefined && (measured === undefined || next < measured)) {
      const within = level.judged.filter((j) => j.misses.length === 0).length;
      const why =
        level.verdict === 'ambiguous'
          ? `within budget in ${within} of ${level.judged.length} measurements`
          : `within budget, above ${fmt(noise[0]!)} that was not every time`;
      return {
        kind: 'measure',
        level: next,
        purpose: 'explore',
        reason: `${fmt(level.level)} was ${why}: within noise of the budget; step up to ${fmt(next)} for a level outside it`,
      };
    }
  }
  return { above: undefined, noise };
}

/** The answer from what was measured. */
function answerOf(config: SearchConfig, trials: readonly Trial[], outOfTrials: boolean): Answer {
  const state = stateOf(config, trials);
  const { lo } = state;
  const end = walk(config, state, true) as WalkEnd;
  const best = lo?.judged[lo.judged.length - 1];
  const above = end.above;
  const aboveMiss = above ? lastMiss(above) : undefined;
  const levelsOfNoise = end.noise;
  const band =
    levelsOfNoise.length === 0
      ? null
      : config.mode === 'concurrency'
        ? {
            from: lo ? lo.level + 1 : levelsOfNoise[0]!,
            to: above ? above.level - 1 : levelsOfNoise[levelsOfNoise.length - 1]!,
          }
        : { from: levelsOfNoise[0]!, to: levelsOfNoise[levelsOfNoise.length - 1]! };
  // No level within budget: the first level measured (the lowest) missed it at least once. When it also
  // held once, it is noise and the limit is the level the walk found outside the budget.
  const first = lo === undefined && levelsOfNoise.length === 0 ? state.hi : undefined;
  const firstMiss = first ? lastMiss(first) : undefined;
  return {
    level: lo?.level ?? null,
    measurement: best?.measurement ?? null,
    above:
      above && aboveMiss
        ? { level: above.level, misses: aboveMiss.misses, measurement: aboveMiss.measurement }
        : null,
    noise: { levels: levelsOfNoise, band },
    ...(first && firstMiss
      ? {
          limit: firstMiss.misses.every((m) => m === 'errors') ? ('errors' as const) : ('budget' as const),
          limit_detail: `the first level, ${fmt(first.level)}, missed it${times(first)}: ${missText(firstMiss.measurement, firstMiss.misses, config.budget)}`,
        }
      : limitOf(config, best, above, outOfTrials)),
    trials: trials.length,
  };
}

/** The next level to measure given the trials so far, or the answer when the search has converged. */
export function nextStep(config: SearchConfig, trials: readonly Trial[]): Step {
  if (!(config.start > 0) || !(config.max >= config.start))
    throw new Error(`capacity search: start ${config.start} must be > 0 and at most max ${config.max}`);
  const step = plan(config, trials);
  // Out of measurements: the answer from what was measured.
  if (step.kind === 'measure' && trials.length >= (config.maxTrials ?? DEFAULT_MAX_TRIALS))
    return { kind: 'done', answer: answerOf(config, trials, true) };
  return step;
}

/** The search's next move with no limit on measurements. */
function plan(config: SearchConfig, trials: readonly Trial[]): Step {
  const attempts = config.attempts ?? 3;
  if (trials.length === 0)
    return { kind: 'measure', level: config.start, purpose: 'explore', reason: 'the first level' };

  const last = trials[trials.length - 1]!;
  if (last.measurement.stable === false && episodeLength(trials) < attempts) {
    return {
      kind: 'measure',
      level: last.measurement.level,
      purpose: 'retry',
      reason: `${fmt(last.measurement.level)} was unstable; measure it again (attempt ${episodeLength(trials) + 1} of ${attempts})`,
    };
  }

  const state = stateOf(config, trials);
  const done = (): Step => ({ kind: 'done', answer: answerOf(config, trials, false) });
  const { lo, hi } = state;
  if (lo === undefined) {
    // Nothing within budget every time: the first level's miss is re-measured like any other, and if it
    // then holds, the walk goes up from it to a level outside the budget.
    const step = walk(config, state, false);
    return 'kind' in step ? step : done();
  }
  const confirmed = lo.judged.some((j) => j.purpose === 'confirm');

  if (hi === undefined) {
    if (lo.level >= config.max) {
      if (confirmed) return done();
      return confirm(lo.level, 'the ceiling is within budget; measure it again to confirm');
    }
    const next = Math.min(
      config.mode === 'concurrency' ? lo.level * 2 : roundLevel(config, lo.level * 2),
      config.max,
    );
    return {
      kind: 'measure',
      level: next,
      purpose: 'explore',
      reason: `${fmt(lo.level)} is within budget; double to ${fmt(next)}`,
    };
  }

  const gap = Math.max(config.resolution.absolute, config.resolution.relative * lo.level);
  if (hi.level - lo.level > gap) {
    const mid = roundLevel(config, (lo.level + hi.level) / 2);
    if (mid > lo.level && mid < hi.level) {
      return {
        kind: 'measure',
        level: mid,
        purpose: 'bisect',
        reason: `${fmt(lo.level)} is within budget and ${fmt(hi.level)} is not; halve the gap`,
      };
    }
  }
  if (!confirmed)
    return confirm(
      lo.level,
      `${fmt(lo.level)} is the highest level within budget below ${fmt(hi.level)}; measure it again to confirm`,
    );
  // The answer holds; now tell the levels above it that missed from noise.
  const step = walk(config, state, false);
  return 'kind' in step ? step : done();
}

function confirm(level: number, reason: string): Step {
  return { kind: 'measure', level, purpose: 'confirm', reason };
}
