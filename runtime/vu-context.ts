/**
 * The seam between the runtime's engine and its protocol modules (k6/http, k6/net/grpc).
 *
 * VUs interleave on one event loop, so a module cannot keep "the current VU" in a
 * variable: the engine runs every VU call (init code, iterations, setup, teardown)
 * inside `runInVu(state, fn)`, and modules read `currentVu()` from the async context.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** k6 tags: string keys and values. */
export type Tags = Record<string, string>;

/** One measurement a module hands to the engine; k6's metric names and units (ms for times, bytes for data). */
export interface Sample {
  metric: string;
  value: number;
  tags: Tags;
  /** Wall-clock time of the sample in ms since the epoch; the engine fills it when absent. */
  time?: number;
}

/** Options of the test that protocol modules honour. */
export interface ModuleOptions {
  discardResponseBodies: boolean;
  noConnectionReuse: boolean;
}

/** What a protocol module sees of the VU that called it. */
export interface VuState {
  /** __VU: 1-based, 0 in setup/teardown/handleSummary, as in k6. */
  readonly idInTest: number;
  /** True while the init context (module top level) runs: Client.load and open() are allowed only then. */
  readonly inInit: boolean;
  /** Tags every sample of this VU carries now: test-wide tags, scenario tags, `scenario`, `group`. */
  tags(): Tags;
  readonly options: ModuleOptions;
  /** Records samples (the engine adds time and routes them to metrics, thresholds and outputs). */
  emit(samples: Sample[]): void;
  /** Registers a clean-up (close connections) run when the VU is retired or the test ends. */
  onRetire(fn: () => void | Promise<void>): void;
}

const storage = new AsyncLocalStorage<VuState>();

/** Runs fn with `state` as the current VU for everything it calls, synchronously or not. */
export function runInVu<T>(state: VuState, fn: () => T): T {
  return storage.run(state, fn);
}

/** The VU whose code is running; throws when called outside any VU (a runtime bug, not a user error). */
export function currentVu(): VuState {
  const state = storage.getStore();
  if (!state) throw new Error('k6 API called outside a VU context');
  return state;
}

/** The current VU, or undefined outside one. */
export function maybeCurrentVu(): VuState | undefined {
  return storage.getStore();
}
