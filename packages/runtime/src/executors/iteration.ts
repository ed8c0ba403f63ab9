/**
 * One iteration of one VU: the exec function inside the VU's async context, its sleep debt,
 * errors logged as k6 logs them, iterations/iteration_duration emitted with the VU's tags.
 * The hot path of every executor: no allocation beyond the promise an async iteration needs.
 */
import { mapStack } from '../loader/source-map.ts';
import { thrownFrames } from '../loader/thrown.ts';
import { logLine } from '../log.ts';
import type { Metric } from '../metrics/registry.ts';
import { type ScenarioRuntime, TestAbortError, type TestRun } from '../run-state.ts';
import type { VU } from '../vu.ts';
import { runInVu } from '../vu-context.ts';

/** What an executor needs to run iterations of its scenario. */
export interface IterationContext {
  run: TestRun;
  scenario: ScenarioRuntime;
  /** setup()'s return value as JSON (undefined when there is no setup or it returned nothing). */
  setupJson: string | undefined;
  iterations: Metric;
  iterationDuration: Metric;
}

/** Logs an exception thrown by script code the way k6 does (the iteration ends, the test goes on). */
export function logScriptError(err: unknown, sc: ScenarioRuntime | null): void {
  if (err instanceof TestAbortError) return;
  // A thrown value that is not an Error has the frames the loader recorded where it was thrown (thrown.ts).
  const frames = err instanceof Error ? undefined : thrownFrames(err);
  const text =
    err instanceof Error
      ? mapStack(err.stack ?? err.message)
      : frames
        ? mapStack(`${String(err)}\n${frames}`)
        : String(err);
  const fields: Record<string, string> = sc
    ? { executor: sc.config.executor, hint: 'script exception', scenario: sc.config.name }
    : { hint: 'script exception' };
  fields['source'] = 'stacktrace';
  logLine('ERRO', text, fields);
}

/** Prepares a VU for iterations of a scenario: its own copy of setup data and the scenario's identity. */
export function activateVu(vu: VU, ctx: IterationContext): void {
  vu.setScenario(ctx.scenario);
  const exec = ctx.scenario.config.exec;
  vu.execFn = vu.exports[exec] as (data: unknown) => unknown;
  // A VU added mid-test whose init context awaits: its first iteration waits for the init to finish.
  if (vu.initializing) {
    const init = vu.initializing;
    vu.execFn = async (data) => {
      await init;
      const fn = vu.exports[exec] as (data: unknown) => unknown;
      vu.execFn = fn;
      return fn(data);
    };
  }
  if (!vu.dataReady) {
    vu.data = ctx.setupJson === undefined ? undefined : JSON.parse(ctx.setupJson);
    vu.dataReady = true;
  }
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Yields to the event loop when the VU has run synchronously for a while, so timers still fire. */
export function maybeYield(vu: VU): Promise<void> | undefined {
  const now = performance.now();
  if (now - vu.lastYield_ms < 10) return undefined;
  vu.lastYield_ms = now;
  return yieldToLoop();
}

/**
 * Waits for one VU's asynchronous iteration (its promise, then its sleep debt) or its interruption.
 * One per VU, with callbacks bound once: an iteration allocates its promise and nothing else.
 */
class IterationWaiter {
  #resolve: ((completed: boolean) => void) | null = null;
  #pending: PromiseLike<unknown> | null = null;
  sc: ScenarioRuntime | null = null;

  constructor(readonly vu: VU) {}

  /** Resolves true when the iteration completed (sleep debt paid), false when it was interrupted. */
  wait(pending: PromiseLike<unknown> | null, sc: ScenarioRuntime): Promise<boolean> {
    this.#pending = pending;
    this.sc = sc;
    return new Promise<boolean>(this.#start);
  }

  readonly #start = (resolve: (completed: boolean) => void): void => {
    this.#resolve = resolve;
    this.vu.interrupt = this.#interrupt;
    const p = this.#pending;
    this.#pending = null;
    if (p === null) this.#settle();
    else p.then(this.#settle, this.#fail);
  };

  readonly #finish = (completed: boolean): void => {
    const r = this.#resolve;
    if (r === null) return;
    this.#resolve = null;
    this.vu.interrupt = null;
    r(completed);
  };

  readonly #interrupt = (): void => {
    // The interrupted iteration keeps running in the background (JS cannot be cancelled) and will
    // still call this waiter's callbacks when it ends: retire the waiter, so that late completion
    // cannot end the VU's next iteration early. The VU's next iteration gets a fresh waiter.
    if (waiters.get(this.vu) === this) waiters.delete(this.vu);
    this.#finish(false);
  };
  readonly #done = (): void => this.#finish(true);

  readonly #settle = (): void => {
    const vu = this.vu;
    if (vu.scriptTimers.size > 0) {
      vu.onTimersDone = this.#timersDone;
      return;
    }
    if (vu.sleepUntil_ms > performance.now()) {
      vu.waitUntil(vu.sleepUntil_ms).then(this.#afterSleep);
      return;
    }
    this.#afterSleep();
  };

  /** Last, what modules keep open (grpc streams): k6 ends an iteration only when they are done. */
  readonly #afterSleep = (): void => {
    const hooks = this.vu.run.iterationHooks;
    if (hooks.length === 0) this.#finish(true);
    else if (hooks.length === 1) hooks[0]!(this.vu).then(this.#done, this.#fail);
    else Promise.all(hooks.map((h) => h(this.vu))).then(this.#done, this.#fail);
  };

  /** The script's timers are done (their callbacks may have slept or set more: settle again), or one threw. */
  readonly #timersDone = (err?: unknown): void => {
    this.vu.onTimersDone = null;
    if (err === undefined) this.#settle();
    else this.#fail(err);
  };

  readonly #fail = (err: unknown): void => {
    logScriptError(err, this.sc);
    this.vu.cancelScriptTimers();
    // k6's sleep() blocks, so sleeps made before the exception were slept: the debt stays.
    const vu = this.vu;
    if (vu.sleepUntil_ms > performance.now()) vu.waitUntil(vu.sleepUntil_ms).then(this.#done);
    else this.#finish(true);
  };
}

