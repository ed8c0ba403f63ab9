/**
 * The streams a module has open per VU. k6 ends an iteration only once its streams have closed; a module
 * exports `waitForStreams(vu)` (its OpenStreams' wait), which the engine awaits after every iteration.
 */
import type { VuState } from '../vu-context.ts';

/** One module's open streams, per VU. */
export class OpenStreams {
  readonly #open = new WeakMap<VuState, Set<Promise<unknown>>>();

  /** Counts `finished` as an open stream of `vu` until it settles. */
  track(vu: VuState, finished: Promise<unknown>): void {
    let set = this.#open.get(vu);
    if (!set) {
      set = new Set();
      this.#open.set(vu, set);
    }
    set.add(finished);
    // then(f, f), not finally: finally's promise would reject again, unhandled, when the stream failed.
    const remove = () => void set.delete(finished);
    finished.then(remove, remove);
  }

  /** Resolves when every stream `vu` opened so far, and any opened meanwhile, has settled. */
  async wait(vu: VuState): Promise<void> {
    const set = this.#open.get(vu);
    while (set && set.size > 0) await Promise.allSettled([...set]);
  }
}
