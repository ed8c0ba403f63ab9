/**
 * What a sequence model's run plan adds (lib/scenario/run-plan.ts): its settings, checked once where the bench
 * and the scenario resolve the plan, and k6 options for iterations that each run a whole sequence. Pure: no k6
 * imports.
 */
import type { Options } from 'k6/options';
import type { LoadMode } from '../load/shapes.ts';
import { WARMUP_SUFFIX } from '../load/names.ts';
import { SEQUENCE_METRICS } from './loop.ts';
import { checkIdRange } from './plan.ts';
import { readSequenceSettings, type SequenceSettings } from './settings.ts';

/**
 * The options for whole-sequence iterations: a warm-up's iterations get its level's graceful stop (k6 would cut a
 * sequence at the warm-up's end and leave it open on the server), and thresholds fail the run on any out-of-order
 * or orphaned sequence (the options' own thresholds win).
 */
export function withSequenceOptions(options: Options): Options {
  const scenarios = { ...options.scenarios };
  for (const [name, scenario] of Object.entries(scenarios)) {
    const level = name.endsWith(WARMUP_SUFFIX) ? scenarios[name.slice(0, -WARMUP_SUFFIX.length)] : undefined;
    if (level?.gracefulStop) scenarios[name] = { ...scenario, gracefulStop: level.gracefulStop };
  }
  return {
    ...options,
    ...(options.scenarios ? { scenarios } : {}),
    thresholds: {
      [SEQUENCE_METRICS.outOfOrder]: ['count==0'],
      [SEQUENCE_METRICS.orphaned]: ['count==0'],
      ...options.thresholds,
    },
  };
}

/** VUs that may run at once: every scenario's VUs added up (an upper bound; ids are split by it). */
export function vuBound(options: Options): number {
  let total = 0;
  for (const s of Object.values(options.scenarios ?? {})) {
    const v = s as { vus?: number; maxVUs?: number; preAllocatedVUs?: number };
    total += Math.max(v.vus ?? 0, v.maxVUs ?? 0, v.preAllocatedVUs ?? 0, 1);
  }
  return Math.max(1, total);
}

/**
 * A sequence model's settings for a run; throws one line for a bad setting, for request-rate levels (not
 * supported for sequences yet) and for an id range smaller than the VUs that may run at once.
 */
export function sequencePlan(
  modelId: string,
  env: Record<string, string | undefined>,
  mode: LoadMode,
  options: Options,
): SequenceSettings {
  if (mode === 'request-rate') {
    throw new Error(
      `invalid REQUEST_RATE for ${modelId}: sequence models run closed-loop levels; set CONCURRENCY instead`,
    );
  }
  const settings = readSequenceSettings(env);
  checkIdRange(settings, vuBound(options));
  return settings;
}
