/**
 * perf_analyzer's measurement rules as settings: how many windows a level may take to become stable
 * (MAX_TRIALS, its --max-trials), whether a window is a time span or must hold a number of requests
 * (MEASUREMENT_MODE, MEASUREMENT_REQUEST_COUNT), and whether an inconclusive budget fails the run
 * (ALLOW_INCONCLUSIVE). Pure; runs inside k6 and on Node.
 */
import { type Env, readOr } from '../settings/read.ts';
import { DEFAULTS, MEASUREMENT_MODES, type MeasurementMode, S } from '../settings/schema.ts';
import { DEFAULT_SUB_WINDOWS } from './names.ts';

/** perf_analyzer's default --max-trials: windows measured before a level is called unstable. */
export const DEFAULT_MAX_TRIALS = DEFAULTS.maxTrials;
/** perf_analyzer's default --measurement-request-count. */
export const DEFAULT_MEASUREMENT_REQUEST_COUNT = DEFAULTS.measurementRequestCount;

export { MEASUREMENT_MODES, type MeasurementMode };

/** How a level is measured until its figures can carry a verdict. */
export interface MeasurementRules {
  /** Windows a level may take in all; each pass measures DEFAULT_SUB_WINDOWS of them. */
  max_trials: number;
  mode: MeasurementMode;
  /** count_windows: the fewest requests each window must hold. */
  request_count: number;
  /** Inconclusive budgets print as such but do not fail the run. */
  allow_inconclusive: boolean;
}

/** Reads the rules from the environment (flags reach it as MAX_TRIALS, MEASUREMENT_MODE, ...). */
export function measurementRulesFromEnv(env: Env): MeasurementRules {
  return {
    max_trials: readOr(env, S.MAX_TRIALS, DEFAULT_MAX_TRIALS),
    mode: readOr(env, S.MEASUREMENT_MODE, 'time_windows'),
    request_count: readOr(env, S.MEASUREMENT_REQUEST_COUNT, DEFAULT_MEASUREMENT_REQUEST_COUNT),
    allow_inconclusive: readOr(env, S.ALLOW_INCONCLUSIVE, false),
  };
}

/** Passes of DEFAULT_SUB_WINDOWS windows a level may take within max_trials windows (at least one). */
export function maxPasses(rules: MeasurementRules): number {
  return Math.max(1, Math.floor(rules.max_trials / DEFAULT_SUB_WINDOWS));
}

/**
 * count_windows: the window (seconds) the next pass needs so that each of its windows holds request_count
 * requests, from what the last pass measured (requests in window_s); at least the last window.
 */
export function countWindow_s(rules: MeasurementRules, requests: number, window_s: number): number {
  const needed = rules.request_count * DEFAULT_SUB_WINDOWS;
  if (requests >= needed) return window_s;
  // A fifth more than the rate seen, since the rate itself varies between passes; never a 100x leap at once.
  const scale = requests > 0 ? Math.min(10, (needed / requests) * 1.2) : 10;
  return Math.ceil(window_s * scale * 10) / 10;
}

/** Whether every window of a pass held the requests count_windows asks (time_windows: always). */
export function windowsFull(rules: MeasurementRules, requests: number): boolean {
  return rules.mode === 'time_windows' || requests >= rules.request_count * DEFAULT_SUB_WINDOWS;
}
