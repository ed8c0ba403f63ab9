/**
 * One test run as k6 runs it: load and evaluate the script (init context per VU), consolidate
 * options, initialize VUs, setup(), the scenarios (concurrently, by startTime), teardown(),
 * thresholds, then handleSummary() or the text summary. Returns k6's exit code.
 */
import { writeFileSync } from 'node:fs';
import { createExecutor, maxScenarioDuration_ms, peakPlannedVus } from './executors/index.ts';
import { logScriptError } from './executors/iteration.ts';
import { VuPool } from './executors/pool.ts';
import { LifecycleTimeoutError, callExport, writeSummaryOutputs } from './lifecycle.ts';
import { loadProgram, type Program } from './loader/program.ts';
import { logLine } from './log.ts';
import { SamplePipeline } from './metrics/pipeline.ts';
import { MetricRegistry } from './metrics/registry.ts';
import {
  consolidateOptions,
  InvalidConfigError,
  type OptionOverrides,
  type TestOptions,
} from './options/index.ts';
import { createOutputs } from './outputs/index.ts';
import { banner, startProgress } from './progress.ts';
import { EXIT, type ScenarioRuntime, TestAbortError, TestRun } from './run-state.ts';
import { SectionTracker } from './metrics/sections.ts';
import { buildSections, buildSummaryData, type SummaryData } from './summary/data.ts';
import { legacySummaryExport } from './summary/export.ts';
import { renderTextSummary, type SummaryMode, type SummarySection } from './summary/text.ts';
import { buildThresholds, evaluateThresholds, type ThresholdSet } from './thresholds.ts';
import { VU } from './vu.ts';

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
  /** Handle SIGINT/SIGTERM like k6 (stop, teardown, summary, exit 105); the CLI sets it. */
  handleSignals?: boolean;
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
  const stdout = opts.stdout ?? ((s: string) => void process.stdout.write(s));
  const stderr = opts.stderr ?? ((s: string) => void process.stderr.write(s));
  let program: Program;
  try {
    program = await loadProgram(opts.script);
  } catch (err) {
    return fail(EXIT.SCRIPT_EXCEPTION, (err as Error).message);
  }
  const registry = new MetricRegistry();
  const pipeline = new SamplePipeline(registry);
  const sysEnv = opts.includeSystemEnv === false ? {} : (process.env as Record<string, string>);
  const run = new TestRun(registry, pipeline, { ...sysEnv, ...(opts.env ?? {}) }, program.path);
  run.iterationHooks = program.iterationHooks();
  const vu0 = new VU(0, run);
  try {
    program.instantiate(vu0);
  } catch (err) {
    if (err instanceof TestAbortError || run.abortRequest)
      return fail(EXIT.SCRIPT_ABORTED, (err as Error).message);
    logScriptError(err, null);
    return { exitCode: EXIT.SCRIPT_EXCEPTION, summaryData: null };
  }
  let options: TestOptions;
  let thresholds: ThresholdSet[];
  try {
    options = consolidateOptions(vu0.exports['options'], opts.overrides);
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
      ...createOutputs(opts.out ?? [], (name) =>
        thresholds.filter((t) => t.key === name).flatMap((t) => t.thresholds.map((x) => x.source)),
      ),
    );
  } catch (err) {
    return fail(EXIT.INVALID_CONFIG, (err as Error).message);
  }
  run.options = options;
  if (opts.summaryMode === 'full') pipeline.sections = new SectionTracker();
  const moduleOptions = {
    discardResponseBodies: options.discardResponseBodies,
    noConnectionReuse: options.noConnectionReuse,
  };
  vu0.options = moduleOptions;
  const pool = new VuPool(
    run,
    (id) => {
      const vu = new VU(id, run);
      vu.options = moduleOptions;
      program.instantiate(vu);
      return vu;
    },
    registry.get('vus_max')!,
  );
  const plannedVus = peakPlannedVus(options.scenarios);
  if (!opts.quiet) {
    stdout(
      banner({
        script: opts.script,
        outputs: opts.out ?? [],
        scenarios: options.scenarios,
        maxVus: plannedVus,
        maxDuration_ms: Math.max(...options.scenarios.map((c) => c.startTime_ms + maxScenarioDuration_ms(c))),
      }),
    );
  }
  const onSigint = () => {
    if (run.abortRequest) process.exit(EXIT.EXTERNAL_ABORT);
    logLine('WARN', 'Stopping k6-triton in response to signal...');
    run.requestAbort(EXIT.EXTERNAL_ABORT, 'test run was stopped by a signal');
  };
  if (opts.handleSignals) {
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigint);
  }
  // Script code can leave a promise rejected un-awaited or throw from a timer: k6 logs those and
  // goes on; so does the runtime, instead of letting Node end the process.
  const onStray = (err: unknown) => logScriptError(err, null);
  process.on('unhandledRejection', onStray);
  process.on('uncaughtException', onStray);
  try {
    return await execute({ run, pool, vu0, options, thresholds, plannedVus, opts, io: { stdout, stderr } });
  } finally {
    if (opts.handleSignals) {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigint);
    }
    process.off('unhandledRejection', onStray);
    process.off('uncaughtException', onStray);
    await pool.retireAll();
    await vu0.retire();
    await pipeline.close().catch(() => {});
  }
}

/** What the run's execution phase needs, once the script is loaded and the options are valid. */
interface Execution {
  run: TestRun;
  pool: VuPool;
  vu0: VU;
  options: TestOptions;
  thresholds: ThresholdSet[];
  plannedVus: number;
  opts: RunTestOptions;
  io: { stdout: (s: string) => void; stderr: (s: string) => void };
}

