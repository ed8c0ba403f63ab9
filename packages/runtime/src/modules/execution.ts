/** `k6/execution`: the running VU, scenario, instance and test, read from the current VU. */
import { EXIT } from '../exit-codes.ts';
import { logLine } from '../log.ts';
import { TestAbortError } from '../run-state.ts';
import { currentRuntimeVu } from '../vu.ts';

function scenarioDuration_ms(vu: ReturnType<typeof currentRuntimeVu>): number {
  const c = vu.scenario?.config;
  if (!c) return 0;
  if (c.duration_ms) return c.duration_ms;
  if (c.stages.length) return c.stages.reduce((a, s) => a + s.duration_ms, 0);
  return c.maxDuration_ms;
}

export const vu = {
  get idInTest(): number {
    return currentRuntimeVu().idInTest;
  },
  get idInInstance(): number {
    return currentRuntimeVu().idInInstance;
  },
  get iterationInInstance(): number {
    return Math.max(0, currentRuntimeVu().iterationInInstance);
  },
  get iterationInScenario(): number {
    return Math.max(0, currentRuntimeVu().iterationInScenario);
  },
  /** The VU's tags; setting a key adds a tag to every later sample of this VU, as in k6. */
  get tags(): Record<string, string> {
    return vuTags();
  },
  get metrics(): { tags: Record<string, string>; metadata: Record<string, string> } {
    return { tags: vuTags(), metadata: vuMetadata() };
  },
};

/**
 * A live view of the current VU's tags: reads see them all, writes go to the VU's own tags. As in k6, a write
 * may replace a system tag such as `scenario` on the VU's later samples (a ramp's windows rely on it).
 */
function vuTags(): Record<string, string> {
  const vu = currentRuntimeVu();
  return new Proxy({} as Record<string, string>, {
    get: (_, k) => (typeof k === 'string' ? vu.tags()[k] : undefined),
    has: (_, k) => typeof k === 'string' && k in vu.tags(),
    ownKeys: () => Object.keys(vu.tags()),
    getOwnPropertyDescriptor: (_, k) =>
      typeof k === 'string' && k in vu.tags()
        ? { value: vu.tags()[k], enumerable: true, configurable: true, writable: true }
        : undefined,
    set: (_, k, v) => {
      if (typeof k !== 'string') return false;
      if (v !== null && typeof v === 'object')
        throw new Error(`exec.vu.tags: tag "${k}" must be a string, number or boolean`);
      vu.setCustomTag(k, v);
      return true;
    },
    deleteProperty: (_, k) => {
      if (typeof k === 'string') vu.setCustomTag(k, undefined);
      return true;
    },
  });
}

/** The current VU's metadata: string values, as k6 keeps them; deleting a key stops it being sent. */
function vuMetadata(): Record<string, string> {
  const md = currentRuntimeVu().metadata;
  return new Proxy(md, {
    set: (_, k, v) => {
      if (typeof k !== 'string') return false;
      if (v !== null && typeof v === 'object')
        throw new Error(`exec.vu.metrics.metadata: "${k}" must be a string, number or boolean`);
      if (v === undefined || v === null) delete md[k];
      else md[k] = String(v);
      return true;
    },
  });
}

export const scenario = {
  get name(): string {
    return currentRuntimeVu().scenario?.config.name ?? '';
  },
  get executor(): string {
    return currentRuntimeVu().scenario?.config.executor ?? '';
  },
  get startTime(): number {
    return Math.floor(currentRuntimeVu().scenario?.startTime_epoch_ms ?? 0);
  },
  get progress(): number {
    const v = currentRuntimeVu();
    const total = scenarioDuration_ms(v);
    if (!v.scenario || total <= 0) return 0;
    return Math.min(1, (performance.now() - v.scenario.start_ms) / total);
  },
  get iterationInInstance(): number {
    return Math.max(0, currentRuntimeVu().iterationInTest);
  },
  get iterationInTest(): number {
    return Math.max(0, currentRuntimeVu().iterationInTest);
  },
};

export const instance = {
  get iterationsInterrupted(): number {
    return currentRuntimeVu().run.iterationsInterrupted;
  },
  get iterationsCompleted(): number {
    return currentRuntimeVu().run.iterationsCompleted;
  },
  get vusActive(): number {
    return currentRuntimeVu().run.vusActive;
  },
  get vusInitialized(): number {
    return currentRuntimeVu().run.vusInitialized;
  },
  get currentTestRunDuration(): number {
    const run = currentRuntimeVu().run;
    return run.start_ms ? performance.now() - run.start_ms : 0;
  },
};

export const test = {
  /** Stops the whole test now with exit code 108; teardown and handleSummary still run. */
  abort(reason?: string): never {
    const err = new TestAbortError(reason);
    const vu = currentRuntimeVu();
    // k6 counts the aborting iteration (only while the test runs: not from setup or teardown).
    vu.abortedTest = vu.scenario !== null && !vu.run.abortRequest;
    // Requested before throwing, so a script that catches the error still stops.
    vu.run.requestAbort(EXIT.SCRIPT_ABORTED, err.message);
    throw err;
  },
  /** Marks the test failed and logs why, as k6 does; the run goes on and exits 110. */
  fail(reason?: unknown): void {
    const vu = currentRuntimeVu();
    if (vu.inInit) throw new Error('execution.test.fail() called outside of VU context');
    logLine(
      'ERRO',
      reason === undefined || reason === null
        ? 'test marked as failed'
        : `test marked as failed: ${String(reason)}`,
    );
    vu.run.markedFailed = true;
  },
  get options(): Record<string, unknown> {
    return currentRuntimeVu().run.options?.raw ?? {};
  },
};

export default { vu, scenario, instance, test };
