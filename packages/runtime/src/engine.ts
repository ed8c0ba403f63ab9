/**
 * One test run as k6 runs it: load and evaluate the script (init context per VU), consolidate
 * options, initialize VUs, then the phases of run-phases.ts (setup, scenarios, teardown,
 * thresholds, summary). Returns k6's exit code. The CLI runs it on a worker thread that the main
 * thread supervises (supervisor.ts, worker-main.ts), so a script that never yields still stops at
 * its deadline or on a signal.
 */
import { join } from 'node:path';
import { LiveRun } from './api/live.ts';
import { EXEC_STATUS } from './api/types.ts';
import { peakPlannedVus, maxScenarioDuration_ms } from './executors/index.ts';
import { logScriptError } from './executors/iteration.ts';
import { VuPool } from './executors/pool.ts';
import { loadProgram, type Program } from './loader/program.ts';
import { remoteModules } from './loader/remote.ts';
import {
  configureLog,
  forgetRedactions,
  type LogSettings,
  logLine,
  setConsoleFile,
  setLogSink,
} from './log.ts';
import { SectionTracker } from './metrics/sections.ts';
import { SamplePipeline } from './metrics/pipeline.ts';
import { systemTagFilter } from './metrics/system-tags.ts';
import { MetricRegistry } from './metrics/registry.ts';
import { useUserAgent } from './modules/http-params.ts';
import { type SecretSources, secretSources } from './modules/secret-sources.ts';
import {
  consolidateOptions,
  InvalidConfigError,
  type OptionOverrides,
  type TestOptions,
} from './options/index.ts';
import { createOutputs, OutputCreateError } from './outputs/index.ts';
import { banner } from './progress.ts';
import type { RunControl } from './run-control.ts';
import { RunPhases } from './run-phases.ts';
import { EXIT, TestAbortError, TestRun } from './run-state.ts';
import type { SummaryData } from './summary/data.ts';
import type { SummaryMode } from './summary/text.ts';
import { buildThresholds, type ThresholdSet } from './thresholds.ts';
import { VU } from './vu.ts';
import { type VuMode, vuModeFromEnv, vuModeLine } from './blocking/mode.ts';
import { ThreadVu } from './blocking/thread-vu.ts';
import { snapshotRun } from './workers/merge.ts';
import { alreadySegmented, segmentOptions } from './workers/plan.ts';

/** Options of one run; the CLI maps k6's flags onto these. */
export interface RunTestOptions {
  /** Path of the script: an esbuild bundle, a .js or a .ts file. */
  script: string;
  /** -e KEY=VALUE pairs; they override the system environment in __ENV. */
  env?: Record<string, string>;
  /** Whether __ENV includes the process environment (k6 run's default: true). */
  includeSystemEnv?: boolean;
  /** CLI options that override the script's (vus, duration, iterations, ...). */
  overrides?: OptionOverrides;
  /** --out values: json=FILE, csv=FILE. */
  out?: string[];
  /** --summary-export FILE. */
  summaryExport?: string;
  /** --summary-mode. */
  summaryMode?: SummaryMode;
  /** --no-thresholds: thresholds are neither parsed nor evaluated. */
  noThresholds?: boolean;
  /** --no-summary. */
  noSummary?: boolean;
  /** -q: no banner, no progress line. */
  quiet?: boolean;
  noColor?: boolean;
  /** Writers for stdout/stderr (defaults: the process streams). */
  stdout?: (s: string) => void;
  stderr?: (s: string) => void;
  /** Whether stdout and stderr are terminals (default: the process streams'). */
  tty?: { stdout: boolean; stderr: boolean };
  /** --secret-source values: file=PATH, mock=K=V,… (k6/secrets). */
  secretSources?: string[];
  /** How VUs run (blocking/mode.ts); default: K6_TRITON_VU_MODE, else auto. */
  vuMode?: VuMode;
  /** --log-format, --log-output, --console-output, -v (unset: k6's defaults, or what the process set). */
  log?: LogSettings;
  /** Running an archive (cli/archive-run.ts): where its trees were extracted, and its options, used instead of the script's. */
  archive?: { dir: string; options: Record<string, unknown> };
  /** Set on the supervised worker: the supervisor's side of the run. */
  control?: RunControl;
  /** --workers: worker threads the supervisor splits the test over (workers/plan.ts; default: the cores). */
  workers?: number;
  /** --linger: after teardown, wait for SIGINT/SIGTERM before the summary (supervised runs only). */
  linger?: boolean;
}

