/** Iteration-count executors: shared-iterations and per-vu-iterations (both bounded by maxDuration). */
import { Executor } from './base.ts';

/** `iterations` shared by `vus` VUs: each VU takes the next one until none is left. */
export class SharedIterations extends Executor {
  protected async execute(): Promise<void> {
    const c = this.config;
    let taken = 0;
    this.after(c.maxDuration_ms, () => this.beginStop());
    const more = () => {
      if (taken >= c.iterations) return false;
      taken++;
      return true;
    };
    const vus = Array.from({ length: c.vus }, () => this.takeVu());
    await Promise.all(vus.map((vu) => this.loop(vu, more)));
  }
}

/** Each of `vus` VUs runs exactly `iterations` iterations. */
export class PerVuIterations extends Executor {
  protected async execute(): Promise<void> {
    const c = this.config;
    this.after(c.maxDuration_ms, () => this.beginStop());
    const vus = Array.from({ length: c.vus }, () => this.takeVu());
    await Promise.all(
      vus.map((vu) => {
        let done = 0;
        return this.loop(vu, () => done++ < c.iterations);
      }),
    );
  }
}
