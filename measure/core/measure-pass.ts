/**
 * One measurement on a prepared target: the scenario runs over a set of levels (the runtime's only
 * process start), and its level results come back as a run report in memory, with what only this side
 * sees added (the generator's CPU, the server's metrics) and the levels a signal cut left out.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { LoadMode } from '../../lib/load/shapes.ts';
import type { RunPlan } from '../../scenarios/kit/run-plan.ts';
import { buildRunReport, generatorCost, type K6SummaryData } from '../../lib/summary/from-summary.ts';
import { cutLevels, windowStart_ms, withoutCut } from '../../lib/summary/partial.ts';
import { engineMetricsFor } from '../../lib/summary/engine-metrics.ts';
import {
  type MetricsScrape,
  serverMetricsFor,
  serverTimeline,
  type WindowSpan,
} from '../../lib/summary/server-metrics.ts';
import type { LevelResult, PartialLevel, RunReport } from '../../lib/summary/types.ts';
import { us_to_ms } from '../../lib/units.ts';
import { EXIT } from './exit-codes.ts';
import { RESERVED_CORES_ENV } from '@k6-triton/runtime';
import { type CpuSample, cpuShare_pct } from './cpu.ts';
import type { Interruption } from './interrupt.ts';
import { extractRecords, readRunRecords, recordsOutputArgs } from './genai-records.ts';
import { withRecordFigures } from '../../lib/genai/record-figures.ts';
import { read } from '../../lib/settings/read.ts';
import { S } from '../../lib/settings/schema.ts';
import { scrapeMetrics } from './metrics-scrape.ts';
import type { Prepared } from './prepare.ts';
import { watchProgress } from './progress.ts';
import { type RunOutcome, type RuntimeChoice, runScenario, runtimeCommand } from './runner.ts';
import { planAt, type RunSettings, withLevels } from './target.ts';
import { hasFigures } from '../../lib/summary/failure.ts';
import { countWindow_s, type MeasurementRules, maxPasses, windowsFull } from '../../lib/load/measurement.ts';
import { formatDuration_ms } from '../../lib/duration.ts';
import { readRuntimeFiles, WHOLE_RUN_EXITS } from './runtime-files.ts';

/** What one measurement takes besides the prepared target. */
export interface MeasureOptions {
  /** Levels to measure instead of the settings' own (capacity and sweep). */
  levels?: { mode: LoadMode; levels: readonly number[] };
  /** The run's folder: the runtime writes its summary there (k6-summary.json, levels.json). */
  dir: string;
  runtime: RuntimeChoice;
  k6Args?: string[];
  /** The command's signal watcher: a signal stops the run as k6 stops (finished levels kept). */
  interruption: Interruption;
  /** Print the progress lines (level i of n, times, live rate) to stderr. @default true */
  progress?: boolean;
  /** How often the server's metrics are scraped (perf_analyzer's --metrics-interval). @default 500 */
  metricsInterval_ms?: number;
  /**
   * The runtime's own output goes to runtime.log in the run's folder, and neither progress nor pass lines
   * are printed: the caller prints one line per measurement (capacity, the pre-flight). @default false
   */
  quiet?: boolean;
}

/** The file a quiet measurement's runtime output goes to, in its run's folder. */
export const RUNTIME_LOG = 'runtime.log';

/** A finished measurement, all in memory. */
export interface Measured {
  report: RunReport;
  /** k6's end-of-test summary data, as the runtime exported it (for the files written from it). */
  summary: K6SummaryData;
  /** The plan the levels were measured under (its limits are the budget in force). */
  plan: RunPlan;
  /** k6's exit code of the run; 105 (EXIT.EXTERNAL_ABORT) when the command was stopped by a signal. */
  exitCode: number;
  /** True when the runtime's levels.json was due but not written whole: the levels are unknown, not none. */
  levelsUnread?: boolean;
}

/**
 * Adds the generator's CPU share to each level: the runtime process's samples over the level's window,
 * whose start the level's stats probe recorded. Only this side can see the process, so only it adds this.
 */
function withGeneratorCpu(
  results: LevelResult[],
  metrics: K6SummaryData['metrics'],
  samples: readonly CpuSample[],
): LevelResult[] {
  return results.map((result) => {
    const start_ms = windowStart_ms(metrics, result.name);
    if (!result.generator || start_ms === undefined) return result;
    const cpu_pct = cpuShare_pct(samples, start_ms, start_ms + result.window_s * 1000);
    if (cpu_pct === undefined) return result;
    const { iteration_avg_us } = result.generator;
    const generator = generatorCost(
      us_to_ms(iteration_avg_us),
      us_to_ms(result.latency_us.avg),
      cpu_pct,
      result.generator.not_judged,
    );
    return { ...result, generator };
  });
}

