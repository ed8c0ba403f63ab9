/**
 * One resolved run plan: everything a benchmark run needs, worked out once from a catalog entry, the
 * environment (k6's __ENV or the bench's flags) and the budget file's text. The scenario inside k6
 * and the bench command on Node both call resolveRunPlan, so they cannot disagree on levels,
 * windows, stability, metric or budgets. Pure: no k6 or Node imports.
 */
import type { Options } from 'k6/options';
import { sequencePlan } from '../../lib/sequence/options.ts';
import type { SequenceSettings } from '../../lib/sequence/settings.ts';
import type { ModelEntry } from '../../models/types.ts';
import {
  type Budget,
  type BudgetLimits,
  type BudgetOverrides,
  budgetOverridesFromEnv,
  budgetThresholds,
  effectiveBudget,
  parseBudget,
} from '../../lib/budget.ts';
import {
  DEFAULT_SUB_WINDOWS,
  errorMetricFor,
  type RequestMetric,
  SUMMARY_TREND_STATS,
  SYSTEM_TAGS,
} from '../../lib/load/names.ts';
import { type LevelSchedule, levelSchedule, type ReadText } from '../../lib/load/pacing.ts';
import {
  type BuildScenariosOptions,
  buildPlan,
  buildRampPlan,
  type LoadPlan,
} from '../../lib/load/scenarios.ts';
import { type LoadOverride, type LoadPlanSettings, loadPlanFromEnv } from '../../lib/load/shapes.ts';
import { type GenerativeSettings, readGenerativeSettings } from '../../lib/genai/settings.ts';
import { type TokenBudget, tokenBudget } from '../../lib/genai/budget.ts';
import { type MeasurementRules, measurementRulesFromEnv } from '../../lib/load/measurement.ts';
import { readSettings, type Settings } from './settings.ts';
import { checkSettings, type Env, given, read, readOr } from '../../lib/settings/read.ts';
import { isConversationWorkload } from '../../lib/genai/conversation.ts';
import { DEFAULTS, S, SETTINGS } from '../../lib/settings/schema.ts';

/** Measured requests validated by default: one in this many. */
export const DEFAULT_VALIDATE_EVERY = DEFAULTS.validateEvery;

/**
 * Warm-up responses each VU validates before its warm-up sends as the measured loop does. Validating every
 * warm-up response kept the Node runtime at 50-85% of a core through the warm-up and into the window's first
 * second, where the measured loop runs at 30-35%: the window opened before V8 had compiled the measured path.
 */
export const WARMUP_CHECKS = 16;

/** Everything a run needs, resolved once. */
export interface RunPlan {
  settings: Settings;
  /** Levels, windows and the stability tolerance. */
  load: LoadPlanSettings;
  /** perf_analyzer's measurement rules: trials until stable, count windows, inconclusive budgets. */
  measurement: MeasurementRules;
  /** k6 scenarios per level and their timetable. */
  plan: LoadPlan;
  metric: RequestMetric;
  errorMetric: string;
  budget: Budget;
  overrides: BudgetOverrides;
  /** The budget in force (the overrides over the file's numbers), worked out once here. */
  limits: BudgetLimits;
  /** A generative budget's TTFT and ITL bounds in force (TTFT_P95_MS, ITL_P95_MS over the file's). */
  tokens: TokenBudget;
  /** k6 options: scenarios, thresholds (budgets and the probes the report reads), tags. */
  options: Options;
  /** 1 in validateEvery measured responses is checked (outputs, labels); 0 checks none, 1 all. */
  validateEvery: number;
  /** Each VU's first this many warm-up responses are checked. */
  warmupChecks: number;
  /** A paced open loop's send times for a level (by its scenario name); undefined for k6's own pacing. */
  levelSchedule(name: string): LevelSchedule | undefined;
  /** A sequence model's settings (lib/sequence/); absent for other models. */
  sequence?: SequenceSettings;
  /** A generative model's request settings (lib/genai/settings.ts); absent for other models. */
  generative?: GenerativeSettings;
}

/** Names of the exported functions the plan's scenarios call. */
export const EXEC = { warmup: 'warmup', measure: 'infer', stats: 'stats' } as const;

/**
 * The exported functions of a model mix's slot (scenarios/mix.ts): MIX_SLOT=1 runs `infer_1`. A model in a
 * mix is told its slot by MIX_SLOT; its scenarios then carry its id (levelName) and call its slot's functions.
 */
