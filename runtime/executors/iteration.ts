/**
 * One iteration of one VU: the exec function inside the VU's async context, its sleep debt,
 * errors logged as k6 logs them, iterations/iteration_duration emitted with the VU's tags.
 * The hot path of every executor: no allocation beyond the promise an async iteration needs.
 */
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
  const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
  const fields: Record<string, string> = sc ? { executor: sc.config.executor, scenario: sc.config.name } : {};
  fields['source'] = 'stacktrace';
  logLine('ERRO', text, fields);
}

/** Prepares a VU for iterations of a scenario: its own copy of setup data and the scenario's identity. */
export function activateVu(vu: VU, ctx: IterationContext): void {
  vu.setScenario(ctx.scenario);
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

/** Runs one iteration; resolves true when it completed, false when it was interrupted. */
export async function runIteration(vu: VU, ctx: IterationContext): Promise<boolean> {
  const sc = ctx.scenario;
  const run = ctx.run;
  vu.iterationInScenario++;
  vu.iterationInInstance++;
  vu.iterationInTest = sc.nextIteration++;
  vu.sleepUntil_ms = 0;
  if (vu.group !== run.rootGroup) vu.setGroup(run.rootGroup);
  const fn = vu.exports[sc.config.exec] as (data: unknown) => unknown;
  const start = performance.now();
  let pending: PromiseLike<unknown> | null = null;
  try {
    const r = runInVu(vu, () => fn(vu.data));
    if (r !== null && typeof r === 'object' && typeof (r as { then?: unknown }).then === 'function') {
      pending = r as PromiseLike<unknown>;
    }
  } catch (err) {
    vu.sleepUntil_ms = 0;
    logScriptError(err, sc);
  }
  if (pending !== null || vu.sleepUntil_ms > start) {
    const interrupted = await new Promise<boolean>((resolve) => {
      vu.interrupt = () => resolve(true);
      const settle = () => {
        if (vu.sleepUntil_ms > performance.now()) vu.waitUntil(vu.sleepUntil_ms).then(() => resolve(false));
        else resolve(false);
      };
      if (pending === null) settle();
      else
        pending.then(settle, (err: unknown) => {
          vu.sleepUntil_ms = 0;
          logScriptError(err, sc);
          resolve(false);
        });
    });
    vu.interrupt = null;
    if (interrupted) {
      run.iterationsInterrupted++;
      return false;
    }
  }
  if (run.abortRequest) {
    run.iterationsInterrupted++;
    return false;
  }
  const tags = vu.tags();
  run.pipeline.add(ctx.iterationDuration, performance.now() - start, tags);
  run.pipeline.add(ctx.iterations, 1, tags);
  run.iterationsCompleted++;
  return true;
}
