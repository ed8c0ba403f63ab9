/**
 * A request's cancellation: the part of AbortSignal the server uses (`aborted`, 'abort' listeners). Unary
 * inferences make one per request; Node's AbortController costs several microseconds to make its signal and, when
 * aborted, builds a DOMException with a stack (grpc-js reports every closed call as cancelled): at concurrency 1
 * that was a tenth of a gRPC round trip (bench/server/RESULTS.md).
 */

/** What a request's cancellation offers its consumers; an AbortSignal is one. */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** A CancelSignal its owner cancels; listeners run once, in the order they were added. */
export class Cancellation implements CancelSignal {
  #aborted = false;
  #listeners: (() => void)[] = [];

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Adds an 'abort' listener (each runs at most once, as with `{ once: true }`). */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.#aborted) this.#listeners.push(listener);
  }

  /** Removes an 'abort' listener. */
  removeEventListener(_type: 'abort', listener: () => void): void {
    const i = this.#listeners.indexOf(listener);
    if (i >= 0) this.#listeners.splice(i, 1);
  }

  /** Cancels: `aborted` turns true and each listener runs once. */
  cancel(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}
