/**
 * Request cancellation (REQUEST_CANCELLATION_RATE, REQUEST_CANCELLATION_DELAY, AIPerf's): which sends are
 * cancelled, and the stream timeout that cancels them on the wire. A stream's own timeout is the one per-stream
 * cancel both k6's k6/net/grpc and xk6-sse give a script: at the deadline the gRPC client resets the stream
 * (the server sees it cancelled) and the SSE client drops its request's connection. Runs inside k6 and on Node.
 */
import type { GenerationRecord } from '../../../lib/genai/metrics.ts';

/** Decides, send by send, whether a send is cancelled. */
export interface CancelPicker {
  next(): boolean;
}

/**
 * An exact share of a VU's sends, spread evenly: send n (from 0) is cancelled when floor((n + 1) x share)
 * passes floor(n x share), so 25% cancels every fourth. Deterministic, so a rerun cancels the same sends.
 */
export function cancelPicker(share: number): CancelPicker {
  let n = 0;
  return {
    next() {
      const pick = share > 0 && Math.floor((n + 1) * share) > Math.floor(n * share);
      n += 1;
      return pick;
    },
  };
}

/** The stream timeout that cancels a request `delay_ms` after its send: whole ms, at least 1 (0 means none). */
export function cancelTimeout(delay_ms: number): string {
  return `${Math.max(1, Math.round(delay_ms))}ms`;
}

/**
 * A send picked for cancelling ended as cancelled: it failed at or after its delay (its deadline). One that
 * finished first, or failed before its delay for another reason, is scored as any other.
 */
export function wasCancelled(record: GenerationRecord, delay_ms: number): boolean {
  if (record.error === undefined || record.done_ms === undefined) return false;
  // Clocks of whole ms (real k6's Date.now) may read a deadline's end up to 2 ms early.
  return record.done_ms - record.sent_ms >= Math.max(1, Math.round(delay_ms)) - 2;
}
