/**
 * A run after its script is loaded and its options are valid: setup → scenarios → teardown →
 * thresholds and summary. Each phase can be cut short by a supervisor (run-control.ts) when
 * script code never yields; the run then goes on from the next phase, as k6 goes on after a
 * hard stop or a timeout, on a fresh chain: the cut phase's own promises never settle.
 */
import type { LiveRun } from './api/live.ts';
import { EXEC_STATUS } from './api/types.ts';
import { createExecutor, maxScenarioDuration_ms } from './executors/index.ts';
import { logScriptError } from './executors/iteration.ts';
import type { VuPool } from './executors/pool.ts';
import {
  LifecycleTimeoutError,
  callExport,
  setupDataJson,
  summaryFilesMessage,
  writeSummaryFile,
  writeSummaryOutputs,
} from './lifecycle.ts';
import { logLine } from './log.ts';
import type { TestOptions } from './options/index.ts';
import { startProgress } from './progress.ts';
import type { Phase, RunControl } from './run-control.ts';
import { EXIT, type ScenarioRuntime, TestAbortError, type TestRun } from './run-state.ts';
import { buildSections, buildSummaryData, type SummaryData } from './summary/data.ts';
import { legacySummaryExport } from './summary/export.ts';
import { renderTextSummary, type SummaryMode } from './summary/text.ts';
import { evaluateThresholds, type ThresholdSet } from './thresholds.ts';
import type { VU } from './vu.ts';
import type { WorkerLink } from './workers/link.ts';
import { absorbSnapshot, snapshotRun } from './workers/merge.ts';
import { mergedVerdict } from './workers/verdict.ts';

/** How often other workers send their metrics when the first judges abortOnFail thresholds. */
const SNAPSHOT_INTERVAL_MS = 1000;

/** What --linger prints (stdout, unless -q) while it waits, k6's words. */
const LINGER_LINE =
  'The test is done, but --linger was enabled, so k6-triton is waiting for Ctrl+C to continue...\n';

/** k6's execution status of each phase. */
const PHASE_STATUS: Partial<Record<Phase, number>> = {
  setup: EXEC_STATUS.SETUP,
  scenarios: EXEC_STATUS.RUNNING,
  teardown: EXEC_STATUS.TEARDOWN,
};

/** handleSummary()'s time limit, k6's. */
const HANDLE_SUMMARY_TIMEOUT_MS = 120_000;

/** What the phases need from the loaded run. */
export interface Execution {
  run: TestRun;
  pool: VuPool;
  vu0: VU;
  options: TestOptions;
  thresholds: ThresholdSet[];
  io: { stdout: (s: string) => void; stderr: (s: string) => void };
  quiet: boolean;
  noColor: boolean;
  noSummary: boolean;
  summaryMode: SummaryMode;
  summaryExport: string | undefined;
  tty: { stdout: boolean; stderr: boolean };
  control: RunControl | null;
  /** The run as the REST API sees it (status, --paused's start gate). */
  live: LiveRun;
  /** --linger: after teardown, wait for a signal before the summary, as k6 does. */
  linger: boolean;
}

/** The outcome of a run: k6's exit code and handleSummary's data. */
export interface PhasesResult {
  exitCode: number;
  summaryData: SummaryData | null;
}

