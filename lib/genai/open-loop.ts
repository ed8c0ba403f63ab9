/**
 * The generative scenario's open loop read back: the words for a level whose generator could not keep its
 * schedule. The pacer (lib/load/pacer.ts) sends each request at its due time and records how late it left; a
 * send that leaves more than LATE_SEND_MS after it waited for a VU: every VU the level may use was busy
 * streaming. Pure; runs inside k6.
 */
import type { LevelResult } from '../summary/types.ts';

/**
 * A send later than this after its due time waited for a VU (all busy: the cap was hit): a free VU sleeps
 * until the send time, and k6's timers wake it within a few ms of it.
 */
export const LATE_SEND_MS = 10;

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
    // A multi-turn level's rate starts sessions: what it got is sessions ended per second.
    const c = r.genai!.conversation;
    const got = c
      ? `${f((c.sessions + c.failed_sessions) / r.window_s)} sessions/s`
      : `${f(r.genai!.requests_per_s)} req/s`;
    return [
      `${r.name}: could not keep up: ${s.late_sends} of ${s.sends} sends left over ${LATE_SEND_MS} ms late${dropped}, ` +
        `${cap}; ${lag}; the server got ${got} of the ${r.level} asked`,
    ];
  });
}
