/**
 * A virtual user: its own instance of the script's module (k6 evaluates the init context per
 * VU), its identity and iteration counters, the tags its samples carry, its sleep debt and
 * the clean-ups protocol modules register. Implements the VuState seam of vu-context.ts.
 */
import type { Group } from './groups.ts';
import type { ScenarioRuntime, TestRun } from './run-state.ts';
import { currentVu, type ModuleOptions, type Sample, type Tags, type VuState } from './vu-context.ts';
import { DEFAULT_CLIENT_TLS } from './transport/tls-client.ts';

const asIs = (samples: Sample[]): Sample[] => samples;

/** A VU; `idInTest` 0 is the VU that reads options and runs setup, teardown and handleSummary. */
export class VU implements VuState {
  inInit = true;
  exports: Record<string, unknown> = {};
  /** Set while an init context that awaits (top-level `await`) has not finished; null after. */
  initializing: Promise<void> | null = null;
  /** The scenario's exec function in this VU's module instance. */
  execFn: (data: unknown) => unknown = () => undefined;
  /** Calls execFn with the VU's data (`this` undefined, as in k6); bound once so an iteration creates no closure. */
  readonly callExec = (): unknown => {
    const fn = this.execFn;
    return fn(this.data);
  };
  /** This VU's copy of setup()'s data (k6 hands every VU its own deserialized copy). */
  data: unknown = undefined;
  dataReady = false;
  scenario: ScenarioRuntime | null = null;
  iterationInInstance = -1;
  #iterationInScenario = -1;
  /** Scenario-wide number of the running iteration (exec.scenario.iterationInTest). */
  iterationInTest = -1;
  group: Group;
  #env: Record<string, string>;
  /** Updates __ITER and __ENV in the script's closure (program.ts); set when the init context runs. */
  #scriptGlobals: ((iteration: number, env: Record<string, string>) => void) | null = null;
  retired = false;
  /** Monotonic time until which `sleep()` calls made so far keep the iteration going. */
  sleepUntil_ms = 0;
  /** Set while an iteration runs: ends it early when the scenario's graceful stop runs out. */
  interrupt: (() => void) | null = null;
  /** Set by exec.test.abort() in this VU: its iteration counts as completed, as in k6. */
  abortedTest = false;
  /** Monotonic time of the VU loop's last yield to the event loop. */
  lastYield_ms = 0;
  options: ModuleOptions;
  /** Tags the script set through exec.vu.tags; they stay until changed, as in k6. */
  readonly customTags: Tags = {};
  /**
   * `exec.vu.metrics.metadata`: key-value pairs every later custom-metric sample of this VU carries to the
   * outputs (--out json/csv), not indexed like tags (k6's place for high-cardinality values such as ids).
   */
  readonly metadata: Record<string, string> = {};
  #tags: Tags | null = null;
  /**
   * The script's timers (k6/timers and the global setTimeout/setInterval) and async callbacks still
   * pending: k6 ends an iteration only when its event loop is empty, so the engine waits for them.
   */
  readonly scriptTimers = new Set<{ cancel(stopped?: boolean): void }>();
  /** Set while the engine waits for scriptTimers: called when they are done, or with a callback's error. */
  onTimersDone: ((err?: unknown) => void) | null = null;
  readonly #retireFns: (() => void | Promise<void>)[] = [];
  readonly #interruptFns = new Set<() => void>();
  readonly #timers = new Set<NodeJS.Timeout>();

  /** The VU's number among this worker's (exec.vu.idInInstance); idInTest is the test's (workers/plan.ts). */
  idInInstance: number;

  constructor(
    readonly idInTest: number,
    readonly run: TestRun,
  ) {
    this.idInInstance = idInTest;
    this.group = run.rootGroup;
    // Each VU gets its own __ENV, as in k6: a script changing it changes only its VU's copy.
    this.#env = { ...run.env };
    this.options = { discardResponseBodies: false, noConnectionReuse: false, tls: DEFAULT_CLIENT_TLS };
  }

  /** The iteration number within the current scenario (-1 before the first); __ITER follows it. */
  get iterationInScenario(): number {
    return this.#iterationInScenario;
  }

  set iterationInScenario(n: number) {
    this.#iterationInScenario = n;
    this.#scriptGlobals?.(Math.max(0, n), this.#env);
  }

  /** This VU's environment (__ENV): the run's, or its scenario's, copied per VU. */
  get env(): Record<string, string> {
    return this.#env;
  }

