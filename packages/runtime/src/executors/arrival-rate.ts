/**
 * Arrival-rate executors: iterations start on a schedule whatever their duration; a free VU
 * runs each, new VUs are initialized up to maxVUs, and when none is free the iteration is
 * dropped (dropped_iterations), as k6 does.
 */
import { EXIT } from '../exit-codes.ts';
import type { Stage } from '../options/scenarios.ts';
import type { VU } from '../vu.ts';
import { Executor } from './base.ts';

interface Segment {
  start_ms: number;
  duration_ms: number;
  /** Iterations per ms at the segment's start and end. */
  r0: number;
  r1: number;
  /** Iterations started before the segment. */
  n0: number;
}

/** Piecewise-linear rate segments of ramping-arrival-rate (rates per ms). */
export function rateSegments(startRate: number, timeUnit_ms: number, stages: readonly Stage[]): Segment[] {
  const segs: Segment[] = [];
  let r = startRate / timeUnit_ms;
  let t = 0;
  let n = 0;
  for (const st of stages) {
    const r1 = st.target / timeUnit_ms;
    if (st.duration_ms > 0) {
      segs.push({ start_ms: t, duration_ms: st.duration_ms, r0: r, r1, n0: n });
      n += ((r + r1) / 2) * st.duration_ms;
      t += st.duration_ms;
    }
    r = r1;
  }
  return segs;
}

/** When the rate's integral reaches `k` (ms from scenario start; the last stage's end included), or null past it. */
export function iterationTime(segs: readonly Segment[], k: number): number | null {
  for (const s of segs) {
    const span = ((s.r0 + s.r1) / 2) * s.duration_ms;
    if (k <= s.n0 + span + 1e-9) {
      const d = k - s.n0;
      const b = (s.r1 - s.r0) / s.duration_ms;
      if (Math.abs(b) < 1e-15) return s.start_ms + (s.r0 > 0 ? d / s.r0 : 0);
      const tau = (-s.r0 + Math.sqrt(Math.max(0, s.r0 * s.r0 + 2 * b * d))) / b;
      return s.start_ms + tau;
    }
  }
  return null;
}

/** Shared scheduling of both arrival-rate executors. */
abstract class ArrivalRate extends Executor {
  readonly #idle: VU[] = [];
  #allocated = 0;
  #inflight = 0;
  #drained: (() => void) | null = null;

  /** Start time of iteration k, or null when none is left. */
  protected abstract timeOf(k: number): number | null;
  protected abstract duration_ms(): number;

  protected async execute(): Promise<void> {
    const c = this.config;
    for (let i = 0; i < c.preAllocatedVUs; i++) this.#idle.push(this.takeVu());
    this.#allocated = c.preAllocatedVUs;
    const dropped = this.ctx.run.registry.get('dropped_iterations')!;
    const droppedTags = {
      ...(this.ctx.run.options?.tags ?? {}),
      ...this.ctx.scenario.tags,
      scenario: c.name,
    };
    const total = this.duration_ms();
    // With a segment, iteration k of the whole test's schedule is started by the one segment that
    // owns k (k6's striped offsets), so the segments together start the unsegmented schedule.
    const tuple = c.iterationTuple;
    const start = performance.now();
    const owned = (i: number) => {
      while (tuple !== null && !tuple.owns(i)) i++;
      return i;
    };
    let k = owned(0);
    await new Promise<void>((done) => {
      const tick = () => {
        if (this.stopping) return done();
        const elapsed = performance.now() - start;
        let t = this.timeOf(k);
        while (t !== null && t <= elapsed && t < total) {
          if (!this.#startOne()) this.ctx.run.pipeline.add(dropped, 1, droppedTags);
          k = owned(k + 1);
          t = this.timeOf(k);
        }
        if (t === null || t >= total) {
          this.after(total - elapsed, done);
          return;
        }
        this.after(t - elapsed, tick);
      };
      tick();
      this.stopped.then(done);
    });
    this.beginStop();
    if (this.#inflight > 0) await new Promise<void>((r) => (this.#drained = r));
  }

  /** Starts one iteration on a free (or newly initialized) VU; false when it must be dropped. */
  #startOne(): boolean {
    let vu = this.#idle.pop();
    if (!vu) {
      if (this.#allocated >= this.config.maxVUs) return false;
      this.#allocated++;
      try {
        vu = this.takeVu();
      } catch (err) {
        // A VU whose init code throws mid-test ends the test, as k6 does (exit 107).
        this.ctx.run.requestAbort(
          EXIT.SCRIPT_EXCEPTION,
          `initializing a VU failed: ${(err as Error).message}`,
        );
        return true;
      }
    }
    const v = vu;
    this.#inflight++;
    this.iterate(v).then(() => {
      this.#idle.push(v);
      if (--this.#inflight === 0) this.#drained?.();
    });
    return true;
  }
}

/** `rate` iterations per `timeUnit` for `duration`. */
export class ConstantArrivalRate extends ArrivalRate {
  protected timeOf(k: number): number | null {
    if (this.config.rate <= 0) return null;
    return (k * this.config.timeUnit_ms) / this.config.rate;
  }
  protected duration_ms(): number {
    return this.config.duration_ms;
  }
}

/** Iteration rate moving linearly through `stages` from `startRate`. */
export class RampingArrivalRate extends ArrivalRate {
  #segs: Segment[] | null = null;
  protected timeOf(k: number): number | null {
    this.#segs ??= rateSegments(this.config.startRate, this.config.timeUnit_ms, this.config.stages);
    // As k6: iteration k starts when k + 1 iterations are due (0 -> 20/s over 1s starts 10, the last at 1s),
    // a moment before the end so that the scheduler, which stops at the end, still starts it.
    const t = iterationTime(this.#segs, k + 1);
    return t === null ? null : Math.min(t, this.duration_ms() - 1e-6);
  }
  protected duration_ms(): number {
    return this.config.stages.reduce((a, s) => a + s.duration_ms, 0);
  }
}