/**
 * Adds the target's Prometheus metrics over each level's window (from its stats probe's start time): Triton's
 * server metrics and, when the target serves them, its LLM engine's.
 */
function withServerMetrics(
  results: LevelResult[],
  metrics: K6SummaryData['metrics'],
  scrapes: readonly MetricsScrape[],
  model: string,
): LevelResult[] {
  return results.map((result) => {
    const start_ms = windowStart_ms(metrics, result.name);
    if (start_ms === undefined) return result;
    const end_ms = start_ms + result.window_s * 1000;
    const server_metrics = serverMetricsFor(scrapes, start_ms, end_ms, model);
    const engine_metrics = engineMetricsFor(scrapes, start_ms, end_ms, model);
    return {
      ...result,
      ...(server_metrics ? { server_metrics } : {}),
      ...(engine_metrics ? { engine_metrics } : {}),
    };
  });
}

/** The measured levels' windows (epoch ms, from their stats probes' start times), for the server timeline. */
function levelWindows(results: readonly LevelResult[], metrics: K6SummaryData['metrics']): WindowSpan[] {
  return results.flatMap((result) => {
    const from_ms = windowStart_ms(metrics, result.name);
    return from_ms === undefined
      ? []
      : [{ level: result.name, from_ms, to_ms: from_ms + result.window_s * 1000 }];
  });
}

/**
 * The levels a stopped run cut short, and why it stopped: at the command's signal when one came (the
 * runtime heard it at once, from here), else at the runtime's exit when that exit says the run did not go
 * to its end (a signal sent to the runtime alone, test.abort(), a crash).
 */
function cutShort(
  run: RunOutcome,
  interruption: Interruption,
  metrics: K6SummaryData['metrics'],
  levels: Parameters<typeof cutLevels>[1],
): { interrupted?: string; partial: PartialLevel[] } {
  const signal = interruption.first;
  if (!signal && WHOLE_RUN_EXITS.has(run.exitCode)) return { partial: [] };
  const partial = cutLevels(metrics, levels, signal?.at_ms ?? run.ended_ms);
  if (signal) return { interrupted: signal.signal, partial };
  if (run.exitCode === EXIT.EXTERNAL_ABORT) return { interrupted: 'a signal to the runtime', partial };
  return partial.length > 0 ? { interrupted: `the runtime's exit ${run.exitCode}`, partial } : { partial };
}

/**
 * The runtime's environment (its process environment, never -e pairs): the settings, the scenario's own entry, and where this run's
 * target, payloads, budget and summary files are. Built here only, where the run starts.
 */
export function scenarioEnvironment(
  prepared: Prepared,
  settings: RunSettings,
  dir: string,
): Record<string, string> {
  return {
    ...settings,
    ...prepared.target.scenarioEnv,
    TRITON_URL: prepared.url,
    ...(prepared.grpcUrl ? { TRITON_GRPC_URL: prepared.grpcUrl } : {}),
    ...(settings.HEADERS_FILE ? { HEADERS_FILE: resolve(settings.HEADERS_FILE) } : {}),
    PAYLOAD: prepared.payload,
    THRESHOLDS: prepared.target.budgetPath,
    SUMMARY_JSON: join(dir, 'k6-summary.json'),
    LEVELS_JSON: join(dir, 'levels.json'),
  };
}

/**
 * What one runtime run left: how it ended, k6's summary data, the scenario's level results (`L`, undefined
 * when levels.json was not written whole) and the server's scrapes over it.
 */
export interface RuntimeRun<L = unknown> {
  run: RunOutcome;
  summary: K6SummaryData;
  levels: L | undefined;
  /** levels.json was due but not written whole (recorded for the end of the output). */
  levelsLost: boolean;
  scrapes: MetricsScrape[];
  started_at: string;
}

/**
 * Runs the prepared bundle once with `env` (the runtime's only process start), scraping the server's
 * metrics and printing progress over `plan`'s levels; `label` names what runs in the progress lines.
 */