/** The outcome of a run. */
export interface RunTestResult {
  exitCode: number;
  summaryData: SummaryData | null;
}

function fail(code: number, message: string): RunTestResult {
  logLine('ERRO', message);
  return { exitCode: code, summaryData: null };
}

/** Runs a k6 script to the end and returns k6's exit code and handleSummary's data. */
export async function runTest(opts: RunTestOptions): Promise<RunTestResult> {
  forgetRedactions();
  const control = opts.control ?? null;
  if (!control) return loadAndRun(opts, null);
  // Supervised: a phase the supervisor cuts short never settles its own chain, so the result
  // comes from whichever path ends the run first.
  return new Promise<RunTestResult>((resolve) => {
    let settled = false;
    const settle = (r: RunTestResult) => {
      if (!settled) resolve(r);
      settled = true;
    };
    const stopInit = () => settle(fail(EXIT.EXTERNAL_ABORT, SIGNAL_ABORT('interrupt')));
    control.onSignal = (sig) => settle(fail(EXIT.EXTERNAL_ABORT, SIGNAL_ABORT(sig)));
    control.onInterrupted = stopInit;
    control.phase('init', null);
    loadAndRun(opts, control).then(settle, (err: unknown) =>
      settle(fail(EXIT.SCRIPT_EXCEPTION, String(err))),
    );
  });
}

/** k6's message for a run stopped by a signal (`interrupt` for SIGINT, `terminated` for SIGTERM). */
const SIGNAL_ABORT = (signal: string) =>
  `test run was aborted because k6-triton received a '${signal === 'SIGTERM' || signal === 'terminated' ? 'terminated' : 'interrupt'}' signal`;

