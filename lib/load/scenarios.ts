/**
 * Builds k6 `options.scenarios` for a sweep: per level a warm-up scenario, a measurement scenario and an
 * optional server-statistics probe, one level after another (k6 thresholds cover a whole scenario, so
 * one scenario per level gives per-level summaries and budgets). Runs inside k6: no Node imports.
 */
import type { Scenario } from 'k6/options';
import { formatDuration_ms } from '../duration.ts';
import { levelName, MIX_MEASURE_PHASE, statsName, warmupName } from './names.ts';
import { RAMP_SCENARIO, type Ramp, rampWindowLevels } from './ramp.ts';
import type { LoadMode } from './shapes.ts';

/** Options of buildPlan / buildScenarios. */
export interface BuildScenariosOptions {
  mode: LoadMode;
  /** Concurrency (VUs) or request rate (req/s) per level, in the order they run. */
  levels: readonly number[];
  /** Warm-up per level, seconds; 0 skips the warm-up scenario. */
  warmup_s: number;
  /** Measurement window per level, seconds. */
  window_s: number;
  /** Exported function the measurement scenarios run. */
  exec: string;
  /** Exported function the warm-up scenarios run (e.g. one that validates every response). @default exec */
  warmupExec?: string;
  /** Exported function of the `<level>_stats` probe (1 VU, 1 iteration, sleeps WINDOW_S); omitted = no probe. */
  statsExec?: string;
  /** Open loop: VUs allocated before the level starts. @default ceil(rate / 10), at least 1 */
  preAllocatedVUs?: number;
  /**
   * Open loop: VUs allocated before a measurement window (not its warm-up), for a level's rate. A mix sets it:
   * under the Node runtime a VU added mid-window stalls every request in flight. @default preAllocatedVUs
   */
  windowPreAllocatedVUs?: (rate: number) => number;
  /** Open loop: most VUs k6 may add when responses are slow. @default max(preAllocatedVUs, ceil(rate)) */
  maxVUs?: number;
  /** Idle seconds between one level's window and the next level's warm-up. @default 0 */
  gap_s?: number;
  /**
   * Seconds in-flight iterations get to finish after a window ends. They finish during the next level's
   * warm-up, whose samples are not judged. @default max(warmup_s + gap_s, 1)
   */
  gracefulStop_s?: number;
  /**
   * Open loop paced by the script (lib/load/pacing.ts): per level, the planned sends and the VUs that
   * carry them. Its measurement scenarios are shared-iterations; warm-ups stay constant-arrival-rate.
   */
  paced?: (level: number) => { iterations: number; vus: number };
  /** Offset of the first level, seconds (e.g. after a setup probe). @default 0 */
  startTime_s?: number;
  /** Extra environment for every scenario. */
  env?: Record<string, string>;
  /** A model mix's model: its id leads every scenario name (levelName) and tags every scenario `model`. */
  model?: string;
}

/** Where one level sits in the run. */
export interface PlannedLevel {
  name: string;
  mode: LoadMode;
  level: number;
  /** When the measurement window starts, seconds from the test start. */
  start_s: number;
  window_s: number;
  /** The script paces the sends (lib/load/pacing.ts): iterations include the wait for each send time. */
  paced?: boolean;
}

/** A built sweep: the scenarios, the level timetable and the total duration. */
export interface LoadPlan {
  scenarios: Record<string, Scenario>;
  levels: PlannedLevel[];
  /** Seconds until the last window ends plus its graceful stop. */
  total_s: number;
}

/** Seconds the stats probe may overrun its window (two statistics requests) before k6 stops it. */
const STATS_SLACK_S = 5;

/** Whole-number rate per time unit: k6's arrival rate is an integer, so 2.5/s becomes 5 per 2s. */
function arrivalRate(rate: number): { rate: number; timeUnit: string } {
  for (const unit_s of [1, 2, 4, 5, 10, 100, 1000]) {
    const scaled = rate * unit_s;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-9)
      return { rate: Math.round(scaled), timeUnit: `${unit_s}s` };
  }
  return { rate: Math.round(rate * 1000), timeUnit: '1000s' };
}