/** Setup, scenarios, teardown and summary of one run; `run()` resolves with k6's exit code. */
export class RunPhases {
  #phase: Phase = 'init';
  /** Bumped when a phase is cut short: a chain of an older generation stops at its next step. */
  #generation = 0;
  #exitCode: number = EXIT.OK;
  #setupJson: string | undefined;
  #setupOk = true;
  #t0 = 0;
  readonly #stopTimers: (() => void)[] = [];
  #lingered = false;
  #endLinger: (() => void) | null = null;
  #resolve: (r: PhasesResult) => void = () => {};
  readonly #result = new Promise<PhasesResult>((r) => {
    this.#resolve = r;
  });

  constructor(readonly x: Execution) {}

  /** Runs every phase; resolves when the summary is written. */
  run(): Promise<PhasesResult> {
    // On its own turn of the event loop: if setup() never yields and is cut short, the caller's
    // frames are not among those terminated, and its await still gets the result.
    setImmediate(() => void this.#start());
    return this.#result;
  }

  /** --paused: k6 waits after initializing the VUs, before setup(); a signal or stop while paused skips the test. */
  async #start(): Promise<void> {
    const { live, run } = this.x;
    const gate = live.startGate();
    if (live.status === EXEC_STATUS.PAUSED_BEFORE_RUN) this.#enter('paused', null);
    await gate;
    this.#t0 = performance.now();
    if (run.abortRequest) {
      this.#setupOk = false;
      return void this.#from('teardown');
    }
    live.markStarted();
    live.status = EXEC_STATUS.STARTED;
    return void this.#from('setup');
  }

  /** A signal while --linger waits ends the wait (the run's outcome stays); false when not lingering. */
  endLinger(): boolean {
    if (!this.#endLinger) return false;
    this.#endLinger();
    this.#endLinger = null;
    return true;
  }

  async #linger(): Promise<void> {
    this.#lingered = true;
    this.#enter('linger', null);
    if (!this.x.quiet) this.x.io.stdout(LINGER_LINE);
    await new Promise<void>((resolve) => {
      this.#endLinger = resolve;
    });
  }

  /**
   * The supervisor terminated the running phase's JavaScript: that phase ends as k6 ends it at
   * its deadline (setup/teardown timeouts, the scenarios' hard stop, or the signal's abort).
   */
  interrupted(): void {
    const { run, options } = this.x;
    const signalled = run.abortRequest?.code === EXIT.EXTERNAL_ABORT;
    switch (this.#phase) {
      case 'setup':
        this.#setupOk = false;
        if (!signalled) {
          logLine('ERRO', `setup() execution timed out after ${options.setupTimeout_ms / 1000} seconds`);
          this.#exitCode = EXIT.SETUP_TIMEOUT;
        }
        return void this.#from('scenarios');
      case 'scenarios':
        // The busy iteration is interrupted, as k6 interrupts it when gracefulStop runs out.
        run.iterationsInterrupted++;
        return void this.#from('teardown');
      case 'teardown':
        if (!signalled) {
          logLine(
            'ERRO',
            `teardown() execution timed out after ${options.teardownTimeout_ms / 1000} seconds`,
          );
          if (this.#exitCode === EXIT.OK) this.#exitCode = EXIT.TEARDOWN_TIMEOUT;
        }
        return void this.#from('summary');
      case 'summary':
        logLine('ERRO', 'handleSummary() was interrupted; printing the default summary');
        return void this.#from('summary', true);
      default:
    }
  }

  #enter(phase: Phase, deadline_ms: number | null): void {
    this.#phase = phase;
    const status = PHASE_STATUS[phase];
    if (status !== undefined) this.x.live.status = status;
    this.x.control?.phase(phase, deadline_ms === null ? null : Date.now() + deadline_ms);
  }

  async #from(first: Phase, defaultSummary = false): Promise<void> {
    const gen = ++this.#generation;
    const live = () => gen === this.#generation;
    const order: Phase[] = ['setup', 'scenarios', 'teardown', 'summary'];
    for (const phase of order.slice(order.indexOf(first))) {
      if (phase === 'setup') await this.#setup();
      else if (phase === 'scenarios') await this.#scenarios();
      else if (phase === 'teardown') await this.#teardown();
      else {
        this.x.live.markEnded();
        // A signal that stopped the test also ends --linger's wait, as in k6.
        const signalled = this.x.run.abortRequest?.code === EXIT.EXTERNAL_ABORT;
        if (this.x.linger && !this.#lingered && !signalled) await this.#linger();
        const r = await this.#summary(defaultSummary, live);
        if (!live()) return;
        this.#phase = 'done';
        this.x.control?.phase('done', null);
        return this.#resolve(r);
      }
      if (!live()) return;
    }
  }

  async #setup(): Promise<void> {
    const { vu0, options } = this.x;
    const link = this.x.control?.workers;
    if (link && !link.lead) {
      // setup() runs once, on the first worker; its data comes from there.
      const outcome = await link.setup();
      this.#setupOk = outcome.ok;
      this.#setupJson = outcome.json;
      return;
    }
    if (options.noSetup || typeof vu0.exports['setup'] !== 'function') return;
    this.#enter('setup', options.setupTimeout_ms);
    try {
      // A signal (or test.abort elsewhere) ends setup() at once, as k6's cancelled context does: its data
      // is never used, so the run goes on to its end without waiting out a sleep or a slow call.
      const aborted = new Promise<never>((_, reject) =>
        this.x.run.onAbort(() => reject(new TestAbortError(this.x.run.abortRequest?.reason))),
      );
      aborted.catch(() => {});
      const data = await Promise.race([
        callExport(vu0, 'setup', undefined, options.setupTimeout_ms),
        aborted,
      ]);
      this.#setupJson = setupDataJson(data);
      this.x.live.setupJson = this.#setupJson ?? null;
    } catch (err) {
      this.#setupOk = false;
      if (err instanceof LifecycleTimeoutError) {
        logLine('ERRO', err.message);
        this.#exitCode = EXIT.SETUP_TIMEOUT;
      } else if (!(err instanceof TestAbortError)) {
        logScriptError(err, null);
        this.#exitCode = EXIT.SCRIPT_EXCEPTION;
      }
    }
  }

  async #scenarios(): Promise<void> {
    const { run, pool, options, thresholds } = this.x;
    const link = this.x.control?.workers;
    // Reached after setup() however it ended (a cut-short setup too): the other workers wait for this.
    if (link?.lead) link.shareSetup({ ok: this.#setupOk, json: this.#setupJson });
    if (!this.#setupOk || run.abortRequest) return;
    const { registry, pipeline } = run;
    this.#enter(
      'scenarios',
      Math.max(...options.scenarios.map((c) => c.startTime_ms + maxScenarioDuration_ms(c))),
    );
    run.start_ms = performance.now();
    const vus = registry.get('vus')!;
    const sampleVus = () => pipeline.add(vus, run.vusActive, options.tags);
    const vt = setInterval(sampleVus, 1000);
    this.#stopTimers.push(() => clearInterval(vt));
    setImmediate(sampleVus);
    if (thresholds.some((s) => s.thresholds.some((t) => t.abortOnFail))) {
      // Several workers: the others send their metrics, the first one judges the merged run's.
      if (link && !link.lead) {
        const st = setInterval(() => link.sendSnapshot(snapshotRun(run), false), SNAPSHOT_INTERVAL_MS);
        this.#stopTimers.push(() => clearInterval(st));
      }
      const tt = setInterval(() => {
        if (link && !link.lead) return;
        const elapsed_ms = performance.now() - run.start_ms;
        const r =
          link && link.count > 1
            ? mergedVerdict(options.thresholds, [snapshotRun(run), ...link.latest.values()], elapsed_ms)
            : evaluateThresholds(thresholds, elapsed_ms);
        if (r.abort)
          run.requestAbort(
            EXIT.THRESHOLDS_FAILED,
            `thresholds on metrics '${failedMetrics(r.failedKeys)}' were crossed; at least one has abortOnFail enabled, stopping test prematurely`,
          );
      }, 2000);
      this.#stopTimers.push(() => clearInterval(tt));
    }
    if (!this.x.quiet && this.x.tty.stderr && (!link || link.lead))
      this.#stopTimers.push(
        startProgress(run, () => pool.all.length, { write: (s: string) => this.x.io.stderr(s) }),
      );
    await runScenarios(run, pool, options, this.#setupJson);
  }

  async #teardown(): Promise<void> {
    const { run, vu0, options } = this.x;
    // Reached also when the scenarios phase was cut short: its timers stop here.
    for (const stop of this.#stopTimers.splice(0)) stop();
    const link = this.x.control?.workers;
    // Teardown runs once, on the first worker, after every worker's scenarios.
    if (link && !link.lead) return;
    if (link) {
      for (const snap of await link.peersFinal())
        if (
          absorbSnapshot(
            { registry: run.registry, rootGroup: run.rootGroup, sections: run.pipeline.sections },
            snap,
          )
        )
          run.markedFailed = true;
      this.x.live.peersMerged = true;
    }
    const ar = run.abortRequest;
    // k6 logs test.abort() and signals as errors.
    if (ar) logLine(ar.code === EXIT.THRESHOLDS_FAILED ? 'WARN' : 'ERRO', ar.reason);
    if (!this.#setupOk || options.noTeardown || typeof vu0.exports['teardown'] !== 'function') return;
    this.#enter('teardown', options.teardownTimeout_ms);
    try {
      await callExport(
        vu0,
        'teardown',
        this.#setupJson === undefined ? undefined : JSON.parse(this.#setupJson),
        options.teardownTimeout_ms,
      );
    } catch (err) {
      if (err instanceof LifecycleTimeoutError) {
        logLine('ERRO', err.message);
        if (this.#exitCode === EXIT.OK) this.#exitCode = EXIT.TEARDOWN_TIMEOUT;
      } else if (!(err instanceof TestAbortError)) {
        logScriptError(err, null);
        if (this.#exitCode === EXIT.OK) this.#exitCode = EXIT.SCRIPT_EXCEPTION;
      }
    }
  }

  async #summary(defaultSummary: boolean, live: () => boolean): Promise<PhasesResult> {
    const { run, vu0, options, thresholds, io } = this.x;
    const link = this.x.control?.workers;
    if (link && !link.lead) return this.#sendFinal(link);
    this.#enter('summary', HANDLE_SUMMARY_TIMEOUT_MS);
    const duration_ms = performance.now() - this.#t0;
    try {
      await run.pipeline.close();
    } catch (err) {
      logLine('ERRO', `writing an output failed: ${(err as Error).message}`);
    }
    const verdict = evaluateThresholds(thresholds, duration_ms);
    const data = buildSummaryData({
      registry: run.registry,
      thresholds,
      rootGroup: run.rootGroup,
      trendStats: options.summaryTrendStats,
      timeUnit: options.summaryTimeUnit,
      noColor: this.x.noColor,
      testRunDuration_ms: duration_ms,
      isStdOutTTY: this.x.tty.stdout,
      isStdErrTTY: this.x.tty.stderr,
    });
    const sections = run.pipeline.sections
      ? buildSections(run.pipeline.sections, options.summaryTrendStats, duration_ms)
      : [];
    // --summary-mode disabled: no summary at all, as in k6 (neither handleSummary nor --summary-export).
    const summarize = !this.x.noSummary;
    const custom = summarize && !defaultSummary && typeof vu0.exports['handleSummary'] === 'function';
    const failures: string[] = [];
    if (summarize && (!custom || !(await this.#handleSummary(data, failures)))) {
      io.stdout(renderTextSummary(data, this.x.summaryMode, sections));
    }
    if (summarize && this.x.summaryExport) {
      const failure = writeSummaryFile(
        this.x.summaryExport,
        JSON.stringify(legacySummaryExport(data), null, 4),
      );
      if (failure) failures.push(failure);
    }
    // k6's one error line for every summary file not written; the exit code stays the run's, as k6's does.
    if (failures.length > 0)
      logLine('ERRO', 'failed to handle the end-of-test summary', { error: summaryFilesMessage(failures) });
    let exitCode = this.#exitCode;
    if (run.abortRequest) exitCode = run.abortRequest.code;
    // exec.test.fail() wins over crossed thresholds, whose line k6 then leaves out.
    else if (exitCode === EXIT.OK && run.markedFailed) exitCode = EXIT.MARKED_AS_FAILED;
    else if (exitCode === EXIT.OK && !verdict.ok) exitCode = EXIT.THRESHOLDS_FAILED;
    if (exitCode === EXIT.MARKED_AS_FAILED) logLine('ERRO', 'test run was marked as failed');
    else if (live() && !verdict.ok)
      logLine('ERRO', `thresholds on metrics '${failedMetrics(verdict.failedKeys)}' have been crossed`);
    return { exitCode, summaryData: data };
  }

  /** Another worker's end: its output lines, then its metrics, to the first worker (in that order). */
  async #sendFinal(link: WorkerLink): Promise<PhasesResult> {
    this.#enter('summary', null);
    try {
      await this.x.run.pipeline.close();
    } catch (err) {
      logLine('ERRO', `writing an output failed: ${(err as Error).message}`);
    }
    link.sendSnapshot(snapshotRun(this.x.run), true);
    return { exitCode: this.#exitCode, summaryData: null };
  }

  /**
   * Runs handleSummary() and writes its map, adding the files not written to `failures`; false when
   * handleSummary itself failed (the default summary is printed).
   */
  async #handleSummary(data: SummaryData, failures: string[]): Promise<boolean> {
    try {
      // The script may change its argument; the run's own data stays intact.
      const result = await callExport(
        this.x.vu0,
        'handleSummary',
        structuredClone(data),
        HANDLE_SUMMARY_TIMEOUT_MS,
      );
      failures.push(...writeSummaryOutputs(result, this.x.io));
      return true;
    } catch (err) {
      logLine('ERRO', `handleSummary() failed: ${(err as Error).message}; printing the default summary`);
      return false;
    }
  }
}

function failedMetrics(keys: string[]): string {
  return [...new Set(keys.map((k) => k.slice(0, k.indexOf(': '))))].join(', ');
}

async function runScenarios(
  run: TestRun,
  pool: VuPool,
  options: TestOptions,
  setupJson: string | undefined,
): Promise<void> {
  const iterations = run.registry.get('iterations')!;
  const iterationDuration = run.registry.get('iteration_duration')!;
  await Promise.all(
    options.scenarios.map(
      (config) =>
        new Promise<void>((resolve) => {
          const start = () => {
            if (run.abortRequest) return resolve();
            const scenario: ScenarioRuntime = {
              config,
              startTime_epoch_ms: Date.now(),
              start_ms: performance.now(),
              nextIteration: 0,
              tags: config.tags,
              env: Object.keys(config.env).length ? { ...run.env, ...config.env } : run.env,
              stopping: false,
            };
            const ex = createExecutor({ run, scenario, setupJson, iterations, iterationDuration }, pool);
            ex.run().then(resolve, (err: unknown) => {
              logScriptError(err, scenario);
              run.requestAbort(
                EXIT.SCRIPT_EXCEPTION,
                `scenario ${config.name} failed: ${(err as Error).message}`,
              );
              resolve();
            });
          };
          if (config.startTime_ms <= 0) return start();
          const t = setTimeout(start, config.startTime_ms);
          run.onAbort(() => {
            clearTimeout(t);
            resolve();
          });
        }),
    ),
  );
}
