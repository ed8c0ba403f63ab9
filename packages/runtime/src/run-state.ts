/**
 * State shared by everything in one test run: metrics, groups, options, the open() cache,
 * SharedArrays, instance counters and the abort request. VUs and modules reach it through
 * the current VU, so several runs can coexist in one process (tests, benches).
 */
import { newRootGroup, type Group } from './groups.ts';
import type { SamplePipeline } from './metrics/pipeline.ts';
import type { MetricRegistry } from './metrics/registry.ts';
import type { TestOptions } from './options/index.ts';
import type { ScenarioConfig } from './options/scenarios.ts';
import { SecretSources } from './modules/secret-sources.ts';
import type { VuState } from './vu-context.ts';

export { EXIT } from './exit-codes.ts';

/** A running scenario as VUs and k6/execution see it. */
export interface ScenarioRuntime {
  config: ScenarioConfig;
  /** Wall-clock start, ms since the epoch (exec.scenario.startTime). */
  startTime_epoch_ms: number;
  /** Monotonic start (performance.now()). */
  start_ms: number;
  /** Next scenario-wide iteration number (exec.scenario.iterationInTest). */
  nextIteration: number;
  /** Tags added to every sample of the scenario's VUs. */
  tags: Record<string, string>;
  /** __ENV for the scenario's VUs: the test's env plus the scenario's env. */
  env: Record<string, string>;
  /** Set when the scenario stops starting iterations. */
  stopping: boolean;
}

/** Thrown by test.abort(): the run stops with exit code 108. */
export class TestAbortError extends Error {
  constructor(reason?: string) {
    super(reason ? `test aborted: ${reason}` : 'test aborted');
    this.name = 'TestAbortError';
  }
}

/** Everything one test run shares. */
export class TestRun {
  readonly rootGroup: Group = newRootGroup();
  options: TestOptions | null = null;
  /** Running an archive: its `file` tree, where open() finds an absolute path (k6 reads those from the archive too). */
  fileRoot?: string;
  readonly openCache = new Map<string, { text?: string; binary?: ArrayBuffer; bytes?: Uint8Array }>();
  readonly sharedArrays = new Map<string, readonly unknown[]>();
  /** The secret sources of `--secret-source` (k6/secrets). */
  secrets = new SecretSources(new Map());
  /** Monotonic start of the test (performance.now()), set when scenarios start. */
  start_ms = 0;
  iterationsCompleted = 0;
  iterationsInterrupted = 0;
  vusActive = 0;
  vusInitialized = 0;
  /**
   * What must finish before an iteration ends, besides its promise and sleeps: modules' open work
   * (k6/net/grpc's streams, which keep an iteration alive in k6).
   */
  iterationHooks: ((vu: VuState) => Promise<void>)[] = [];
  /**
   * On one of several workers: the test-wide 0-based index of this worker's k-th VU or iteration
   * (k6's SegmentedIndex), for __VU, exec.vu.idInTest and exec.scenario.iterationInTest; null alone.
   */
  globalIndex: ((k: number) => number) | null = null;
  /** exec.test.fail() was called: the run goes on and ends with exit code 110. */
  markedFailed = false;
  /** Set on the first abort request: the exit code and reason. */
  abortRequest: { code: number; reason: string } | null = null;
  #onAbort: (() => void)[] = [];

  constructor(
    readonly registry: MetricRegistry,
    readonly pipeline: SamplePipeline,
    readonly env: Record<string, string>,
    readonly scriptPath: string,
  ) {}

  /** Asks the engine to stop now (test.abort(), abortOnFail thresholds, SIGINT); the first request wins. */
  requestAbort(code: number, reason: string): void {
    if (this.abortRequest) return;
    this.abortRequest = { code, reason };
    for (const fn of this.#onAbort.splice(0)) fn();
  }

  /** Registers a callback run once when an abort is requested. */
  onAbort(fn: () => void): void {
    if (this.abortRequest) fn();
    else this.#onAbort.push(fn);
  }
}