export function mixExec(slot: number): { warmup: string; measure: string; stats: string } {
  return {
    warmup: `${EXEC.warmup}_${slot}`,
    measure: `${EXEC.measure}_${slot}`,
    stats: `${EXEC.stats}_${slot}`,
  };
}

/** Most models in a mix: scenarios/mix.ts exports this many slots of functions. */
export const MIX_SLOTS = 8;

/** The mix plan the bench writes (MIX_PLAN) for scenarios/mix.ts: per model, its catalog id and settings. */
export interface MixPlanFile {
  models: { id: string; env: Record<string, string> }[];
}

/** Reads MIX_SLOT: a whole number >= 0, or undefined outside a mix. */
export function mixSlotFromEnv(env: Env): number | undefined {
  return read(env, S.MIX_SLOT);
}

/** Reads VALIDATE_EVERY: a whole number >= 0. */
export function validateEveryFromEnv(env: Env): number {
  return readOr(env, S.VALIDATE_EVERY, DEFAULT_VALIDATE_EVERY);
}

/**
 * Reads MAX_VUS (open loop): the most VUs a request-rate level may use, as perf_analyzer's --max-threads
 * bounds its request-rate workers. Undefined when unset.
 */
export function maxVusFromEnv(env: Env): number | undefined {
  return read(env, S.MAX_VUS);
}

/**
 * A paced level's VUs when MAX_VUS is unset: a quarter second of sends. Every paced VU is started (shared
 * iterations), and each holds the next send it took while it sleeps, so more VUs cost real k6 memory and
 * start-up without sending sooner; responses slower than that show as scheduled-start lag.
 */
function pacedVus(level: number): number {
  return Math.max(2, Math.ceil(level / 4));
}

/**
 * VUs for the requests a level keeps in flight when its requests are long (a generative stream lasts
 * `request_s`): four times rate x duration and two more, so a burst of Poisson or gamma arrivals, or
 * requests slowed by queueing at the server, do not at once leave a send without a VU.
 */
function inFlightVus(level: number, request_s: number): number {
  return Math.ceil(level * request_s * 4) + 2;
}

/**
 * A ramp runs one tensor or generative model alone, single requests: one line for what it does not support.
 * A conversation's turns start in different windows, so its session figures (sessions, their duration) would
 * belong to no one window.
 */
function refuseRamp(entry: ModelEntry, slot: number | undefined, flag: string, conversation: boolean): void {
  const unsupported =
    slot !== undefined
      ? ['a model mix (--mix)', 'ramp one model at a time']
      : entry.payload.kind === 'sequence'
        ? [`a sequence model (${entry.id})`, 'ramps run tensor and generative models only']
        : conversation
          ? [
              'conversations (multi-turn sessions)',
              "a session's turns start in different windows, so its session figures would belong to no one window; ramp single requests, or run conversations at levels (--concurrency, --request-rate)",
            ]
          : undefined;
  if (unsupported) throw new Error(`${flag} is not supported with ${unsupported[0]}; ${unsupported[1]}`);
}

/** Whether a generative run's prompt workload (PAYLOAD, made by the bench) holds multi-turn sessions. */
function isConversationPayload(env: Env, readText: ReadText | undefined): boolean {
  const path = given(env, S.PAYLOAD);
  return path !== undefined && readText !== undefined && isConversationWorkload(readText(path));
}

/** The settings the scenario reads, checked all at once before any is used. */
const SCENARIO_SETTINGS = SETTINGS.filter((s) => s.scope === 'scenario');

/**
 * Resolves the run plan; throws one readable line for each invalid setting (all of them at once), or for a bad
 * budget. `readText` reads the SCHEDULE or REQUEST_INTERVALS file (k6's open() in a scenario, readFileSync on
 * Node); `levels` gives the levels (and window) as numbers over the environment's (capacity, a second pass).
 */