function validate(options: BuildScenariosOptions): void {
  if (options.levels.length === 0)
    throw new Error('buildScenarios: levels is empty; give at least one level');
  for (const level of options.levels) {
    if (!(level > 0)) throw new Error(`buildScenarios: level ${level} must be greater than 0`);
    if (options.mode === 'concurrency' && !Number.isInteger(level)) {
      throw new Error(`buildScenarios: concurrency ${level} must be a whole number of VUs`);
    }
  }
  if (!(options.window_s > 0)) throw new Error(`buildScenarios: window_s=${options.window_s} must be > 0`);
  if (!(options.warmup_s >= 0)) throw new Error(`buildScenarios: warmup_s=${options.warmup_s} must be >= 0`);
}

function loadScenario(
  options: BuildScenariosOptions,
  level: number,
  start_s: number,
  duration_s: number,
  gracefulStop_s: number,
  tags: Record<string, string>,
  paced?: { iterations: number; vus: number },
): Scenario {
  if (paced) {
    // Sends after the window are not started (k6 drops them as constant-arrival-rate does its late ones).
    return {
      executor: 'shared-iterations',
      vus: Math.max(1, Math.min(paced.vus, paced.iterations)),
      iterations: Math.max(1, paced.iterations),
      // k6 refuses a maxDuration under 1s; a short replay's sends are all due within its window anyway.
      maxDuration: formatDuration_ms(Math.max(duration_s, 1) * 1000),
      exec: options.exec,
      startTime: formatDuration_ms(start_s * 1000),
      gracefulStop: formatDuration_ms(gracefulStop_s * 1000),
      tags,
      ...(options.env ? { env: { ...options.env } } : {}),
    };
  }
  const common = {
    exec: options.exec,
    startTime: formatDuration_ms(start_s * 1000),
    gracefulStop: formatDuration_ms(gracefulStop_s * 1000),
    duration: formatDuration_ms(duration_s * 1000),
    tags,
    ...(options.env ? { env: { ...options.env } } : {}),
  };
  if (options.mode === 'concurrency') return { executor: 'constant-vus', vus: level, ...common };
  // The default pre-allocation never exceeds an explicit maxVUs: that bound is the user's.
  const preAllocatedVUs =
    options.preAllocatedVUs ?? Math.min(Math.max(1, Math.ceil(level / 10)), options.maxVUs ?? Infinity);
  const maxVUs = Math.max(preAllocatedVUs, options.maxVUs ?? Math.ceil(level));
  return { executor: 'constant-arrival-rate', ...arrivalRate(level), preAllocatedVUs, maxVUs, ...common };
}

/** Plans a sweep: scenarios per level with start times one after another, plus the timetable. */
export function buildPlan(options: BuildScenariosOptions): LoadPlan {
  validate(options);
  const gap_s = options.gap_s ?? 0;
  const gracefulStop_s = options.gracefulStop_s ?? Math.max(options.warmup_s + gap_s, 1);
  const scenarios: Record<string, Scenario> = {};
  const levels: PlannedLevel[] = [];
  let t = options.startTime_s ?? 0;
  let end_s = t;
  for (const level of options.levels) {
    const name = levelName(options.mode, level, options.model);
    const tags = {
      level: String(level),
      mode: options.mode,
      ...(options.model !== undefined ? { model: options.model } : {}),
    };
    if (options.warmup_s > 0) {
      // gracefulStop 0: warm-up iterations still running when the window opens would exceed the level.
      const warmup = { ...options, exec: options.warmupExec ?? options.exec };
      scenarios[warmupName(name)] = loadScenario(warmup, level, t, options.warmup_s, 0, {
        ...tags,
        phase: 'warmup',
      });
    }
    const start_s = t + options.warmup_s;
    const paced = options.mode === 'request-rate' ? options.paced?.(level) : undefined;
    // A mix's measurement windows share a tag: one sub-metric gives the whole mix's latency.
    const measureTags = options.model !== undefined ? { ...tags, phase: MIX_MEASURE_PHASE } : tags;
    const window = options.windowPreAllocatedVUs
      ? { ...options, preAllocatedVUs: options.windowPreAllocatedVUs(level) }
      : options;
    scenarios[name] = loadScenario(
      window,
      level,
      start_s,
      options.window_s,
      gracefulStop_s,
      measureTags,
      paced,
    );
    if (options.statsExec) {
      scenarios[statsName(name)] = {
        executor: 'per-vu-iterations',
        vus: 1,
        iterations: 1,
        exec: options.statsExec,
        startTime: formatDuration_ms(start_s * 1000),
        maxDuration: formatDuration_ms((options.window_s + STATS_SLACK_S) * 1000),
        gracefulStop: '0s',
        tags: { ...tags, phase: 'stats' },
        env: { ...(options.env ?? {}), LEVEL: name, WINDOW_S: String(options.window_s) },
      };
    }
    levels.push({
      name,
      mode: options.mode,
      level,
      start_s,
      window_s: options.window_s,
      ...(paced ? { paced: true } : {}),
    });
    const windowEnd_s = start_s + options.window_s;
    end_s = windowEnd_s + gracefulStop_s;
    // The next warm-up absorbs this level's graceful stop; wait out whatever the warm-up cannot cover.
    t = windowEnd_s + Math.max(gap_s, gracefulStop_s - options.warmup_s);
  }
  return { scenarios, levels, total_s: end_s };
}

