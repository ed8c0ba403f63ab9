/**
 * What a sequence model's run plan adds (scenarios/kit/run-plan.ts): its settings, checked once where the bench
 * and the scenario resolve the plan, and k6 options for iterations that each run a whole sequence (closed loop)
 * or one live sequence for a level's time (request rate). Pure: no k6 imports.
 */
import type { Options, Scenario } from 'k6/options';
import type { LoadMode } from '../load/shapes.ts';
import { WARMUP_SUFFIX } from '../load/names.ts';
import { SEQUENCE_METRICS } from './names.ts';
import { checkIdRange } from './plan.ts';
import { readSequenceSettings, type SequenceSettings } from './settings.ts';

/**
 * The options for sequence iterations: a warm-up's iterations get its level's graceful stop (k6 would cut a
 * sequence at the warm-up's end and leave it open on the server), and thresholds fail the run on any out-of-order
 * or orphaned sequence (the options' own thresholds win). `sequences` (request-rate levels): each level and
 * warm-up becomes one iteration per live sequence (lib/sequence/rate.ts).
 */
export function withSequenceOptions(options: Options, sequences?: number): Options {
  const scenarios = { ...options.scenarios };
  for (const [name, scenario] of Object.entries(scenarios)) {
    const level = name.endsWith(WARMUP_SUFFIX) ? scenarios[name.slice(0, -WARMUP_SUFFIX.length)] : undefined;
    const stopped = level?.gracefulStop ? { ...scenario, gracefulStop: level.gracefulStop } : scenario;
    scenarios[name] = sequences === undefined ? stopped : sequenceScenario(stopped, sequences);
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

/**
 * A request-rate level (or warm-up) as N live sequences: one VU and one iteration per sequence for the level's
 * time, each sending its share of the level's sends. A stats probe is left as it is.
 */
function sequenceScenario(scenario: Scenario, sequences: number): Scenario {
  if (scenario.executor !== 'constant-arrival-rate' && scenario.executor !== 'shared-iterations')
    return scenario;
  const { executor, exec, startTime, gracefulStop, tags, env } = scenario;
  const maxDuration = executor === 'constant-arrival-rate' ? scenario.duration : scenario.maxDuration;
  return {
    executor: 'per-vu-iterations',
    vus: sequences,
    iterations: 1,
    maxDuration,
    ...(exec !== undefined ? { exec } : {}),
    ...(startTime !== undefined ? { startTime } : {}),
    ...(gracefulStop !== undefined ? { gracefulStop } : {}),
    ...(tags !== undefined ? { tags } : {}),
    ...(env !== undefined ? { env } : {}),
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
 * A sequence model's settings and k6 options for a run; throws one line for a bad setting, for more live
 * sequences than ids and for an id range smaller than the VUs that may run at once.
 */
export function sequencePlan(
  env: Record<string, string | undefined>,
  mode: LoadMode,
  planned: Options,
): { settings: SequenceSettings; options: Options } {
  const settings = readSequenceSettings(env);
  if (mode === 'request-rate' && settings.sequences > settings.idCount) {
    throw new Error(
      `invalid NUM_OF_SEQUENCES=${settings.sequences}: more live sequences than the ${settings.idCount} ids of SEQUENCE_ID_RANGE; widen the range or lower NUM_OF_SEQUENCES`,
    );
  }
  const options = withSequenceOptions(planned, mode === 'request-rate' ? settings.sequences : undefined);
  checkIdRange(settings, vuBound(options));
  return { settings, options };
}
