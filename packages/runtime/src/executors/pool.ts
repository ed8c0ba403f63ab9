/**
 * The test's VUs: initialized before the test (vus_max), handed to scenarios and returned to
 * the pool when a scenario ends, so VUs are reused between scenarios as in k6. Arrival-rate
 * executors may initialize more VUs mid-test, up to their maxVUs.
 */
import type { Metric } from '../metrics/registry.ts';
import type { TestRun } from '../run-state.ts';
import type { VU } from '../vu.ts';

/**
 * Creates and evaluates one VU (its init context); throws when the init code throws. A VU whose init
 * context awaits comes back with `initializing` set.
 */
export type VuFactory = (id: number) => VU;

/** Idle VUs plus the factory for new ones. */
export class VuPool {
  readonly #idle: VU[] = [];
  readonly all: VU[] = [];
  #nextId = 1;
  /** Set while preallocating: vus_max is sampled once at the end, not per VU. */
  #quiet = false;

  constructor(
    readonly run: TestRun,
    readonly factory: VuFactory,
    readonly vusMax: Metric,
  ) {}

  /** Initializes `n` VUs up front (k6 does this before setup()), one init context after the other. */
  async preallocate(n: number): Promise<void> {
    this.#quiet = true;
    try {
      while (this.all.length < n) {
        const vu = this.#create();
        if (vu.initializing) await vu.initializing;
        this.#idle.push(vu);
      }
    } finally {
      this.#quiet = false;
    }
    this.#sample();
  }

  #sample(): void {
    this.run.pipeline.add(this.vusMax, this.all.length, this.run.options?.tags ?? {});
  }

  #create(): VU {
    const vu = this.factory(this.#nextId++);
    this.all.push(vu);
    this.run.vusInitialized = this.all.length;
    if (!this.#quiet) this.#sample();
    return vu;
  }

  /** An idle VU, initializing a new one when none is idle. */
  acquire(): VU {
    return this.#idle.pop() ?? this.#create();
  }

  /** Whether an idle VU exists without initializing a new one. */
  hasIdle(): boolean {
    return this.#idle.length > 0;
  }

  /** Returns a VU the scenario no longer uses. */
  release(vu: VU): void {
    vu.setScenario(null);
    this.#idle.push(vu);
  }

  /** Retires every VU (closes connections, drops pending timers). */
  async retireAll(): Promise<void> {
    await Promise.allSettled(this.all.map((vu) => vu.retire()));
  }
}
