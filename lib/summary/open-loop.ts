/**
 * The open loop's coordinated-omission check, in one wording for the console and report.md: per
 * request-rate level, latency from the scheduled start beside latency from the send, and the iterations
 * the generator dropped. A saturated server behind a generator that fell behind its schedule shows here,
 * where the send latency alone would look fine (perf_analyzer's known gap). Pure.
 */
import { msFixed } from './format.ts';
import type { LevelResult } from './types.ts';

/** Scheduled-start p95 above this multiple of the send p95 means the schedule was not held. */
export const SCHEDULE_LAG_FACTOR = 2;

/** Whether a level fell behind its schedule: iterations dropped or scheduled-start p95 well above send p95. */
export function behindSchedule(result: LevelResult): boolean {
  const scheduled = result.scheduled_latency_us;
  if (result.dropped_iterations > 0) return true;
  return scheduled !== undefined && scheduled.p95 > SCHEDULE_LAG_FACTOR * result.latency_us.p95;
}

/** One console line per request-rate level that measured its scheduled-start latency. */
export function openLoopLines(results: readonly LevelResult[]): string[] {
  const lines: string[] = [];
  for (const result of results) {
    const scheduled = result.scheduled_latency_us;
    if (result.mode !== 'request-rate' || !scheduled) continue;
    const figures =
      `${result.name}: latency from scheduled start p95 ${msFixed(scheduled.p95)} ms, p99 ${msFixed(scheduled.p99)} ms; ` +
      `from send p95 ${msFixed(result.latency_us.p95)} ms, p99 ${msFixed(result.latency_us.p99)} ms; ` +
      `${result.dropped_iterations} dropped iterations`;
    lines.push(
      behindSchedule(result)
        ? `${figures}: the server did not hold ${result.level} req/s; judge it by the scheduled-start figures`
        : figures,
    );
  }
  return lines;
}