export async function runMeasurement<L>(
  prepared: Prepared,
  env: Record<string, string>,
  plan: RunPlan,
  label: string,
  options: MeasureOptions,
): Promise<RuntimeRun<L>> {
  const { interruption } = options;
  const started_at = new Date().toISOString();
  await mkdir(options.dir, { recursive: true });
  const scraper =
    prepared.metricsUrl && !interruption.first
      ? scrapeMetrics(
          prepared.metricsUrl,
          (line) => console.error(`k6-triton: ${line}`),
          options.metricsInterval_ms,
        )
      : undefined;
  // Outside the measured path: a timer in this process reading the plan and the scrapes.
  const stopProgress =
    options.progress === false || options.quiet || interruption.first
      ? undefined
      : watchProgress({
          levels: plan.plan.levels,
          total_s: plan.plan.total_s,
          model: label,
          batch: plan.settings.batch,
          scrapes: () => scraper?.scrapes() ?? [],
          started_ms: Date.now(),
          print: (line) => console.error(`k6-triton: ${line}`),
        });
  // A signal before the run started: nothing to measure.
  const run: RunOutcome = interruption.first
    ? {
        runtime: runtimeCommand(options.runtime).runtime,
        exitCode: EXIT.EXTERNAL_ABORT,
        cpu: [],
        ended_ms: Date.now(),
      }
    : await runScenario({
        runtime: options.runtime,
        script: prepared.script,
        env,
        k6Args: [...(prepared.tls?.k6Args ?? []), ...(options.k6Args ?? [])],
        processEnv: {
          ...prepared.tls?.env,
          // A server started here shares the machine: the Node runtime's default workers leave it a core.
          ...(prepared.server ? { [RESERVED_CORES_ENV]: '1' } : {}),
        },
        interruption,
        ...(options.quiet ? { log: join(options.dir, RUNTIME_LOG) } : {}),
        deadline_s: runtimeDeadline_s(plan.plan.total_s),
      });
  stopProgress?.();
  const scrapes = (await scraper?.stop()) ?? [];
  const files = readRuntimeFiles<L>({ summary: env.SUMMARY_JSON!, levels: env.LEVELS_JSON! }, run.exitCode);
  const summary = (files.summary as K6SummaryData | undefined) ?? { metrics: {} };
  return { run, summary, levels: files.levels, levelsLost: files.levelsLost, scrapes, started_at };
}

/**
 * When a runtime still running is hung: the plan, plus k6's default setupTimeout and teardownTimeout (60 s
 * each) and a minute for start-up and the summary.
 */
export function runtimeDeadline_s(total_s: number): number {
  return Math.ceil(total_s) + 180;
}

/**
 * One model's run report from a run: its level results (computed once, by the scenario's handleSummary, in
 * the runtime's process) without the levels a signal cut (this side knows when it came, to the
 * millisecond), with the generator's CPU and the server's metrics for `plan`'s model added.
 */
export function modelReport(
  measured: RuntimeRun,
  plan: RunPlan,
  levels: LevelResult[],
  interruption: Interruption,
): RunReport {
  const { run, summary, scrapes } = measured;
  const model = plan.settings.modelName;
  const { interrupted, partial } = cutShort(run, interruption, summary.metrics, plan.plan.levels);
  const results = withServerMetrics(
    withGeneratorCpu(withoutCut(levels, partial), summary.metrics, run.cpu),
    summary.metrics,
    scrapes,
    model,
  );
  const timeline = serverTimeline(scrapes, levelWindows(results, summary.metrics), model);
  return buildRunReport({
    model,
    protocol: plan.settings.protocol,
    runtime: run.runtime,
    batch: plan.settings.batch,
    started_at: measured.started_at,
    results,
    validate_every: plan.validateEvery,
    warmup_checks: plan.warmupChecks,
    ...(interrupted ? { interrupted, partial } : {}),
    ...(timeline.points.length > 0 ? { server_timeline: timeline } : {}),
  });
}

/** k6's exit code of a run; 105 when the command was stopped by a signal, whatever the runtime's own code. */
export function runExitCode(run: RunOutcome, interruption: Interruption): number {
  return interruption.first ? EXIT.EXTERNAL_ABORT : run.exitCode;
}

/**
 * Runs the scenario once over `levels` (the settings' own when absent) with its files in `dir`: one pass, its
 * report's results not yet judged as the run's.
 */
