/**
 * Named load shapes: the default levels and windows of each catalog model (ModelEntry.loadShape).
 * Scenarios import a shape by name and never inline stages. Runs inside k6: no Node imports.
 */
import { parseDuration_s, parseLevels, parsePositiveNumber } from './parse.ts';

/** A named default load: closed-loop levels plus the per-level warm-up and measurement window. */
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
/** perf_analyzer's default --stability-percentage. */
export const DEFAULT_STABILITY_PCT = 10;

/** Every named shape; keys match ModelEntry.loadShape in models/catalog.ts. */
export const LOAD_SHAPES = {
  resnext: {
    concurrency: [1, 2, 4, 8, 16, 32],
    window_s: DEFAULT_WINDOW_S,
    warmup_s: DEFAULT_WARMUP_S,
    note: 'seed 000 table rows 1..32 concurrent requests (the table goes on to 256)',
  },
  dlrm: {
    concurrency: [1, 2, 3, 4, 5, 6, 7, 8],
    window_s: DEFAULT_WINDOW_S,
    warmup_s: DEFAULT_WARMUP_S,
    note: 'seed 001: 8 concurrent requests of 4096 samples fit the 20 ms budget on one V100',
  },
  bert: {
    concurrency: [1, 2, 3, 4, 5, 6, 7, 8, 9],
    window_s: DEFAULT_WINDOW_S,
    warmup_s: DEFAULT_WARMUP_S,
    note: 'seed 002: one A100 holds up to 9 concurrent requests under the 100 ms bound',
  },
  mnist: {
    concurrency: [1, 2, 3, 4, 5, 6, 7, 8],
    window_s: DEFAULT_WINDOW_S,
    warmup_s: DEFAULT_WARMUP_S,
    note: 'seed 003: perf_analyzer --concurrency-range 1:8',
  },
  resnet50: {
    concurrency: [2],
    window_s: DEFAULT_WINDOW_S,
    warmup_s: DEFAULT_WARMUP_S,
    note: 'seed 004: 2 client threads, each sending batch-16 requests back to back',
  },
  generic: {
    concurrency: [1, 2, 4, 8],
    window_s: DEFAULT_WINDOW_S,
    warmup_s: DEFAULT_WARMUP_S,
    note: 'any model: doubling concurrency from perf_analyzer default of 1',
  },
} as const satisfies Record<string, LoadShape>;

/** The names a catalog entry may give in loadShape. */
export type LoadShapeName = keyof typeof LOAD_SHAPES;

/** Looks a shape up by name; unknown names fail with the list of known ones. */
export function loadShape(name: string): LoadShape {
  const shape = (LOAD_SHAPES as Record<string, LoadShape>)[name];
  if (!shape) {
    throw new Error(`unknown load shape "${name}"; use one of ${Object.keys(LOAD_SHAPES).join(', ')}`);
  }
  return shape;
}

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
 * over the named shape's defaults.
 */
export function loadPlanFromEnv(env: LoadEnv, shapeName: string): LoadPlanSettings {
  const shape = loadShape(shapeName);
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
