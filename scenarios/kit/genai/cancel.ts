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
 * A send picked for cancelling ended as cancelled: it failed at its deadline, which every client names so
 * (k6's and grpc-js's "deadline exceeded", xk6-sse's and the Node runtime's "context deadline exceeded"). One
 * that finished first, or failed for another reason, is scored as any other. Not judged by the clock: a
 * runtime's timer may fire a few ms early on its own event loop's clock.
 */
export function wasCancelled(record: GenerationRecord): boolean {
  return record.error !== undefined && /deadline/i.test(record.error);
}
