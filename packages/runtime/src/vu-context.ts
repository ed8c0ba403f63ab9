/**
 * The seam between the runtime's engine and its protocol modules (k6/http, k6/net/grpc).
 *
 * VUs interleave on one event loop, so "the current VU" is only known synchronously: the engine
 * calls into a VU (init code, iterations, setup, teardown) through `runInVu(state, fn)`, and each VU
 * requires its own copy of every k6 module, bound to it (`bindToVu`), whose functions set the current
 * VU while they run. A module reads `currentVu()` on entry, before its first await. Node 20's
 * AsyncLocalStorage would follow a VU across awaits instead, but its promise hooks cost every
 * request about 30 us of client CPU (paired runs of the minimal HTTP script at c1); tests that call
 * module functions directly across awaits turn it on with followVuAcrossAwaits().
 */
import type { DialPolicy } from './transport/dial-policy.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClientTls } from './transport/tls-client.ts';

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
  /** insecureSkipTLSVerify and tlsAuth. */
  tls: ClientTls;
  /** k6/http: maxRedirects (unset: 10), batch (20), batchPerHost (6; 0 = no limit), noCookiesReset. */
  http?: HttpOptions;
}

/** The test options k6/http honours besides the ones above. */
export interface HttpOptions {
  /** null when the script does not set it: k6 then follows 10 and warns when a request stops there. */
  maxRedirects: number | null;
  batch: number;
  batchPerHost: number;
  noCookiesReset: boolean;
  /** k6's `throw`: a transport error throws instead of returning a response with `error`. */
  throw: boolean;
  /** k6's `rps`: requests per second across all VUs (unset or 0: no limit). */
  rps?: number;
  /** k6's `noVUConnectionReuse`: a VU's connections are closed between its iterations. */
  noVUConnectionReuse?: boolean;
  /** k6's `hosts`, `blockHostnames` and `blacklistIPs`: where k6/http may dial. */
  dial: DialPolicy;
  /** k6's `httpDebug`: requests and responses dumped to the log. */
  debug: 'off' | 'headers' | 'full';
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
  /** The VU's iteration count so far (-1 before the first): k6/http starts a new cookie jar per iteration. */
  readonly iterationInInstance?: number;
  /** Records samples (the engine adds time and routes them to metrics, thresholds and outputs). */
  emit(samples: Sample[]): void;
  /** Records build(input)'s samples; build runs later, off the VU's path (it must not read mutable state). */
  emitLater<T>(build: (input: T) => Sample[], input: T): void;
  /** Registers a clean-up (close connections) run when the VU is retired or the test ends. */
  onRetire(fn: () => void | Promise<void>): void;
  /**
   * Registers `fn` to run if the running iteration is interrupted (gracefulStop over, the test stopped): k6
   * cancels the VU's context then, which ends the iteration's streams and drops their later events. Returns
   * the function that unregisters it (call it when the stream ends by itself).
   */
  onInterrupt(fn: () => void): () => void;
}

/** The VU whose code runs synchronously now. */
let current: VuState | undefined;
/** Set by followVuAcrossAwaits (tests only). */
let storage: AsyncLocalStorage<VuState> | undefined;

/**
 * Follows the VU across awaits with AsyncLocalStorage, for tests that call module functions directly
 * (the runtime never does: it binds modules to VUs). Costs every promise a hook from then on.
 */
export function followVuAcrossAwaits(): void {
  storage ??= new AsyncLocalStorage<VuState>();
}

/** Runs fn with `state` as the current VU for its synchronous part (and, in tests, across awaits). */
export function runInVu<T>(state: VuState, fn: () => T): T {
  if (storage) return storage.run(state, fn);
  const prev = current;
  current = state;
  try {
    return fn();
  } finally {
    current = prev;
  }
}

/** The VU whose code is running; throws when called outside any VU (a runtime bug, not a user error). */
export function currentVu(): VuState {
  const state = current ?? storage?.getStore();
  if (!state) throw new Error('k6 API called outside a VU context');
  return state;
}

/** The current VU, or undefined outside one. */
export function maybeCurrentVu(): VuState | undefined {
  return current ?? storage?.getStore();
}

/** Where a bound class records the VU that constructed an instance (see ownerVu). */
const OWNER = Symbol('k6-triton.vu');

/**
 * The VU an object of a bound class was made in (k6 objects such as a metric or a gRPC client belong
 * to the VU whose init code made them), else the current VU.
 */
export function ownerVu(object: object): VuState {
  return (object as { [OWNER]?: VuState })[OWNER] ?? currentVu();
}

/** A function that makes `vu` current while it runs synchronously. */
function bindFunction<F extends (...args: never[]) => unknown>(fn: F, vu: VuState): F {
  return function (this: unknown, ...args: never[]) {
    const prev = current;
    current = vu;
    try {
      return fn.apply(this, args);
    } finally {
      current = prev;
    }
  } as F;
}

const isClass = (fn: (...args: never[]) => unknown): boolean =>
  /^class[\s{]/.test(Function.prototype.toString.call(fn));

/**
 * A module namespace (or any value in it) bound to `vu`: functions and getters make it current while
 * they run, classes also mark the objects they construct as the VU's (ownerVu), plain objects are
 * copied with their members bound. Other values (class instances, constants) are shared as they are.
 */
export function bindToVu<T>(value: T, vu: VuState, seen = new Map<unknown, unknown>()): T {
  if (seen.has(value)) return seen.get(value) as T;
  if (typeof value === 'function') {
    const fn = value as unknown as (...args: never[]) => unknown;
    const bound = isClass(fn)
      ? new Proxy(fn, {
          construct(target, args, newTarget) {
            const prev = current;
            current = vu;
            try {
              const object = Reflect.construct(target, args, newTarget) as object;
              // A constructor may return something shared instead (SharedArray's frozen array): not the VU's.
              if (object instanceof target && Object.isExtensible(object))
                Object.defineProperty(object, OWNER, { value: vu });
              return object;
            } finally {
              current = prev;
            }
          },
        })
      : bindFunction(fn, vu);
    seen.set(value, bound);
    return bound as T;
  }
  if (value === null || typeof value !== 'object') return value;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const copy = Object.create(proto) as Record<PropertyKey, unknown>;
  seen.set(value, copy);
  for (const key of Reflect.ownKeys(value)) {
    const d = Object.getOwnPropertyDescriptor(value, key)!;
    if (d.get || d.set) {
      // Getters run on the original object (execution's `this`-free getters read the current VU).
      const get = d.get;
      const set = d.set;
      Object.defineProperty(copy, key, {
        configurable: d.configurable,
        enumerable: d.enumerable,
        ...(get ? { get: bindFunction(() => get.call(value), vu) } : {}),
        ...(set ? { set: bindFunction((v: unknown) => set.call(value, v), vu) } : {}),
      });
    } else {
      Object.defineProperty(copy, key, { ...d, value: bindToVu(d.value, vu, seen) });
    }
  }
  return copy as T;
}