const waiters = new WeakMap<VU, IterationWaiter>();

function countIteration(vu: VU, ctx: IterationContext, start: number): boolean {
  const run = ctx.run;
  // k6 counts the iteration that called exec.test.abort(); the others an abort cuts are interrupted.
  if (run.abortRequest && !vu.abortedTest) {
    run.iterationsInterrupted++;
    return false;
  }
  vu.abortedTest = false;
  const tags = vu.tags();
  run.pipeline.add(ctx.iterationDuration, performance.now() - start, tags);
  run.pipeline.add(ctx.iterations, 1, tags);
  run.iterationsCompleted++;
  return true;
}

async function finishAsync(
  vu: VU,
  ctx: IterationContext,
  start: number,
  pending: PromiseLike<unknown> | null,
) {
  let waiter = waiters.get(vu);
  if (!waiter) {
    waiter = new IterationWaiter(vu);
    waiters.set(vu, waiter);
  }
  if (!(await waiter.wait(pending, ctx.scenario)) && !vu.abortedTest) {
    ctx.run.iterationsInterrupted++;
    return false;
  }
  return holdMinimum(vu, ctx, start, countIteration(vu, ctx, start));
}

/**
 * k6's minIterationDuration: a completed iteration shorter than it waits out the rest (after its
 * iteration_duration sample, which does not include the wait, as in k6); a stop ends the wait.
 */
function holdMinimum(
  vu: VU,
  ctx: IterationContext,
  start: number,
  counted: boolean,
): boolean | Promise<boolean> {
  const min = ctx.run.options?.minIterationDuration_ms ?? 0;
  if (!counted || min <= 0 || performance.now() >= start + min) return counted;
  return new Promise<boolean>((resolve) => {
    const done = () => {
      if (vu.interrupt === done) vu.interrupt = null;
      resolve(true);
    };
    vu.interrupt = done;
    vu.waitUntil(start + min).then(done);
  });
}

/**
 * Runs one iteration: true when it completed, false when it was interrupted. A synchronous
 * iteration without sleep returns its result at once; otherwise a promise of it.
 */
export function runIteration(vu: VU, ctx: IterationContext): boolean | Promise<boolean> {
  const sc = ctx.scenario;
  vu.iterationInScenario++;
  vu.iterationInInstance++;
  const k = sc.nextIteration++;
  vu.iterationInTest = ctx.run.globalIndex === null ? k : ctx.run.globalIndex(k);
  vu.sleepUntil_ms = 0;
  if (vu.group !== ctx.run.rootGroup) vu.setGroup(ctx.run.rootGroup);
  const start = performance.now();
  let pending: PromiseLike<unknown> | null = null;
  try {
    const r = runInVu(vu, vu.callExec);
    if (r !== null && typeof r === 'object' && typeof (r as { then?: unknown }).then === 'function') {
      pending = r as PromiseLike<unknown>;
    }
  } catch (err) {
    // The sleep debt stays: k6's sleep() blocks, so sleeps before the throw were slept.
    logScriptError(err, sc);
    vu.cancelScriptTimers();
  }
  if (
    pending !== null ||
    vu.sleepUntil_ms > start ||
    vu.scriptTimers.size > 0 ||
    ctx.run.iterationHooks.length > 0
  ) {
    return finishAsync(vu, ctx, start, pending);
  }
  return holdMinimum(vu, ctx, start, countIteration(vu, ctx, start));
}
