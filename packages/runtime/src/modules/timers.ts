/**
 * `k6/timers` (also the script's global setTimeout/setInterval, program.ts): timers as k6 runs them.
 * A callback runs as its VU; the iteration ends only when its timers are done (k6 waits for its
 * event loop); a timer set after a bare `sleep()` starts when the sleep would have ended (k6's
 * sleep blocks the VU, here it is a debt: vu.ts); interrupting the iteration cancels them.
 */
import { logLine } from '../log.ts';
import { VU } from '../vu.ts';
import { currentVu, runInVu, type VuState } from '../vu-context.ts';

type Callback = (...args: unknown[]) => unknown;

const timerIds = new WeakMap<VU, number>();

/** One pending timer of a VU's iteration (the handle the script gets back). */
class Timer {
  #handle: NodeJS.Timeout | null = null;
  /** k6 numbers a VU's timers from 1, for its warning when one is stopped. */
  readonly id: number;
  constructor(
    readonly vu: VU,
    readonly fn: Callback,
    readonly args: unknown[],
    readonly delay_ms: number,
    readonly repeat: boolean,
  ) {
    this.id = (timerIds.get(vu) ?? 0) + 1;
    timerIds.set(vu, this.id);
    vu.scriptTimers.add(this);
    this.#arm();
  }

  /** Arms the next run, after what is left of the VU's sleep debt. */
  #arm(): void {
    const debt = this.vu.sleepUntil_ms - performance.now();
    this.#handle = globalThis.setTimeout(this.#fire, this.delay_ms + (debt > 0 ? debt : 0));
  }

  readonly #fire = (): void => {
    const vu = this.vu;
    if (!this.repeat) vu.scriptTimers.delete(this);
    let result: unknown;
    try {
      result = runInVu(vu, () => this.fn(...this.args));
    } catch (err) {
      done(vu, err);
      return;
    }
    if (
      result !== null &&
      typeof result === 'object' &&
      typeof (result as PromiseLike<unknown>).then === 'function'
    )
      holdUntil(vu, result as PromiseLike<unknown>);
    if (this.repeat && vu.scriptTimers.has(this)) this.#arm();
    else if (vu.scriptTimers.size === 0) done(vu);
  };

  /** Cancels the timer; `stopped`: the iteration ended under it (k6 warns). */
  cancel(stopped = false): void {
    if (stopped)
      logLine(
        'WARN',
        `${this.repeat ? 'setInterval' : 'setTimeout'} ${this.id} was stopped because the VU iteration was interrupted`,
      );
    if (this.#handle !== null) globalThis.clearTimeout(this.#handle);
    this.#handle = null;
    this.vu.scriptTimers.delete(this);
  }
}

/** Tells the waiting engine the VU's timers are done, or that a callback threw. */
function done(vu: VU, err?: unknown): void {
  const cb = vu.onTimersDone;
  if (err !== undefined) {
    vu.cancelScriptTimers();
    if (cb) cb(err);
    return;
  }
  if (cb && vu.scriptTimers.size === 0) cb();
}

/** Keeps the iteration open until an async callback's promise settles. */
function holdUntil(vu: VU, p: PromiseLike<unknown>): void {
  const release = holdIteration(vu);
  p.then(() => release(), release);
}

/**
 * Keeps the VU's running iteration open until the returned release() is called (k6 ends an iteration only
 * when its event loop is empty: pending callbacks, open WebSockets); release(err) fails the iteration with
 * err. `cancel` runs when the iteration ends under the hold (interrupted, or another callback threw).
 * Outside an iteration (init, setup, teardown) nothing is held.
 */
export function holdIteration(state: VuState, cancel?: () => void): (err?: unknown) => void {
  if (!(state instanceof VU) || state.inInit || state.scenario === null) return () => undefined;
  const vu = state;
  const hold = {
    cancel: () => {
      vu.scriptTimers.delete(hold);
      cancel?.();
    },
  };
  vu.scriptTimers.add(hold);
  return (err?: unknown) => {
    if (!vu.scriptTimers.delete(hold)) return;
    if (err !== undefined) done(vu, err);
    else if (vu.scriptTimers.size === 0) done(vu);
  };
}

function start(fn: unknown, delay: unknown, args: unknown[], repeat: boolean): unknown {
  if (typeof fn !== 'function')
    throw new TypeError(`${repeat ? 'setInterval' : 'setTimeout'}: callback must be a function`);
  const vu = currentVu();
  const ms = Math.max(0, Number(delay) || 0);
  // Outside an iteration (init, setup, teardown, a non-runtime VU): plain timers.
  if (!(vu instanceof VU) || vu.inInit || vu.scenario === null)
    return repeat
      ? globalThis.setInterval(fn as Callback, ms, ...args)
      : globalThis.setTimeout(fn as Callback, ms, ...args);
  return new Timer(vu, fn as Callback, args, ms, repeat);
}

/** k6's setTimeout: runs `fn` once after `delay` ms; the iteration waits for it. */
export function setTimeout(fn: unknown, delay?: unknown, ...args: unknown[]): unknown {
  return start(fn, delay, args, false);
}

/** k6's setInterval: runs `fn` every `delay` ms until cleared; the iteration lasts until then. */
export function setInterval(fn: unknown, delay?: unknown, ...args: unknown[]): unknown {
  return start(fn, delay, args, true);
}

/** Cancels a timer of setTimeout or setInterval (either function clears either, as in browsers). */
export function clearTimeout(handle: unknown): void {
  if (handle instanceof Timer) {
    handle.cancel();
    done(handle.vu);
  } else globalThis.clearTimeout(handle as NodeJS.Timeout);
}

export const clearInterval = clearTimeout;

export default { setTimeout, clearTimeout, setInterval, clearInterval };
