/**
 * Runs the continuous-batching scheduler (scheduler.ts) on real time: steps follow one another on an absolute
 * timeline, each timer aimed at the step's planned end, so Node's whole-millisecond timers make a token late
 * by under a millisecond without the lateness adding up over a stream.
 */
import { ContinuousBatcher, type GenerativeTiming, type SequenceRequest } from './scheduler.ts';
import type { CancelSignal } from '../infer/cancel.ts';

/**
 * A step this far behind its planned end restarts the timeline at now; less, and the next steps catch up (a
 * host stall of a few ms, which a GPU would not have, then does not stretch every stream it hits).
 */
const RESYNC_MS = 50;

/** One request's token callback: its index (0 = first) and whether it is the last. */
export type OnToken = (index: number, last: boolean) => void;

interface Waiter {
  onToken: OnToken;
  resolve(): void;
}

/** The generation engine of one model instance. */
export class GenerationEngine {
  readonly #batcher: ContinuousBatcher;
  readonly #waiters = new Map<number, Waiter>();
  #nextId = 1;
  #timer: NodeJS.Timeout | undefined;
  /** The running step's planned end (performance.now() ms); undefined when idle. */
  #stepEnd_ms: number | undefined;

  constructor(timing: GenerativeTiming) {
    this.#batcher = new ContinuousBatcher(timing);
  }

  /**
   * Generates `outputTokens` tokens for a prompt of `inputTokens`, of which `cachedTokens` lead it from the
   * prefix cache (not prefilled); resolves after the last token, or when the signal aborts (the request leaves
   * the batch and frees its KV cache). Throws when the request could never fit the KV cache.
   */
  generate(
    inputTokens: number,
    outputTokens: number,
    onToken: OnToken,
    signal?: CancelSignal,
    cachedTokens = 0,
  ): Promise<void> {
    const request: SequenceRequest = { id: this.#nextId++, inputTokens, outputTokens, cachedTokens };
    this.#batcher.submit(request);
    return new Promise<void>((resolve) => {
      const onAbort = () => {
        this.#batcher.cancel(request.id);
        this.#waiters.delete(request.id);
        resolve();
      };
      this.#waiters.set(request.id, {
        onToken,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      // A request cancelled before it got here leaves at once.
      if (signal?.aborted) onAbort();
      if (this.#stepEnd_ms === undefined) this.#plan(performance.now());
    });
  }

  /** Sequences running now (admitted, not finished nor cancelled). */
  get running(): number {
    return this.#batcher.active;
  }

  /** The scheduler's state now: running and waiting requests, KV cache reserved and its size. */
  state(): { running: number; waiting: number; kvUsed_tokens: number; kvCapacity_tokens: number } {
    const b = this.#batcher;
    return {
      running: b.active,
      waiting: b.waiting,
      kvUsed_tokens: b.kvUsed_tokens,
      kvCapacity_tokens: b.timing.kvCache_tokens,
    };
  }

  /** Stops the timer (the model is unloading); pending requests never finish. */
  close(): void {
    clearTimeout(this.#timer);
    this.#stepEnd_ms = undefined;
  }

  #plan(start_ms: number): void {
    const step = this.#batcher.next();
    if (!step) {
      this.#stepEnd_ms = undefined;
      return;
    }
    const end_ms = start_ms + step.duration_ms;
    this.#stepEnd_ms = end_ms;
    this.#timer = setTimeout(
      () => {
        for (const token of this.#batcher.finish(step)) {
          const waiter = this.#waiters.get(token.id);
          if (!waiter) continue;
          waiter.onToken(token.index, token.last);
          if (token.last) {
            this.#waiters.delete(token.id);
            waiter.resolve();
          }
        }
        const now = performance.now();
        this.#plan(now - end_ms > RESYNC_MS ? now : end_ms);
      },
      Math.max(0, end_ms - performance.now()),
    );
  }
}