async function loadAndRun(opts: RunTestOptions, control: RunControl | null): Promise<RunTestResult> {
  const stdout = opts.stdout ?? ((s: string) => void process.stdout.write(s));
  const stderr = opts.stderr ?? ((s: string) => void process.stderr.write(s));
  if (opts.log) {
    try {
      configureLog(opts.log, stdout);
    } catch (err) {
      return fail(EXIT.GENERIC, (err as Error).message);
    }
  }
  const link = control?.workers ?? null;
  let secrets: SecretSources;
  try {
    secrets = secretSources(opts.secretSources ?? []);
  } catch (err) {
    return fail(EXIT.GENERIC, (err as Error).message);
  }
  let program: Program;
  try {
    program = await loadProgram(
      opts.script,
      opts.vuMode ?? vuModeFromEnv(process.env),
      remoteModules(opts.archive?.dir),
    );
  } catch (err) {
    return fail(EXIT.SCRIPT_EXCEPTION, (err as Error).message);
  }
  const registry = new MetricRegistry();
  for (const [name, type] of program.moduleMetrics()) registry.define(name, type);
  const pipeline = new SamplePipeline(registry);
  const sysEnv = opts.includeSystemEnv === false ? {} : (process.env as Record<string, string>);
  const run = new TestRun(registry, pipeline, { ...sysEnv, ...(opts.env ?? {}) }, program.path);
  if (opts.archive) run.fileRoot = join(opts.archive.dir, 'file');
  run.iterationHooks = program.iterationHooks();
  run.secrets = secrets;
  const vu0 = new VU(0, run);
  try {
    await program.instantiate(vu0);
  } catch (err) {
    if (err instanceof TestAbortError || run.abortRequest)
      return fail(EXIT.SCRIPT_ABORTED, (err as Error).message);
    logScriptError(err, null);
    return { exitCode: EXIT.SCRIPT_EXCEPTION, summaryData: null };
  }
  let options: TestOptions;
  let thresholds: ThresholdSet[];
  try {
    // Other workers: k6's warnings about the options are the first worker's to print.
    const prevSink = link && !link.lead ? setLogSink(() => {}) : null;
    try {
      // An archive's options stand for the script's, as in k6 (which ignores the exported ones then).
      options = consolidateOptions(opts.archive?.options ?? vu0.exports['options'], opts.overrides);
    } finally {
      if (prevSink) setLogSink(prevSink);
    }
    for (const sc of options.scenarios) {
      if (typeof vu0.exports[sc.exec] !== 'function') {
        throw new InvalidConfigError(
          sc.exec === 'default'
            ? `scenario ${sc.name}: the script exports no default function (export one, or set exec)`
            : `scenario ${sc.name}: exec function "${sc.exec}" is not exported by the script`,
        );
      }
    }
    thresholds = opts.noThresholds ? [] : buildThresholds(options.thresholds, registry);
    pipeline.outputs.push(
      ...createOutputs(
        opts.out ?? [],
        (name) => thresholds.filter((t) => t.key === name).flatMap((t) => t.thresholds.map((x) => x.source)),
        // Other workers' samples go to the first worker's files.
        link && !link.lead ? { relay: (index) => link.relay(index) } : {},
      ),
    );
  } catch (err) {
    return fail(
      err instanceof OutputCreateError ? EXIT.GENERIC : EXIT.INVALID_CONFIG,
      (err as Error).message,
    );
  }
  if (link) {
    if (link.lead) {
      // The run's worker count: never more than its peak VUs. One for a run that is itself a segment,
      // and for blocking VUs, each of which is a thread already (the cores are used without workers).
      const segmented = alreadySegmented(options, opts.overrides);
      // Said only to whoever asked for workers; the default quietly takes one.
      if (segmented && link.count > 1 && link.role.asked)
        logLine('WARN', 'the run is one execution segment already: it runs on one worker thread');
      await link.plan(segmented || program.blocking ? 1 : peakPlannedVus(options.scenarios));
      link.onPeerOutput = (index, chunk) => pipeline.outputs[index]?.absorb?.(chunk);
    }
    const segmented = segmentOptions(options, link.role.index, link.count);
    options = segmented.options;
    run.globalIndex = segmented.globalIndex;
  }
  run.options = options;
  const live = new LiveRun(run, thresholds, options.scenarios, options.raw['paused'] === true);
  control?.liveReady?.({
    snapshot: () => live.snapshot(),
    setPaused: (pause) => live.setPaused(pause),
    stop: () => live.stop(),
    // Several workers: the supervisor merges every worker's metrics, then formats them once.
    ...(link
      ? {
          share: () => ({
            run: snapshotRun(run),
            thresholds: opts.noThresholds ? {} : options.thresholds,
            elapsed_ms: live.elapsed_ms,
            peersMerged: live.peersMerged,
          }),
        }
      : {}),
  });
  useUserAgent(options.userAgent);
  const consoleOutput = options.raw['consoleOutput'];
  if (consoleOutput !== undefined && consoleOutput !== null) {
    if (typeof consoleOutput !== 'string')
      return fail(EXIT.INVALID_CONFIG, 'invalid option consoleOutput: expected a file path');
    setConsoleFile(consoleOutput);
  }
  if (opts.summaryMode === 'full') pipeline.sections = new SectionTracker();
  pipeline.tagFilter = systemTagFilter(options.systemTags);
  const moduleOptions = {
    discardResponseBodies: options.discardResponseBodies,
    noConnectionReuse: options.noConnectionReuse,
    tls: options.tls,
    http: options.http,
  };
  vu0.options = moduleOptions;
  const plannedVus = peakPlannedVus(options.scenarios);
  const blocking = program.blocking;
  // Blocking mode: each VU's thread, the first ones started together (a thread's start is mostly waiting).
  // The pool numbers its VUs 1, 2, ...; on one of several workers they take the test's ids (__VU, idInTest).
  const testId = (id: number) => (run.globalIndex === null ? id : run.globalIndex(id - 1) + 1);
  const threadVu = (id: number): ThreadVu => {
    const vu = new ThreadVu(testId(id), run, blocking!, program.modules.get('k6/http'));
    vu.idInInstance = id;
    vu.options = moduleOptions;
    vu.initializing = vu.start().then(() => {
      vu.initializing = null;
    });
    // Awaited by the pool in turn; after a failed init the others' failures are not news.
    vu.initializing.catch(() => {});
    return vu;
  };
  const prestarted = new Map<number, ThreadVu>();
  if (blocking) for (let id = 1; id <= plannedVus; id++) prestarted.set(id, threadVu(id));
  const pool = new VuPool(
    run,
    (id) => {
      if (blocking) {
        const vu = prestarted.get(id) ?? threadVu(id);
        prestarted.delete(id);
        return vu;
      }
      const vu = new VU(testId(id), run);
      vu.idInInstance = id;
      vu.options = moduleOptions;
      const init = program.instantiate(vu);
      if (init instanceof Promise)
        vu.initializing = init.then(() => {
          vu.initializing = null;
        });
      return vu;
    },
    registry.get('vus_max')!,
  );
  if (!opts.quiet) {
    stdout(
      banner({
        script: opts.script,
        outputs: pipeline.outputs.map((o) => o.description ?? ''),
        scenarios: options.scenarios,
        maxVus: plannedVus,
        maxDuration_ms: Math.max(...options.scenarios.map((c) => c.startTime_ms + maxScenarioDuration_ms(c))),
        ...(blocking ? { vuMode: vuModeLine(blocking.reason) } : {}),
      }),
    );
  }
  // Script code can leave a promise rejected un-awaited or throw from a timer: k6 logs those and
  // goes on; so does the runtime, instead of letting Node end the process.
  const onStray = (err: unknown) => logScriptError(err, null);
  process.on('unhandledRejection', onStray);
  process.on('uncaughtException', onStray);
  // setup(), teardown() and handleSummary() of a blocking run: VU 0's own thread.
  let lifecycleVu: ThreadVu | null = null;
  try {
    try {
      await pool.preallocate(plannedVus);
      live.status = EXEC_STATUS.INIT_DONE;
      if (link && !link.lead) link.ready();
      if (
        (!link || link.lead) &&
        blocking &&
        ['setup', 'teardown', 'handleSummary'].some((n) => typeof vu0.exports[n] === 'function')
      ) {
        lifecycleVu = new ThreadVu(0, run, blocking, program.modules.get('k6/http'));
        lifecycleVu.options = moduleOptions;
        await lifecycleVu.start();
      }
    } catch (err) {
      if (run.abortRequest) return fail(EXIT.SCRIPT_ABORTED, run.abortRequest.reason);
      logScriptError(err, null);
      return { exitCode: EXIT.SCRIPT_EXCEPTION, summaryData: null };
    }
    const phases = new RunPhases({
      run,
      pool,
      vu0: lifecycleVu ?? vu0,
      options,
      thresholds,
      io: { stdout, stderr },
      quiet: opts.quiet ?? false,
      noColor: opts.noColor ?? false,
      noSummary: opts.noSummary ?? false,
      summaryMode: opts.summaryMode ?? 'compact',
      summaryExport: opts.summaryExport,
      tty: opts.tty ?? { stdout: Boolean(process.stdout.isTTY), stderr: Boolean(process.stderr.isTTY) },
      control,
      live,
      // Several workers: the first one lingers, after every worker's scenarios and teardown.
      linger: control !== null && opts.linger === true && (!link || link.lead),
    });
    if (link) {
      // An abort anywhere stops every worker.
      run.onAbort(() => link.abort(run.abortRequest!.code, run.abortRequest!.reason));
      link.onAbort((code, reason) => run.requestAbort(code, reason));
      if (link.lead) await link.peersReady();
    }
    if (control) {
      // The supervisor handles a second signal (k6 then exits at once).
      control.onSignal = (signal) => {
        if (phases.endLinger()) return;
        if (!link || link.lead) logLine('WARN', 'Stopping k6-triton in response to signal...');
        run.requestAbort(EXIT.EXTERNAL_ABORT, SIGNAL_ABORT(signal));
      };
      control.onInterrupted = () => phases.interrupted();
    }
    return await phases.run();
  } finally {
    process.off('unhandledRejection', onStray);
    process.off('uncaughtException', onStray);
    for (const vu of prestarted.values()) await vu.retire();
    await pool.retireAll();
    live.close();
    await lifecycleVu?.retire();
    await vu0.retire();
    await pipeline.close().catch(() => {});
  }
}
