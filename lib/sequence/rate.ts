/**
 * Sequences at a request rate, as perf_analyzer's request-rate mode with --num-of-sequences: the level's sends
 * (constant spacing, or the paced schedule of ARRIVALS / REQUEST_INTERVALS) are shared by N live sequences, send k
 * going to sequence k mod N. Each sequence is one VU's one iteration for the level's time (options.ts), so its
 * next step waits for its previous answer, as perf_analyzer's --serial-sequences; a send that finds its sequence
 * still waiting goes late and the lag shows as scheduled-start latency. Pure: no k6 imports.
 */
import { arrivalOffsets_ms, CONSTANT_ARRIVALS } from '../load/arrivals.ts';
import { parseLevelName, WARMUP_SUFFIX } from '../load/names.ts';
import type { LevelSchedule } from '../load/pacing.ts';

/** What sendsOf needs from the run plan. */
export interface RateTimes {
  warmup_s: number;
  window_s: number;
  /** A paced level's send times (ARRIVALS, REQUEST_INTERVALS); undefined for constant spacing. */
  levelSchedule(name: string): LevelSchedule | undefined;
}

/** One scenario's sends: ms from its start, and whether they are measured (a level, not its warm-up). */
export interface ScenarioSends {
  offsets_ms: readonly number[];
  measured: boolean;
}

/**
 * The sends of a request-rate scenario by its name: a level's window (its paced schedule, else constant
 * spacing), or its warm-up (constant spacing at the level's rate); undefined for any other scenario.
 */
export function sendsOf(name: string, times: RateTimes): ScenarioSends | undefined {
  const warmup = name.endsWith(WARMUP_SUFFIX);
  const levelName = warmup ? name.slice(0, -WARMUP_SUFFIX.length) : name;
  const level = parseLevelName(levelName);
  if (level?.mode !== 'request-rate') return undefined;
  const constant = (duration_s: number) =>
    arrivalOffsets_ms({ arrivals: CONSTANT_ARRIVALS, rate: level.level, duration_s });
  if (warmup) return { offsets_ms: constant(times.warmup_s), measured: false };
  const paced = times.levelSchedule(levelName);
  return { offsets_ms: paced?.offsets_ms ?? constant(times.window_s), measured: true };
}

/** A cache of sendsOf for the one scenario a VU is in. */
export function scenarioSends(times: RateTimes): (name: string) => ScenarioSends | undefined {
  let cached: { name: string; sends: ScenarioSends | undefined } | undefined;
  return (name) => {
    if (cached?.name !== name) cached = { name, sends: sendsOf(name, times) };
    return cached.sends;
  };
}
