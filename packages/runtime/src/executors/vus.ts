/** VU-count executors: constant-vus and ramping-vus (stages, startVUs, gracefulRampDown). */
import type { Stage } from '../options/scenarios.ts';
import type { VU } from '../vu.ts';
import { Executor } from './base.ts';

/** `vus` VUs loop for `duration`. */
export class ConstantVus extends Executor {
  protected async execute(): Promise<void> {
    const c = this.config;
    this.after(c.duration_ms, () => this.beginStop());
    const vus = Array.from({ length: c.vus }, () => this.takeVu());
    await Promise.all(vus.map((vu) => this.loop(vu, () => true)));
  }
}

/** A change of the VU target at `at_ms` from the scenario start. */
export interface VuStep {
  at_ms: number;
  target: number;
}

/**
 * The VU count over time of ramping-vus: within a stage the count moves one VU at a time at
 * even intervals, reaching the stage's target at the stage's end; a 0s stage jumps at once.
 */
export function rampingVuSteps(startVUs: number, stages: readonly Stage[]): VuStep[] {
  const steps: VuStep[] = [];
  let from = startVUs;
  let t0 = 0;
  for (const st of stages) {
    const diff = st.target - from;
    if (st.duration_ms === 0 || diff === 0) {
      if (diff !== 0) steps.push({ at_ms: t0, target: st.target });
    } else {
      const n = Math.abs(diff);
      const sign = Math.sign(diff);
      for (let i = 1; i <= n; i++)
        steps.push({ at_ms: t0 + (st.duration_ms * i) / n, target: from + sign * i });
    }
    from = st.target;
    t0 += st.duration_ms;
  }
  return steps;
}

interface Slot {
  vu: VU;
  down: boolean;
  done: boolean;
}

/** VUs follow `stages` from `startVUs`; VUs ramped down get gracefulRampDown to finish their iteration. */
export class RampingVus extends Executor {
  protected async execute(): Promise<void> {
    const c = this.config;
    const active: Slot[] = [];
    const loops: Promise<void>[] = [];
    const setTarget = (n: number) => {
      while (active.length < n) {
        const slot: Slot = { vu: this.takeVu(), down: false, done: false };
        active.push(slot);
        loops.push(
          this.loop(slot.vu, () => !slot.down).then(() => {
            slot.done = true;
            this.releaseVu(slot.vu);
          }),
        );
      }
      while (active.length > n) {
        const slot = active.pop()!;
        slot.down = true;
        // The VU finishes its iteration, or is interrupted when gracefulRampDown runs out.
        this.after(c.gracefulRampDown_ms, () => {
          if (!slot.done) slot.vu.interruptIteration();
        });
      }
    };
    // A segment runs its share of the global ramp: at each global step, the tuple's share of its
    // target (k6's striped VU numbers), so the segments' counts add up to the global one at all times.
    const share = (n: number) => (c.vuTuple ? c.vuTuple.scale(n) : n);
    setTarget(share(c.startVUs));
    let last = share(c.startVUs);
    for (const global of rampingVuSteps(c.startVUs, c.stages)) {
      const step = { at_ms: global.at_ms, target: share(global.target) };
      if (step.target === last) continue;
      last = step.target;
      this.after(step.at_ms, () => {
        if (!this.stopping) setTarget(step.target);
      });
    }
    this.after(
      c.stages.reduce((a, s) => a + s.duration_ms, 0),
      () => this.beginStop(),
    );
    await this.stopped;
    await Promise.all(loops);
  }
}