async function execute(x: Execution): Promise<RunTestResult> {
  const { run, pool, vu0, options, thresholds, plannedVus, opts, io } = x;
  const { registry, pipeline } = run;
  let exitCode: number = EXIT.OK;
  try {
    pool.preallocate(plannedVus);
  } catch (err) {
    if (run.abortRequest) return fail(EXIT.SCRIPT_ABORTED, run.abortRequest.reason);
    logScriptError(err, null);
    return { exitCode: EXIT.SCRIPT_EXCEPTION, summaryData: null };
  }
  const t0 = performance.now();
  let setupJson: string | undefined;
  let setupOk = true;
  if (typeof vu0.exports['setup'] === 'function') {
    try {
      const data = await callExport(vu0, 'setup', undefined, options.setupTimeout_ms);
      setupJson = data === undefined ? undefined : JSON.stringify(data);
    } catch (err) {
      setupOk = false;
      if (err instanceof LifecycleTimeoutError) {
        logLine('ERRO', err.message);
        exitCode = EXIT.SETUP_TIMEOUT;
      } else if (!(err instanceof TestAbortError)) {
        logScriptError(err, null);
        exitCode = EXIT.SCRIPT_EXCEPTION;
      }
    }
  }
  const stopTimers: (() => void)[] = [];
  if (setupOk && !run.abortRequest) {
    run.start_ms = performance.now();
    const vus = registry.get('vus')!;
    const sampleVus = () => pipeline.add(vus, run.vusActive, options.tags);
    const vt = setInterval(sampleVus, 1000);
    stopTimers.push(() => clearInterval(vt));
    setImmediate(sampleVus);
    if (thresholds.some((s) => s.thresholds.some((t) => t.abortOnFail))) {
      const tt = setInterval(() => {
        const r = evaluateThresholds(thresholds, performance.now() - run.start_ms);
        if (r.abort)
          run.requestAbort(
            EXIT.THRESHOLDS_FAILED,
            `thresholds on metrics '${failedMetrics(r.failedKeys)}' were crossed; at least one has abortOnFail enabled, stopping test prematurely`,
          );
      }, 2000);
      stopTimers.push(() => clearInterval(tt));
    }
    if (!opts.quiet && process.stderr.isTTY)
      stopTimers.push(startProgress(run, () => pool.all.length, process.stderr));
    await runScenarios(run, pool, options, setupJson);
    for (const stop of stopTimers) stop();
    // Read through a cast: TypeScript narrowed abortRequest to null above, but awaits may have set it.
    const ar = run.abortRequest as TestRun['abortRequest'];
    if (ar) logLine(ar.code === EXIT.SCRIPT_ABORTED ? 'ERRO' : 'WARN', ar.reason);
  }
  if (setupOk && typeof vu0.exports['teardown'] === 'function') {
    try {
      await callExport(
        vu0,
        'teardown',
        setupJson === undefined ? undefined : JSON.parse(setupJson),
        options.teardownTimeout_ms,
      );
    } catch (err) {
      if (err instanceof LifecycleTimeoutError) {
        logLine('ERRO', err.message);
        if (exitCode === EXIT.OK) exitCode = EXIT.TEARDOWN_TIMEOUT;
      } else if (!(err instanceof TestAbortError)) {
        logScriptError(err, null);
        if (exitCode === EXIT.OK) exitCode = EXIT.SCRIPT_EXCEPTION;
      }
    }
  }
  const duration_ms = performance.now() - t0;
  try {
    await pipeline.close();
  } catch (err) {
    logLine('ERRO', `writing an output failed: ${(err as Error).message}`);
  }
  const verdict = evaluateThresholds(thresholds, duration_ms);
  const data = buildSummaryData({
    registry,
    thresholds,
    rootGroup: run.rootGroup,
    trendStats: options.summaryTrendStats,
    timeUnit: options.summaryTimeUnit,
    noColor: opts.noColor ?? false,
    testRunDuration_ms: duration_ms,
    isStdOutTTY: Boolean(process.stdout.isTTY),
    isStdErrTTY: Boolean(process.stderr.isTTY),
  });
  const sections = run.pipeline.sections
    ? buildSections(run.pipeline.sections, options.summaryTrendStats, duration_ms)
    : [];
  await emitSummary(vu0, data, sections, opts, io);
  if (opts.summaryExport) {
    try {
      writeFileSync(opts.summaryExport, JSON.stringify(legacySummaryExport(data), null, 4));
    } catch (err) {
      logLine('ERRO', `cannot write --summary-export ${opts.summaryExport}: ${(err as Error).message}`);
    }
  }
  if (!verdict.ok)
    logLine('ERRO', `thresholds on metrics '${failedMetrics(verdict.failedKeys)}' have been crossed`);
  if (run.abortRequest) exitCode = run.abortRequest.code;
  else if (exitCode === EXIT.OK && !verdict.ok) exitCode = EXIT.THRESHOLDS_FAILED;
  return { exitCode, summaryData: data };
}

function failedMetrics(keys: string[]): string {
  return [...new Set(keys.map((k) => k.slice(0, k.indexOf(': '))))].join(', ');
}

async function emitSummary(
  vu0: VU,
  data: SummaryData,
  sections: SummarySection[],
  opts: RunTestOptions,
  io: { stdout: (s: string) => void; stderr: (s: string) => void },
): Promise<void> {
  if (typeof vu0.exports['handleSummary'] === 'function') {
    try {
      // The script may change its argument; the run's own data stays intact.
      const result = await callExport(vu0, 'handleSummary', structuredClone(data), 120_000);
      writeSummaryOutputs(result, io);
      return;
    } catch (err) {
      logLine('ERRO', `handleSummary() failed: ${(err as Error).message}; printing the default summary`);
    }
  }
  if (!opts.noSummary) io.stdout(renderTextSummary(data, opts.summaryMode ?? 'compact', sections));
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