export function resolveRunPlan(
  entry: ModelEntry,
  env: Env,
  budgetJson: string,
  budgetPath: string,
  readText?: ReadText,
  levels?: LoadOverride,
): RunPlan {
  checkSettings(env, SCENARIO_SETTINGS);
  const settings = readSettings(env, entry);
  const load = loadPlanFromEnv(env, entry.load, readText, [entry.id, settings.modelName], levels);
  const { pacing } = load;
  // One level's schedule at a time: a VU keeps only the level it is in.
  let cached: { level: number; schedule: LevelSchedule } | undefined;
  const scheduleAt = (level: number): LevelSchedule | undefined => {
    if (!pacing) return undefined;
    if (cached?.level !== level) cached = { level, schedule: levelSchedule(pacing, level, load.window_s) };
    return cached.schedule;
  };
  const maxVus = maxVusFromEnv(env);
  const slot = mixSlotFromEnv(env);
  const request_s = entry.load.request_s;
  // Long requests: a window starts with VUs for its streams in flight (no VU added mid-window), within MAX_VUS.
  const longVus =
    request_s === undefined
      ? undefined
      : (rate: number) => Math.min(inFlightVus(rate, request_s), maxVus ?? Number.POSITIVE_INFINITY);
  const exec = slot === undefined ? EXEC : mixExec(slot);
  if (load.ramp)
    refuseRamp(
      entry,
      slot,
      load.ramp.mode === 'concurrency' ? 'RAMP (--ramp)' : 'RAMP_RATE (--ramp-rate)',
      entry.payload.kind === 'prompt' && isConversationPayload(env, readText),
    );
  const build = (o: BuildScenariosOptions) => (load.ramp ? buildRampPlan(o, load.ramp) : buildPlan(o));
  const plan = build({
    mode: load.mode,
    levels: load.levels,
    warmup_s: load.warmup_s,
    window_s: load.window_s,
    exec: exec.measure,
    warmupExec: exec.warmup,
    statsExec: exec.stats,
    ...(slot !== undefined ? { model: entry.id } : {}),
    // Open loop: enough VUs that slow responses do not drop iterations before the server saturates,
    // unless MAX_VUS bounds them (then a saturated server shows as dropped iterations and late starts).
    maxVUs:
      maxVus ??
      Math.max(
        Math.ceil(Math.max(...load.levels) * 4),
        request_s === undefined ? 0 : 2 * inFlightVus(Math.max(...load.levels), request_s),
      ),
    // A mix's windows start with half a second of sends' VUs: a stall then adds none mid-window (see RESULTS.md).
    ...(slot !== undefined && maxVus === undefined
      ? { windowPreAllocatedVUs: (rate: number) => Math.ceil(rate / 2) }
      : longVus
        ? { windowPreAllocatedVUs: longVus }
        : {}),
    ...(pacing
      ? {
          paced: (level: number) => ({
            iterations: scheduleAt(level)!.offsets_ms.length,
            vus: maxVus ?? Math.max(pacedVus(level), longVus?.(level) ?? 0),
          }),
        }
      : {}),
  });
  const metric: RequestMetric = settings.protocol === 'grpc' ? 'grpc_req_duration' : 'http_req_duration';
  const budget = parseBudget(budgetJson, budgetPath);
  const overrides = budgetOverridesFromEnv(env);
  const planned: Options = {
    scenarios: plan.scenarios,
    thresholds: budgetThresholds(
      budget,
      plan.levels.map((l) => l.name),
      overrides,
      metric,
      // A ramp's window changes load within itself by design: no stability rule, so no sub-windows.
      { subWindows: load.ramp ? 0 : DEFAULT_SUB_WINDOWS, scheduledLatency: load.mode === 'request-rate' },
    ),
    summaryTrendStats: SUMMARY_TREND_STATS,
    systemTags: SYSTEM_TAGS,
    setupTimeout: '60s',
    tags: { model: settings.modelName, protocol: settings.protocol },
  };
  // A sequence model's iterations run its sequences (scenarios/kit/sequence-loop.ts).
  const sequenced = entry.payload.kind === 'sequence' ? sequencePlan(env, load.mode, planned) : undefined;
  const sequence = sequenced?.settings;
  const options = sequenced?.options ?? planned;
  // Request-rate sequences wait for their send times in the iteration, as a paced level does.
  const timed =
    sequenced && load.mode === 'request-rate'
      ? { ...plan, levels: plan.levels.map((l) => ({ ...l, paced: true })) }
      : plan;
  return {
    settings,
    load,
    measurement: measurementRulesFromEnv(env),
    plan: timed,
    metric,
    errorMetric: errorMetricFor(metric),
    budget,
    overrides,
    limits: effectiveBudget(budget, overrides),
    tokens: tokenBudget(budget, env),
    options,
    // A sequence run checks every echoed step (scenarios/kit/sequence-loop.ts), so its report says so.
    validateEvery: sequence ? 1 : validateEveryFromEnv(env),
    warmupChecks: WARMUP_CHECKS,
    levelSchedule: (name) => {
      const level = plan.levels.find((l) => l.name === name);
      return level ? scheduleAt(level.level) : undefined;
    },
    ...(sequence ? { sequence } : {}),
    ...(entry.payload.kind === 'prompt' ? { generative: readGenerativeSettings(env, entry.payload) } : {}),
  };
}
