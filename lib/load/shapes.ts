/**
 * A run's load plan: the environment (CONCURRENCY, REQUEST_RATE, STEP_DURATION, ...) over the model's
 * default shape, which its catalog entry states (ModelEntry.load). Runs inside k6: no Node imports.
 */
import type { LoadShape } from '../../models/types.ts';
import { parseDuration_s, parseLevels, parsePositiveNumber } from './parse.ts';

export type { LoadShape };

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