  /** Called once by the script's closure: how to keep its __ITER and __ENV current. */
  trackScriptGlobals(update: (iteration: number, env: Record<string, string>) => void): void {
    this.#scriptGlobals = update;
    update(Math.max(0, this.#iterationInScenario), this.#env);
  }

  /** The tags of this VU's samples now; one cached object, rebuilt when the scenario or group changes. Do not mutate. */
  tags(): Tags {
    if (this.#tags) return this.#tags;
    const t: Tags = { ...(this.run.options?.tags ?? {}) };
    if (this.scenario) {
      Object.assign(t, this.scenario.tags);
      t['scenario'] = this.scenario.config.name;
    }
    t['group'] = this.group.path;
    Object.assign(t, this.customTags);
    this.#tags = t;
    return t;
  }

  /** Sets (or, with undefined, removes) a VU-level tag, as `exec.vu.tags[name] = value` does. */
  setCustomTag(name: string, value: unknown): void {
    if (value === undefined || value === null) delete this.customTags[name];
    else this.customTags[name] = String(value);
    this.#tags = null;
  }

  /** Moves the VU to another group (k6's group()) or scenario; invalidates the tag cache. */
  setGroup(g: Group): void {
    this.group = g;
    this.#tags = null;
  }

  /** Assigns the VU to a scenario (or none), resetting its per-scenario iteration counter. */
  setScenario(sc: ScenarioRuntime | null): void {
    this.scenario = sc;
    this.#env = { ...(sc ? sc.env : this.run.env) };
    this.iterationInScenario = -1;
    this.#tags = null;
  }

  /** Hands a protocol call's samples to the pipeline, which records them after this turn (defer). */
  emit(samples: Sample[]): void {
    if (this.retired) return;
    this.run.pipeline.defer(asIs, samples);
  }

  /** emit(build(input)), with build run after this turn too: a request's tags and samples are made off its VU's path. */
  emitLater<T>(build: (input: T) => Sample[], input: T): void {
    if (this.retired) return;
    this.run.pipeline.defer(build, input);
  }

  onRetire(fn: () => void | Promise<void>): void {
    this.#retireFns.push(fn);
  }

  onInterrupt(fn: () => void): () => void {
    this.#interruptFns.add(fn);
    return () => void this.#interruptFns.delete(fn);
  }

  /** Runs the interrupt hooks of the iteration's open streams (each once). */
  #runInterruptFns(): void {
    const fns = [...this.#interruptFns];
    this.#interruptFns.clear();
    for (const fn of fns) fn();
  }

  /**
   * k6's sleep(): adds to the VU's sleep debt and returns a thenable. `await sleep(1)` waits;
   * a bare `sleep(1)` (k6 scripts' usual form) still holds the iteration open until the debt
   * is paid, because the engine waits for it before the iteration ends.
   */
  sleep(seconds: number): PromiseLike<void> {
    const now = performance.now();
    const base = this.sleepUntil_ms > now ? this.sleepUntil_ms : now;
    const until = base + Math.max(0, Number(seconds) || 0) * 1000;
    this.sleepUntil_ms = until;
    // A lazy thenable: the timer exists only when the script awaits; a bare sleep() costs nothing.
    // biome-ignore lint/suspicious/noThenProperty: intentionally awaitable
    return { then: (ok, fail) => this.waitUntil(until).then(ok, fail) };
  }

  /** Resolves at monotonic time `until_ms`; never resolves if the VU retires first. */
  waitUntil(until_ms: number): Promise<void> {
    const delay = until_ms - performance.now();
    if (delay <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      // libuv's cached loop time can fire a timer up to ~1ms early: re-arm for the rest, so a
      // sleep never ends before its time (k6's sleep() never does).
      const arm = (ms: number) => {
        const t = setTimeout(() => {
          this.#timers.delete(t);
          const left = until_ms - performance.now();
          if (left > 0) arm(Math.ceil(left));
          else resolve();
        }, ms);
        this.#timers.add(t);
      };
      arm(delay);
    });
  }

  /** Cancels the script's pending timers (the iteration ended: interrupted, or an exception). */
  cancelScriptTimers(): void {
    for (const t of [...this.scriptTimers]) t.cancel(true);
    this.scriptTimers.clear();
    this.onTimersDone = null;
  }

  /** Ends the running iteration now (graceful stop ran out): pending sleeps and timers are dropped. */
  interruptIteration(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.cancelScriptTimers();
    this.#runInterruptFns();
    this.interrupt?.();
  }

  /** Retires the VU: pending sleeps are dropped and module clean-ups (connections) run. */
  async retire(): Promise<void> {
    if (this.retired) return;
    this.retired = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.cancelScriptTimers();
    this.#runInterruptFns();
    this.interrupt?.();
    await Promise.allSettled(this.#retireFns.splice(0).map(async (fn) => fn()));
  }
}

/** The runtime VU whose code runs now; throws outside a VU (a k6 API called from elsewhere). */
export function currentRuntimeVu(): VU {
  const s = currentVu();
  if (!(s instanceof VU)) throw new Error('k6 API called outside a VU of this runtime');
  return s;
}