/** k6 `options.scenarios` for a sweep (see buildPlan for the timetable and total duration). */
export function buildScenarios(options: BuildScenariosOptions): Record<string, Scenario> {
  return buildPlan(options).scenarios;
}

/** Total seconds a sweep takes, including the last level's graceful stop. */
export function planDuration_s(options: BuildScenariosOptions): number {
  return buildPlan(options).total_s;
}

/**
 * Plans a ramp: a warm-up at its first VUs or rate, then one ramping-vus (or ramping-arrival-rate) scenario, its
 * windows as levels (in order) and a server-statistics probe per window. `options.levels` and `mode` are
 * ignored: the ramp gives them.
 */
export function buildRampPlan(options: BuildScenariosOptions, ramp: Ramp): LoadPlan {
  const window_s = options.window_s;
  const gracefulStop_s = options.gracefulStop_s ?? 1;
  const scenarios: Record<string, Scenario> = {};
  const t0 = options.startTime_s ?? 0;
  const tags = { mode: ramp.mode, ramp: `${ramp.from}:${ramp.to}` };
  const first = { ...options, mode: ramp.mode, exec: options.warmupExec ?? options.exec };
  if (options.warmup_s > 0) {
    scenarios[warmupName(RAMP_SCENARIO)] = loadScenario(first, ramp.from, t0, options.warmup_s, 0, {
      ...tags,
      phase: 'warmup',
    });
  }
  const start_s = t0 + options.warmup_s;
  const stop = formatDuration_ms(gracefulStop_s * 1000);
  const stages = [{ duration: formatDuration_ms(ramp.duration_s * 1000), target: ramp.to }];
  const common = {
    exec: options.exec,
    startTime: formatDuration_ms(start_s * 1000),
    gracefulStop: stop,
    tags,
    ...(options.env ? { env: { ...options.env } } : {}),
  };
  const top = Math.max(ramp.from, ramp.to);
  // Long requests (a generative model's streams) start with VUs for the top rate's streams in flight: real k6
  // drops the iterations due while it adds a VU.
  const preAllocatedVUs =
    options.preAllocatedVUs ??
    options.windowPreAllocatedVUs?.(top) ??
    Math.min(Math.max(1, Math.ceil(top / 10)), options.maxVUs ?? Infinity);
  scenarios[RAMP_SCENARIO] =
    ramp.mode === 'concurrency'
      ? // Iterations of VUs ramped down, and those running at the end, finish within the graceful stop.
        { executor: 'ramping-vus', startVUs: ramp.from, stages, gracefulRampDown: stop, ...common }
      : {
          executor: 'ramping-arrival-rate',
          startRate: ramp.from,
          timeUnit: '1s',
          stages,
          preAllocatedVUs,
          maxVUs: Math.max(preAllocatedVUs, options.maxVUs ?? top),
          ...common,
        };
  const levels: PlannedLevel[] = rampWindowLevels(ramp, window_s).map((level, i) => ({
    name: levelName(ramp.mode, level),
    mode: ramp.mode,
    level,
    start_s: start_s + i * window_s,
    window_s,
  }));
  if (options.statsExec) {
    for (const level of levels) {
      scenarios[statsName(level.name)] = {
        executor: 'per-vu-iterations',
        vus: 1,
        iterations: 1,
        exec: options.statsExec,
        startTime: formatDuration_ms(level.start_s * 1000),
        maxDuration: formatDuration_ms((window_s + STATS_SLACK_S) * 1000),
        gracefulStop: '0s',
        tags: { ...tags, level: String(level.level), phase: 'stats' },
        env: { ...(options.env ?? {}), LEVEL: level.name, WINDOW_S: String(window_s) },
      };
    }
  }
  return { scenarios, levels, total_s: start_s + ramp.duration_s + gracefulStop_s };
}
