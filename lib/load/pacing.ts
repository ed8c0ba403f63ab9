/**
 * Open-loop levels the script paces itself: Poisson or gamma arrivals (ARRIVALS), a recorded schedule
 * (SCHEDULE, SCHEDULE_SPEED) or perf_analyzer's interval file (REQUEST_INTERVALS).
 *
 * Design: k6's constant-arrival-rate starts iteration i at i / rate and cannot draw random gaps, so a paced
 * level is a shared-iterations scenario with one iteration per planned send. Iterations are handed out in
 * order; the VU that takes iteration i looks up send time i in the level's schedule (the same in every VU:
 * the one seeded generator, or the file) and sleeps until it, then sends (pacer.ts). The scheduled-start
 * latency is then measured against that time exactly as for constant-arrival-rate; when every VU is busy (MAX_VUS too
 * low, the server saturated) iteration i starts late and the lag shows there. Runs inside k6: no Node imports.
 */
import { type Arrivals, arrivalOffsets_ms, DEFAULT_ARRIVALS_SEED, parseArrivals } from './arrivals.ts';
import { readOr } from '../settings/read.ts';
import { S } from '../settings/schema.ts';
import {
  intervalOffsets_ms,
  intervalsRate,
  parseRequestIntervals,
  parseScheduleFile,
  type RecordedSchedule,
  scaleSchedule,
} from './schedule-file.ts';

/** How a paced run's send times are made. */
export type Pacing =
  | { kind: 'arrivals'; arrivals: Arrivals; seed: number }
  | { kind: 'schedule'; schedule: RecordedSchedule }
  | { kind: 'intervals'; intervals_us: number[]; source: string };

/** One level's send times, ms from the level's start, and the sample each names (schedules only). */
export interface LevelSchedule {
  offsets_ms: number[];
  payloads?: (number | undefined)[];
}

/** Reads a file's text: k6's open() inside a scenario, readFileSync on Node. */
export type ReadText = (path: string) => string;

type Env = Record<string, string | undefined>;

function setting(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * The pacing the environment asks for, undefined for k6's own constant-arrival-rate (or a closed loop).
 * SCHEDULE and REQUEST_INTERVALS bring their own levels, so neither goes with REQUEST_RATE or CONCURRENCY.
 */
export function pacingFromEnv(env: Env, readText?: ReadText, models?: readonly string[]): Pacing | undefined {
  const arrivals = setting(env, 'ARRIVALS');
  const schedule = setting(env, 'SCHEDULE');
  const intervals = setting(env, 'REQUEST_INTERVALS');
  const given = [
    ['SCHEDULE', schedule],
    ['REQUEST_INTERVALS', intervals],
    ['REQUEST_RATE', setting(env, 'REQUEST_RATE')],
    ['CONCURRENCY', setting(env, 'CONCURRENCY')],
  ].filter(([, value]) => value !== undefined);
  const speed = setting(env, 'SCHEDULE_SPEED');
  if (speed !== undefined && schedule === undefined)
    throw new Error(`SCHEDULE_SPEED="${speed}" is set without SCHEDULE; give SCHEDULE=<file> or drop it`);
  if (schedule !== undefined || intervals !== undefined) {
    if (given.length > 1)
      throw new Error(
        `${given.map(([name]) => name).join(' and ')} are all set; set only one (a file brings its own rate)`,
      );
    if (arrivals !== undefined)
      throw new Error(`ARRIVALS="${arrivals}" does not apply to a file's send times; drop ARRIVALS`);
    if (!readText) throw new Error('schedule files need a file reader here; run through the bench or k6');
    if (schedule !== undefined) {
      const recorded = parseScheduleFile(
        readText(schedule),
        schedule,
        models === undefined ? {} : { models },
      );
      return {
        kind: 'schedule',
        schedule: scaleSchedule(recorded, readOr(env, S.SCHEDULE_SPEED, 1)),
      };
    }
    const path = intervals as string;
    return { kind: 'intervals', intervals_us: parseRequestIntervals(readText(path), path), source: path };
  }
  if (arrivals === undefined) return undefined;
  const parsed = parseArrivals(arrivals);
  if (setting(env, 'REQUEST_RATE') === undefined)
    throw new Error(`ARRIVALS="${arrivals}" needs an open loop; set REQUEST_RATE (e.g. REQUEST_RATE=100)`);
  return parsed.kind === 'constant'
    ? undefined
    : { kind: 'arrivals', arrivals: parsed, seed: readOr(env, S.ARRIVALS_SEED, DEFAULT_ARRIVALS_SEED) };
}

/** Requests per second rounded to what a level name spells (hundredths). */
function roundedRate(rate: number): number {
  return Math.max(0.01, Math.round(rate * 100) / 100);
}

/** The one level a file replays, with its window (a schedule's own span; the interval file loops over it). */
export function fileLevel(pacing: Pacing, window_s: number): { level: number; window_s: number } | undefined {
  if (pacing.kind === 'schedule') {
    const offsets = pacing.schedule.offsets_ms;
    // The window ends one millisecond after the last send, so the last request is inside it.
    const span_s = (offsets[offsets.length - 1]! + 1) / 1000;
    return { level: roundedRate(offsets.length / span_s), window_s: span_s };
  }
  if (pacing.kind === 'intervals')
    return { level: roundedRate(intervalsRate(pacing.intervals_us)), window_s };
  return undefined;
}

/** The send times of one level of a paced run (the same in every VU). */
export function levelSchedule(pacing: Pacing, level: number, window_s: number): LevelSchedule {
  switch (pacing.kind) {
    case 'arrivals':
      return {
        offsets_ms: arrivalOffsets_ms({
          arrivals: pacing.arrivals,
          rate: level,
          duration_s: window_s,
          seed: pacing.seed,
        }),
      };
    case 'schedule':
      return { offsets_ms: pacing.schedule.offsets_ms, payloads: pacing.schedule.payloads };
    case 'intervals':
      return { offsets_ms: intervalOffsets_ms(pacing.intervals_us, window_s) };
  }
}
