/**
 * What every executor shares: the scenario's stop sequence (stop starting iterations, then
 * interrupt what is still running when gracefulStop runs out), VU activation and the loop that
 * runs iterations back to back on one VU.
 */
import type { ScenarioConfig } from '../options/scenarios.ts';
import type { VU } from '../vu.ts';
import { activateVu, type IterationContext, maybeYield, runIteration } from './iteration.ts';
import type { VuPool } from './pool.ts';

/** Base of the six executors: subclasses implement `execute()`. */
export abstract class Executor {
  /** Set when no new iteration may start. */
  protected stopping = false;
  /** Set when running iterations were interrupted. */
  protected hardStopped = false;
  /** VUs this scenario holds now. */
  protected readonly held = new Set<VU>();
  /** VUs running an iteration now. */
  protected readonly busy = new Set<VU>();
  readonly #timers: NodeJS.Timeout[] = [];
  #resolveStopping: (() => void) | null = null;
  /** Resolves when the scenario stops starting iterations. */
  protected readonly stopped = new Promise<void>((r) => {
    this.#resolveStopping = r;
  });

  constructor(
    protected readonly ctx: IterationContext,
    protected readonly pool: VuPool,
  ) {}

  protected get config(): ScenarioConfig {
    return this.ctx.scenario.config;
  }

  /** Runs the scenario to its end; resolves when every VU is back in the pool. */
  async run(): Promise<void> {
    const off = () => this.interruptNow();
    this.ctx.run.onAbort(off);
    try {
      await this.execute();
    } finally {
      for (const t of this.#timers) clearTimeout(t);
      for (const vu of [...this.held]) this.releaseVu(vu);
    }
  }

  protected abstract execute(): Promise<void>;

  /** Runs fn after `ms` unless the scenario ended first. */
  protected after(ms: number, fn: () => void): void {
    const t = setTimeout(fn, Math.max(0, ms));
    this.#timers.push(t);
  }

  /** Stops starting iterations; interrupts running ones after gracefulStop. */
  protected beginStop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.ctx.scenario.stopping = true;
    this.#resolveStopping?.();
    this.after(this.config.gracefulStop_ms, () => this.interruptNow());
  }

  /** Interrupts every running iteration now (graceful stop over, or the test aborts). */
  interruptNow(): void {
    this.stopping = true;
    this.ctx.scenario.stopping = true;
    this.#resolveStopping?.();
    if (this.hardStopped) return;
    this.hardStopped = true;
    for (const vu of this.busy) vu.interruptIteration();
  }

  /** Takes a VU from the pool for this scenario. */
  protected takeVu(): VU {
    const vu = this.pool.acquire();
    activateVu(vu, this.ctx);
    this.held.add(vu);
    // Every VU a scenario holds is active (k6 activates arrival-rate VUs when they are allocated).
    this.ctx.run.vusActive++;
    return vu;
  }

  /** Gives a VU back to the pool. */
  protected releaseVu(vu: VU): void {
    if (!this.held.delete(vu)) return;
    this.busy.delete(vu);
    this.ctx.run.vusActive--;
    this.pool.release(vu);
  }

  /** One iteration on `vu`, tracked as busy so a hard stop can interrupt it. */
  protected async iterate(vu: VU): Promise<boolean> {
    this.busy.add(vu);
    try {
      const r = runIteration(vu, this.ctx);
      return r === true || r === false ? r : await r;
    } finally {
      this.busy.delete(vu);
    }
  }

  /**
   * Runs iterations back to back on `vu` while `more()` allows and the scenario is not stopping;
   * yields to the event loop regularly so synchronous scripts cannot starve the timers.
   */
  protected async loop(vu: VU, more: () => boolean): Promise<void> {
    // The busy bookkeeping of iterate(), inlined: this loop is the hot path of looping executors.
    const busy = this.busy;
    while (!this.stopping && more()) {
      busy.add(vu);
      const r = runIteration(vu, this.ctx);
      if (r !== true && r !== false) await r;
      busy.delete(vu);
      const y = maybeYield(vu);
      if (y) await y;
    }
  }
}
