/**
 * Scenario configuration as k6 reads it: the six executors with their defaults, the common
 * options (startTime, gracefulStop, exec, env, tags); the shortcuts are in `shortcuts.ts`.
 */
import { parseDuration_ms } from '@k6-triton/lib/duration.ts';
import type { ExecutionTuple } from './segment.ts';

export type ExecutorName =
  | 'shared-iterations'
  | 'per-vu-iterations'
  | 'constant-vus'
  | 'ramping-vus'
  | 'constant-arrival-rate'
  | 'ramping-arrival-rate';

/** A stage of ramping executors: reach `target` linearly over `duration_ms`. */
export interface Stage {
  duration_ms: number;
  target: number;
}

/** A validated scenario with every default filled in (durations in ms). */
export interface ScenarioConfig {
  name: string;
  executor: ExecutorName;
  startTime_ms: number;
  gracefulStop_ms: number;
  exec: string;
  env: Record<string, string>;
  tags: Record<string, string>;
  vus: number;
  iterations: number;
  duration_ms: number;
  maxDuration_ms: number;
  startVUs: number;
  stages: Stage[];
  gracefulRampDown_ms: number;
  rate: number;
  startRate: number;
  timeUnit_ms: number;
  preAllocatedVUs: number;
  maxVUs: number;
  /** Segmented ramping-vus: the tuple that scales the global ramp's VU count (its stages stay global). */
  vuTuple: ExecutionTuple | null;
  /** Segmented arrival-rate: the tuple that says which of the global iterations this segment starts. */
  iterationTuple: ExecutionTuple | null;
  /** The execution segment leaves this scenario nothing to do (k6 skips it). */
  noWork: boolean;
}

const EXECUTORS: readonly ExecutorName[] = [
  'shared-iterations',
  'per-vu-iterations',
  'constant-vus',
  'ramping-vus',
  'constant-arrival-rate',
  'ramping-arrival-rate',
];

/** Each executor's own fields, in k6's order (its Go structs' JSON fields; inspect prints them so). */
export const KNOWN_KEYS: Record<ExecutorName, readonly string[]> = {
  'shared-iterations': ['vus', 'iterations', 'maxDuration'],
  'per-vu-iterations': ['vus', 'iterations', 'maxDuration'],
  'constant-vus': ['vus', 'duration'],
  'ramping-vus': ['startVUs', 'stages', 'gracefulRampDown'],
  'constant-arrival-rate': ['rate', 'timeUnit', 'duration', 'preAllocatedVUs', 'maxVUs'],
  'ramping-arrival-rate': ['startRate', 'timeUnit', 'stages', 'preAllocatedVUs', 'maxVUs'],
};
const COMMON_KEYS = ['executor', 'startTime', 'gracefulStop', 'exec', 'env', 'tags'];

function int(v: unknown, what: string, dflt: number | undefined, min = 0): number {
  if (v === undefined || v === null) {
    if (dflt === undefined) throw new Error(`invalid scenario option ${what}: it is required`);
    return dflt;
  }
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
    throw new Error(`invalid scenario option ${what}: ${JSON.stringify(v)} (expected an integer >= ${min})`);
  }
  return v;
}

function num(v: unknown, what: string, dflt: number | undefined): number {
  if (v === undefined || v === null) {
    if (dflt === undefined) throw new Error(`invalid scenario option ${what}: it is required`);
    return dflt;
  }
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw new Error(`invalid scenario option ${what}: ${JSON.stringify(v)} (expected a number >= 0)`);
  }
  return v;
}

function dur(v: unknown, what: string, dflt: number | undefined): number {
  if (v === undefined || v === null) {
    if (dflt === undefined) throw new Error(`invalid scenario option ${what}: it is required`);
    return dflt;
  }
  return parseDuration_ms(v, what);
}

function strMap(v: unknown, what: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v))
    throw new Error(`invalid scenario option ${what}: expected an object`);
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) out[k] = String(val);
  return out;
}

/** Parses `stages`: [{duration, target}, ...]. */
export function parseStages(v: unknown, what: string): Stage[] {
  if (!Array.isArray(v) || v.length === 0)
    throw new Error(`invalid scenario option ${what}: expected a non-empty array`);
  return v.map((s, i) => {
    if (!s || typeof s !== 'object')
      throw new Error(`invalid scenario option ${what}[${i}]: expected {duration, target}`);
    const st = s as { duration?: unknown; target?: unknown };
    return {
      duration_ms: dur(st.duration, `${what}[${i}].duration`, undefined),
      target: int(st.target, `${what}[${i}].target`, undefined),
    };
  });
}

