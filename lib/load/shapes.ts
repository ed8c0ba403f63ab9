/**
 * A run's load plan: the environment (CONCURRENCY, REQUEST_RATE, STEP_DURATION, ...) over the model's
 * default shape, which its catalog entry states (ModelEntry.load). Runs inside k6: no Node imports.
 */
import { fileLevel, type Pacing, pacingFromEnv, type ReadText } from './pacing.ts';
import { parseDuration_s, parseLevels, parsePositiveNumber } from './parse.ts';

/** A model's default load: closed-loop levels plus the per-level warm-up and measurement window. */
export interface LoadShape {
  /** Concurrency levels (VUs) swept in closed-loop mode, ascending. */
  concurrency: readonly number[];
  /** Measurement window per level, seconds (perf_analyzer's default --measurement-interval is 5000 ms). */
  window_s: number;
  /** Warm-up before each window, seconds; its samples are tagged apart and never judged. */
  warmup_s: number;
  /** Why these levels: the seed figure they reproduce. */
  note: string;
  /**
   * A request's expected duration at low load, seconds, for models whose requests are long (a generative
   * stream): an open-loop level then starts with VUs for the requests it keeps in flight. Unset: short.
   */
  request_s?: number;
}

/** perf_analyzer's default measurement window. */
export const DEFAULT_WINDOW_S = 5;
/** Warm-up per level: long enough for in-flight requests of the previous level to drain. */
export const DEFAULT_WARMUP_S = 2;

/** A load shape with the default window and warm-up. */
export function closedLoop(concurrency: readonly number[], note: string): LoadShape {
  return { concurrency, window_s: DEFAULT_WINDOW_S, warmup_s: DEFAULT_WARMUP_S, note };
}

/** perf_analyzer's default --stability-percentage. */
export const DEFAULT_STABILITY_PCT = 10;

/** Closed loop (constant VUs) or open loop (arrivals at a rate: constant, Poisson, gamma or a file's). */
export type LoadMode = 'concurrency' | 'request-rate';

/** What one run sweeps: resolved from a shape and the environment. */
export interface LoadPlanSettings {
  mode: LoadMode;
  levels: number[];
  warmup_s: number;
  window_s: number;
  stability_pct: number;
  /** Open loop paced by the script (Poisson, gamma, a schedule file); absent: k6's constant-arrival-rate. */
  pacing?: Pacing;
}

/** Environment variables the plan reads (k6's __ENV or process.env). */
export type LoadEnv = Record<string, string | undefined>;

function setting(env: LoadEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * Resolves the load plan: env (CONCURRENCY | REQUEST_RATE [ARRIVALS] | SCHEDULE | REQUEST_INTERVALS,
 * STEP_DURATION, WARMUP_DURATION, STABILITY) over a model's default shape (its catalog entry's `load`).
 * `readText` reads SCHEDULE and REQUEST_INTERVALS files; `models` (catalog id, served name) pick a schedule's lines.
 */
export function loadPlanFromEnv(
  env: LoadEnv,
  shape: LoadShape,
  readText?: ReadText,
  models?: readonly string[],
): LoadPlanSettings {
  const concurrency = setting(env, 'CONCURRENCY');
  const rate = setting(env, 'REQUEST_RATE');
  if (concurrency !== undefined && rate !== undefined) {
    throw new Error(
      `CONCURRENCY="${concurrency}" and REQUEST_RATE="${rate}" are both set; set only one (closed or open loop)`,
    );
  }
  const stepDuration = setting(env, 'STEP_DURATION');
  const warmup = setting(env, 'WARMUP_DURATION');
  const stability = setting(env, 'STABILITY');
  const pacing = pacingFromEnv(env, readText, models);
  const window_s =
    stepDuration === undefined ? shape.window_s : parseDuration_s('STEP_DURATION', stepDuration);
  const file = pacing && fileLevel(pacing, window_s);
  if (file && pacing?.kind === 'schedule' && stepDuration !== undefined)
    throw new Error(
      `STEP_DURATION="${stepDuration}" and SCHEDULE are both set; a schedule's window is its own span, drop STEP_DURATION`,
    );
  const plan: LoadPlanSettings = {
    mode: rate === undefined && !file ? 'concurrency' : 'request-rate',
    levels: file
      ? [file.level]
      : rate !== undefined
        ? parseLevels('REQUEST_RATE', rate, { integer: false })
        : concurrency !== undefined
          ? parseLevels('CONCURRENCY', concurrency)
          : [...shape.concurrency],
    window_s: file ? file.window_s : window_s,
    warmup_s:
      warmup === undefined ? shape.warmup_s : parseDuration_s('WARMUP_DURATION', warmup, { allowZero: true }),
    stability_pct:
      stability === undefined ? DEFAULT_STABILITY_PCT : parsePositiveNumber('STABILITY', stability),
  };
  if (pacing) plan.pacing = pacing;
  return plan;
}
