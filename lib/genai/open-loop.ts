/**
 * The generative scenario's open loop: when each measured request of a request-rate level was due, and the
 * words for a level whose generator could not keep its schedule. Iteration i of a constant-arrival-rate level
 * is due at the scenario's start + i / rate (k6's schedule; a started iteration takes the next slot even after
 * dropped ones, so a generator that fell behind shows it as lag, as scenarios/kit/measured-loop.ts does); of a
 * paced level (Poisson, gamma: lib/load/pacing.ts) at its start + the schedule's i-th send time. A send that
 * leaves more than LATE_SEND_MS after that waited for a VU: every VU the level may use was busy streaming.
 * Pure apart from what it is given; runs inside k6.
 */
import type { LevelSchedule } from '../load/pacing.ts';
import { parseLevelName } from '../load/names.ts';
import type { LevelResult } from '../summary/types.ts';

/**
 * A send later than this after its due time waited for a VU (all busy: the cap was hit): a free VU sleeps
 * until the send time, and k6's timers wake it within a few ms of it.
 */
export const LATE_SEND_MS = 10;

/** The parts of k6/execution the due clock reads. */
export interface DueExecution {
  scenario: { name: string; startTime: number; iterationInTest: number };
}

/**
 * A function giving the current iteration's due time (epoch ms), undefined when a paced level has no send
 * left for it. `schedule` gives a paced level's send times by scenario name; omit it for k6's own pacing.
 */
export function dueClock(
  exec: DueExecution,
  schedule?: (scenario: string) => LevelSchedule | undefined,
): () => number | undefined {
  let scenario = '';
  let offsets: readonly number[] = [];
  let period_ms = 0;
  return () => {
    const { name, startTime, iterationInTest: n } = exec.scenario;
    if (name !== scenario) {
      scenario = name;
      offsets = schedule?.(name)?.offsets_ms ?? [];
      period_ms = 1000 / (parseLevelName(name)?.level ?? Number.POSITIVE_INFINITY);
    }
    if (!schedule) return startTime + n * period_ms;
    return n < offsets.length ? startTime + offsets[n]! : undefined;
  };
}

/** Whether a request-rate level's generator fell behind: sends waited for a VU, or k6 dropped iterations. */
export function couldNotKeepUp(result: LevelResult): boolean {
  const schedule = result.genai?.schedule;
  return result.mode === 'request-rate' && (result.dropped_iterations > 0 || (schedule?.late_sends ?? 0) > 0);
}

/**
 * One line per request-rate level: how far sends lagged their schedule, and when the generator could not keep
 * up, that it could not (vLLM's "could not keep up" case) with what the server got instead of the rate asked.
 */
export function scheduleLines(results: readonly LevelResult[]): string[] {
  const f = (n: number) => n.toFixed(2);
  return results.flatMap((r) => {
    const s = r.genai?.schedule;
    if (r.mode !== 'request-rate' || !s) return [];
    const lag = `send lag p50/p95/max ${f(s.send_lag_ms.p50)}/${f(s.send_lag_ms.p95)}/${f(s.send_lag_ms.max)} ms`;
    if (!couldNotKeepUp(r)) return [`${r.name}: schedule held, ${lag}`];
    const vus = s.vus === undefined ? 'every VU' : s.vus === 1 ? 'its one VU' : `all ${s.vus} VUs`;
    const cap = s.capped ? `${vus} (--max-vus) busy streaming` : `${vus} busy streaming (raise --max-vus)`;
    const dropped = r.dropped_iterations > 0 ? ` and ${r.dropped_iterations} were dropped` : '';
    return [
      `${r.name}: could not keep up: ${s.late_sends} of ${s.sends} sends left over ${LATE_SEND_MS} ms late${dropped}, ` +
        `${cap}; ${lag}; the server got ${f(r.genai!.requests_per_s)} req/s of the ${r.level} asked`,
    ];
  });
}
