/**
 * A run's load plan: the environment (CONCURRENCY, REQUEST_RATE, STEP_DURATION, ...) over the model's
 * default shape, which its catalog entry states (ModelEntry.load). Runs inside k6: no Node imports.
 */
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

/** Closed loop (constant VUs) or open loop (constant arrival rate). */
export type LoadMode = 'concurrency' | 'request-rate';

/** What one run sweeps: resolved from a shape and the environment. */
export interface LoadPlanSettings {
  mode: LoadMode;
  levels: number[];
  warmup_s: number;
  window_s: number;
  stability_pct: number;
}

/** Environment variables the plan reads (k6's __ENV or process.env). */
export type LoadEnv = Record<string, string | undefined>;

function setting(env: LoadEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * Resolves the load plan: env (CONCURRENCY | REQUEST_RATE, STEP_DURATION, WARMUP_DURATION, STABILITY)
 * over a model's default shape (its catalog entry's `load`).
 */
export function loadPlanFromEnv(env: LoadEnv, shape: LoadShape): LoadPlanSettings {
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
  return {
    mode: rate === undefined ? 'concurrency' : 'request-rate',
    levels:
      rate !== undefined
        ? parseLevels('REQUEST_RATE', rate, { integer: false })
        : concurrency !== undefined
          ? parseLevels('CONCURRENCY', concurrency)
          : [...shape.concurrency],
    window_s: stepDuration === undefined ? shape.window_s : parseDuration_s('STEP_DURATION', stepDuration),
    warmup_s:
      warmup === undefined ? shape.warmup_s : parseDuration_s('WARMUP_DURATION', warmup, { allowZero: true }),
    stability_pct:
      stability === undefined ? DEFAULT_STABILITY_PCT : parsePositiveNumber('STABILITY', stability),
  };
}