async function measurePass(
  prepared: Prepared,
  options: MeasureOptions,
  dir: string,
  levels?: { mode: LoadMode; levels: readonly number[] },
  window_s?: number,
): Promise<Measured> {
  const { target } = prepared;
  // The plan takes the levels and window as numbers; the scenario's process is told them as settings.
  const base = window_s
    ? { ...target.settings, STEP_DURATION: formatDuration_ms(window_s * 1000) }
    : target.settings;
  const settings = levels ? withLevels(base, levels.mode, levels.levels) : base;
  const plan =
    levels || window_s
      ? planAt(target, { ...(levels ? { levels } : {}), ...(window_s ? { window_s } : {}) })
      : target.run;
  const env = scenarioEnvironment(prepared, settings, dir);
  // A generative run keeps every measured request's raw record (records.jsonl) for re-scoring offline.
  const generative = target.entry.scenario === 'llm';
  const measured = await runMeasurement<LevelResult[]>(prepared, env, plan, plan.settings.modelName, {
    ...options,
    dir,
    k6Args: [...(generative ? recordsOutputArgs(dir) : []), ...(options.k6Args ?? [])],
  });
  const results = generative
    ? withRecordFigures(measured.levels ?? [], await extractRecords(dir).then(() => readRunRecords(dir)), {
        slice_s: read(target.settings, S.SLICE_DURATION),
      })
    : (measured.levels ?? []);
  const report = modelReport(measured, plan, results, options.interruption);
  return {
    report,
    summary: measured.summary,
    plan,
    exitCode: runExitCode(measured.run, options.interruption),
    ...(measured.levelsLost ? { levelsUnread: true } : {}),
  };
}

/** Whether a measured level needs another pass under perf_analyzer's rules: unstable, or windows too short. */
function needsPass(result: LevelResult, rules: MeasurementRules): boolean {
  if (!hasFigures(result)) return false;
  return result.stable === false || !windowsFull(rules, result.requests);
}

/**
 * Measures the levels on the prepared target and returns the run report; never reads a file it wrote. As
 * perf_analyzer, a level that is not stable (or, in count windows, whose windows held too few requests) is
 * measured again, up to --max-trials windows, and the run keeps its last pass; each later pass writes its
 * runtime's files under passes/<n>/.
 */
export async function measure(prepared: Prepared, options: MeasureOptions): Promise<Measured> {
  const first = await measurePass(prepared, options, options.dir, options.levels);
  const rules = first.plan.measurement;
  const results = new Map(first.report.results.map((r) => [r.name, r]));
  let interrupted = first.report.interrupted;
  // Only a first pass that ran to its end, with its levels read back, is measured again.
  // A ramp's windows are parts of one scenario: none can run again alone, and none is judged for stability.
  const whole = WHOLE_RUN_EXITS.has(first.exitCode) && !first.levelsUnread && !first.plan.load.ramp;
  for (let pass = 2; whole && pass <= maxPasses(rules) && !interrupted; pass++) {
    const again = [...results.values()].filter((r) => needsPass(r, rules));
    if (again.length === 0) break;
    const window_s =
      rules.mode === 'count_windows'
        ? Math.max(...again.map((r) => countWindow_s(rules, r.requests, r.window_s)))
        : undefined;
    if (!options.quiet)
      console.error(
        `k6-triton: measuring again (pass ${pass} of at most ${maxPasses(rules)}): ${again
          .map(
            (r) =>
              `${r.name} ${r.stable === false ? `unstable ±${r.stability_spread_pct?.toFixed(0) ?? '?'}%` : `${r.requests} requests`}`,
          )
          .join(', ')}`,
      );
    const next = await measurePass(
      prepared,
      options,
      join(options.dir, 'passes', String(pass)),
      { mode: first.plan.load.mode, levels: again.map((r) => r.level) },
      window_s,
    );
    if (next.report.interrupted) interrupted = next.report.interrupted;
    for (const result of next.report.results) results.set(result.name, { ...result, trials: pass });
  }
  const ordered = first.plan.plan.levels.flatMap((level) => results.get(level.name) ?? []);
  const { verdict_ok: _ok, verdict: _v, verdict_reasons: _r, unmeasured: _u, ...fields } = first.report;
  const report = buildRunReport(
    { ...fields, results: ordered, ...(interrupted ? { interrupted } : {}) },
    {
      planned: first.plan.plan.levels.map((level) => level.name),
      allowInconclusive: rules.allow_inconclusive,
    },
  );
  return {
    report,
    summary: first.summary,
    plan: first.plan,
    exitCode: first.exitCode,
    ...(first.levelsUnread ? { levelsUnread: true } : {}),
  };
}