/** Validates one entry of options.scenarios and fills k6's defaults. */
export function parseScenario(name: string, raw: unknown): ScenarioConfig {
  if (!/^[a-zA-Z0-9_-]+$/.test(name)) {
    throw new Error(`invalid scenario name "${name}": use letters, digits, '_' and '-'`);
  }
  if (!raw || typeof raw !== 'object') throw new Error(`invalid scenario ${name}: expected an object`);
  const r = raw as Record<string, unknown>;
  const executor = r['executor'];
  if (executor === 'externally-controlled') {
    throw new Error(
      `k6 API executor externally-controlled is not supported by the Node runtime; run with k6`,
    );
  }
  if (typeof executor !== 'string' || !EXECUTORS.includes(executor as ExecutorName)) {
    throw new Error(
      `invalid scenario ${name}: unknown executor ${JSON.stringify(executor)} (one of ${EXECUTORS.join(', ')})`,
    );
  }
  const ex = executor as ExecutorName;
  for (const key of Object.keys(r)) {
    if (!COMMON_KEYS.includes(key) && !KNOWN_KEYS[ex].includes(key)) {
      throw new Error(`invalid scenario ${name}: option "${key}" does not apply to executor ${ex}`);
    }
  }
  const p = (k: string) => `${name}.${k}`;
  const isArrival = ex === 'constant-arrival-rate' || ex === 'ramping-arrival-rate';
  const preAllocatedVUs = isArrival ? int(r['preAllocatedVUs'], p('preAllocatedVUs'), undefined) : 0;
  const cfg: ScenarioConfig = {
    name,
    executor: ex,
    startTime_ms: dur(r['startTime'], p('startTime'), 0),
    gracefulStop_ms: dur(r['gracefulStop'], p('gracefulStop'), 30_000),
    exec: r['exec'] === undefined ? 'default' : String(r['exec']),
    env: strMap(r['env'], p('env')),
    tags: strMap(r['tags'], p('tags')),
    vus:
      ex === 'shared-iterations' || ex === 'per-vu-iterations' || ex === 'constant-vus'
        ? int(r['vus'], p('vus'), 1, 1)
        : 0,
    iterations:
      ex === 'shared-iterations' || ex === 'per-vu-iterations'
        ? int(r['iterations'], p('iterations'), 1, 1)
        : 0,
    duration_ms:
      ex === 'constant-vus' || ex === 'constant-arrival-rate'
        ? dur(r['duration'], p('duration'), undefined)
        : 0,
    maxDuration_ms: dur(r['maxDuration'], p('maxDuration'), 600_000),
    startVUs: ex === 'ramping-vus' ? int(r['startVUs'], p('startVUs'), 1) : 0,
    stages:
      ex === 'ramping-vus' || ex === 'ramping-arrival-rate' ? parseStages(r['stages'], p('stages')) : [],
    gracefulRampDown_ms: dur(r['gracefulRampDown'], p('gracefulRampDown'), 30_000),
    rate: ex === 'constant-arrival-rate' ? num(r['rate'], p('rate'), undefined) : 0,
    startRate: ex === 'ramping-arrival-rate' ? num(r['startRate'], p('startRate'), 0) : 0,
    timeUnit_ms: dur(r['timeUnit'], p('timeUnit'), 1000),
    preAllocatedVUs,
    maxVUs: isArrival ? int(r['maxVUs'], p('maxVUs'), preAllocatedVUs) : 0,
    vuTuple: null,
    iterationTuple: null,
    noWork: false,
  };
  if (ex === 'shared-iterations' && cfg.vus > cfg.iterations) {
    throw new Error(
      `invalid scenario ${name}: the number of iterations (${cfg.iterations}) can't be less than the number of VUs (${cfg.vus})`,
    );
  }
  if (cfg.timeUnit_ms <= 0) throw new Error(`invalid scenario option ${p('timeUnit')}: must be > 0`);
  if (isArrival && cfg.maxVUs < cfg.preAllocatedVUs) {
    throw new Error(
      `invalid scenario ${name}: maxVUs (${cfg.maxVUs}) is less than preAllocatedVUs (${cfg.preAllocatedVUs})`,
    );
  }
  if (isArrival && cfg.maxVUs === 0)
    throw new Error(`invalid scenario ${name}: needs preAllocatedVUs or maxVUs > 0`);
  if ((ex === 'constant-vus' || ex === 'constant-arrival-rate') && cfg.duration_ms <= 0) {
    throw new Error(`invalid scenario option ${p('duration')}: must be > 0`);
  }
  return cfg;
}

/**
 * This segment's share of a validated scenario, as k6's executors take it: VU counts scaled by the
 * tuple; shared-iterations' and arrival rates' work split by the tuple re-cut by their VUs (k6's
 * GetNewExecutionTupleFromValue of vus or maxVUs), so 10 VUs and 100 iterations over thirds give 40/30/30.
 */
export function segmentScenario(c: ScenarioConfig, t: ExecutionTuple): ScenarioConfig {
  if (!t.segmented) return c;
  switch (c.executor) {
    case 'shared-iterations': {
      const vus = t.scale(c.vus);
      const iterations = t.resegment(c.vus)?.scale(c.iterations) ?? 0;
      return { ...c, vus, iterations, noWork: vus === 0 || iterations === 0 };
    }
    case 'per-vu-iterations':
    case 'constant-vus': {
      const vus = t.scale(c.vus);
      return { ...c, vus, noWork: vus === 0 };
    }
    case 'ramping-vus': {
      const peak = Math.max(c.startVUs, ...c.stages.map((s) => s.target));
      return { ...c, vuTuple: t, noWork: t.scale(peak) === 0 };
    }
    case 'constant-arrival-rate':
    case 'ramping-arrival-rate': {
      const maxVUs = t.scale(c.maxVUs);
      return {
        ...c,
        preAllocatedVUs: t.scale(c.preAllocatedVUs),
        maxVUs,
        iterationTuple: t.resegment(c.maxVUs),
        noWork: maxVUs === 0,
      };
    }
  }
}
