/**
 * perf_analyzer's measurement rules as settings: how many windows a level may take to become stable
 * (MAX_TRIALS, its --max-trials), whether a window is a time span or must hold a number of requests
 * (MEASUREMENT_MODE, MEASUREMENT_REQUEST_COUNT), and whether an inconclusive budget fails the run
 * (ALLOW_INCONCLUSIVE). Pure; runs inside k6 and on Node.
 */
import { DEFAULT_SUB_WINDOWS } from './names.ts';

/** perf_analyzer's default --max-trials: windows measured before a level is called unstable. */
export const DEFAULT_MAX_TRIALS = 10;
/** perf_analyzer's default --measurement-request-count. */
export const DEFAULT_MEASUREMENT_REQUEST_COUNT = 50;

/** perf_analyzer's --measurement-mode values. */
export const MEASUREMENT_MODES = ['time_windows', 'count_windows'] as const;
export type MeasurementMode = (typeof MEASUREMENT_MODES)[number];

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

function value(env: Record<string, string | undefined>, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

function wholeNumber(name: string, raw: string, least: number, example: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < least)
    throw new Error(
      `${name}="${raw}" is invalid: expected a whole number >= ${least}, e.g. ${name}=${example}`,
    );
  return n;
}

/** Reads the rules from the environment (flags reach it as MAX_TRIALS, MEASUREMENT_MODE, ...). */
export function measurementRulesFromEnv(env: Record<string, string | undefined>): MeasurementRules {
  const maxTrials = value(env, 'MAX_TRIALS');
  const mode = value(env, 'MEASUREMENT_MODE');
  const count = value(env, 'MEASUREMENT_REQUEST_COUNT');
  const allow = value(env, 'ALLOW_INCONCLUSIVE');
  if (mode !== undefined && !(MEASUREMENT_MODES as readonly string[]).includes(mode))
    throw new Error(
      `MEASUREMENT_MODE="${mode}" is invalid: expected ${MEASUREMENT_MODES.join(' or ')} (perf_analyzer's --measurement-mode)`,
    );
  if (allow !== undefined && !['true', 'false', '1', '0'].includes(allow))
    throw new Error(`ALLOW_INCONCLUSIVE="${allow}" is invalid: expected true or false`);
  return {
    max_trials: maxTrials === undefined ? DEFAULT_MAX_TRIALS : wholeNumber('MAX_TRIALS', maxTrials, 1, '10'),
    mode: (mode as MeasurementMode | undefined) ?? 'time_windows',
    request_count:
      count === undefined
        ? DEFAULT_MEASUREMENT_REQUEST_COUNT
        : wholeNumber('MEASUREMENT_REQUEST_COUNT', count, 1, '50'),
    allow_inconclusive: allow === 'true' || allow === '1',
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
