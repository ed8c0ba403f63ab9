/** Executor factory and the VU plan (how many VUs to initialize before the test). */
import type { ScenarioConfig } from '../options/scenarios.ts';
import { ConstantArrivalRate, RampingArrivalRate } from './arrival-rate.ts';
import { Executor } from './base.ts';
import type { IterationContext } from './iteration.ts';
import { PerVuIterations, SharedIterations } from './iterations.ts';
import type { VuPool } from './pool.ts';
import { ConstantVus, RampingVus } from './vus.ts';

/** Creates the executor of a scenario. */
export function createExecutor(ctx: IterationContext, pool: VuPool): Executor {
  if (ctx.scenario.config.noWork) return new NoWork(ctx, pool);
  switch (ctx.scenario.config.executor) {
    case 'shared-iterations':
      return new SharedIterations(ctx, pool);
    case 'per-vu-iterations':
      return new PerVuIterations(ctx, pool);
    case 'constant-vus':
      return new ConstantVus(ctx, pool);
    case 'ramping-vus':
      return new RampingVus(ctx, pool);
    case 'constant-arrival-rate':
      return new ConstantArrivalRate(ctx, pool);
    case 'ramping-arrival-rate':
      return new RampingArrivalRate(ctx, pool);
  }
}

/** A scenario the execution segment gives nothing to do: it ends at once, as k6 skips it. */
class NoWork extends Executor {
  protected async execute(): Promise<void> {}
}

/** VUs a scenario needs initialized at its start. */
export function plannedVus(c: ScenarioConfig): number {
  if (c.noWork) return 0;
  switch (c.executor) {
    case 'ramping-vus': {
      const peak = Math.max(c.startVUs, ...c.stages.map((s) => s.target));
      return c.vuTuple ? c.vuTuple.scale(peak) : peak;
    }
    case 'constant-arrival-rate':
    case 'ramping-arrival-rate':
      return c.preAllocatedVUs;
    default:
      return c.vus;
  }
}

/** Longest time a scenario can run (ms), gracefulStop included; iteration executors use maxDuration. */
export function maxScenarioDuration_ms(c: ScenarioConfig): number {
  const stages = c.stages.reduce((a, s) => a + s.duration_ms, 0);
  const body =
    c.executor === 'shared-iterations' || c.executor === 'per-vu-iterations'
      ? c.maxDuration_ms
      : c.executor === 'ramping-vus' || c.executor === 'ramping-arrival-rate'
        ? stages
        : c.duration_ms;
  const rampDown = c.executor === 'ramping-vus' ? c.gracefulRampDown_ms : 0;
  return body + Math.max(c.gracefulStop_ms, rampDown);
}

/**
 * Peak VUs needed at once, given when scenarios start and how long they can last (k6's vus_max); `vusOf`
 * counts a scenario's VUs (default: those initialized at its start).
 */
export function peakPlannedVus(
  scenarios: readonly ScenarioConfig[],
  vusOf: (c: ScenarioConfig) => number = plannedVus,
): number {
  const events: [number, number][] = [];
  for (const c of scenarios) {
    events.push([c.startTime_ms, vusOf(c)]);
    events.push([c.startTime_ms + maxScenarioDuration_ms(c), -vusOf(c)]);
  }
  // Ends sort before starts at the same instant: those VUs are free to reuse.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let peak = 0;
  for (const [, d] of events) {
    cur += d;
    peak = Math.max(peak, cur);
  }
  return peak;
}
