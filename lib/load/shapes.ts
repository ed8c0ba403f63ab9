/**
 * A run's load plan: the environment (CONCURRENCY, REQUEST_RATE, STEP_DURATION, ...) over the model's
 * default shape, which its catalog entry states (ModelEntry.load). Runs inside k6: no Node imports.
 */
import { DEFAULT_RAMP_WINDOWS, type Ramp, rampWindowLevels } from './ramp.ts';
import { fileLevel, type Pacing, pacingFromEnv, type ReadText } from './pacing.ts';
import { type Env, given, read, readOr } from '../settings/read.ts';
import { DEFAULTS, S } from '../settings/schema.ts';

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
export const DEFAULT_STABILITY_PCT = DEFAULTS.stability_pct;

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
  /** A ramp (RAMP or RAMP_RATE, RAMP_DURATION): its windows are the levels (lib/load/ramp.ts). */
  ramp?: Ramp;
}

/** Environment variables the plan reads (k6's __ENV or process.env). */
export type LoadEnv = Env;

/** Levels and a window given as numbers, over the environment's: capacity's levels, a later pass's window. */
export interface LoadOverride {
  levels?: { mode: LoadMode; levels: readonly number[] };
  window_s?: number;
}

/**
 * Resolves the load plan: env (CONCURRENCY | REQUEST_RATE [ARRIVALS] | SCHEDULE | REQUEST_INTERVALS,
 * STEP_DURATION, WARMUP_DURATION, STABILITY) over a model's default shape (its catalog entry's `load`).
 * `readText` reads SCHEDULE and REQUEST_INTERVALS files; `models` (catalog id, served name) pick a schedule's
 * lines; `override` replaces the levels (and window) the environment gives with numbers, parsed by no one.
 */
export function loadPlanFromEnv(
  env: LoadEnv,
  shape: LoadShape,
  readText?: ReadText,
  models?: readonly string[],
  override?: LoadOverride,
): LoadPlanSettings {
  const given_ = override?.levels;
  // Given levels replace the environment's, so neither level variable counts; an open loop still paces.
  const levelEnv: LoadEnv = given_
    ? { ...env, CONCURRENCY: undefined, REQUEST_RATE: given_.mode === 'request-rate' ? 'given' : undefined }
    : env;
  const concurrency = given(levelEnv, S.CONCURRENCY);
  const rate = given(levelEnv, S.REQUEST_RATE);
  if (concurrency !== undefined && rate !== undefined) {
    throw new Error(
      `CONCURRENCY="${concurrency}" and REQUEST_RATE="${rate}" are both set; set only one (closed or open loop)`,
    );
  }
  const stepDuration = given(env, S.STEP_DURATION);
  const pacing = pacingFromEnv(levelEnv, readText, models);
  const window_s = override?.window_s ?? readOr(env, S.STEP_DURATION, shape.window_s);
  const file = pacing && fileLevel(pacing, window_s);
  if (file && pacing?.kind === 'schedule' && stepDuration !== undefined)
    throw new Error(
      `STEP_DURATION="${stepDuration}" and SCHEDULE are both set; a schedule's window is its own span, drop STEP_DURATION`,
    );
  const plan: LoadPlanSettings = {
    mode: given_?.mode ?? (rate === undefined && !file ? 'concurrency' : 'request-rate'),
    levels: given_
      ? [...given_.levels]
      : file
        ? [file.level]
        : (read(env, S.REQUEST_RATE) ?? read(env, S.CONCURRENCY) ?? [...shape.concurrency]),
    window_s: file ? file.window_s : window_s,
    warmup_s: readOr(env, S.WARMUP_DURATION, shape.warmup_s),
    stability_pct: readOr(env, S.STABILITY, DEFAULT_STABILITY_PCT),
  };
  if (pacing) plan.pacing = pacing;
  const ramp = rampFromEnv(env, plan.window_s);
  if (ramp) {
    const other = [
      ['CONCURRENCY', concurrency],
      ['REQUEST_RATE', rate],
      ['SCHEDULE', env['SCHEDULE']],
      ['REQUEST_INTERVALS', env['REQUEST_INTERVALS']],
      ['ARRIVALS', env['ARRIVALS'] === 'constant' ? undefined : env['ARRIVALS']],
    ].find(([, v]) => v !== undefined && v !== '');
    const name = ramp.mode === 'request-rate' ? 'RAMP_RATE' : 'RAMP';
    if (other || given_)
      throw new Error(
        `${name} and ${other?.[0] ?? 'given levels'} are both set; a ramp gives its own levels, drop ${other?.[0] ?? name}`,
      );
    plan.ramp = ramp;
    plan.mode = ramp.mode;
    plan.levels = rampWindowLevels(ramp, plan.window_s);
  }
  return plan;
}

/** Reads RAMP or RAMP_RATE, and RAMP_DURATION (default: DEFAULT_RAMP_WINDOWS windows); undefined without a ramp. */
export function rampFromEnv(env: LoadEnv, window_s: number): Ramp | undefined {
  const vus = read(env, S.RAMP);
  const rate = read(env, S.RAMP_RATE);
  if (vus && rate)
    throw new Error('RAMP and RAMP_RATE are both set; ramp VUs (closed loop) or a rate (open loop)');
  const given_ = vus ?? rate;
  if (!given_) {
    if (given(env, S.RAMP_DURATION) !== undefined)
      throw new Error(
        'RAMP_DURATION is set without RAMP or RAMP_RATE; set RAMP=from:to or RAMP_RATE=from:to',
      );
    return undefined;
  }
  return {
    mode: vus ? 'concurrency' : 'request-rate',
    ...given_,
    duration_s: readOr(env, S.RAMP_DURATION, DEFAULT_RAMP_WINDOWS * window_s),
  };
}
