/**
 * One benchmark run, as perf_analyzer's top level reads: resolve the target, prepare payloads,
 * bundle, run the scenario, then write the reports from whatever the run gathered.
 */
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildScenarios } from '../build.ts';
import { resolveRunPlan } from '../lib/scenario/run-plan.ts';
import { buildRunReport, generatorCost, type K6SummaryData } from '../lib/summary/from-summary.ts';
import { cutLevels, windowStart_ms, withoutCut } from '../lib/summary/partial.ts';
import {
  type MetricsScrape,
  serverMetricsFor,
  serverTimeline,
  type WindowSpan,
} from '../lib/summary/server-metrics.ts';
import type { LevelResult, PartialLevel } from '../lib/summary/types.ts';
import { genericEntry } from '../models/generic.ts';
import { getModel } from '../models/index.ts';
import { ensurePayloads } from '../payloads/index.ts';
import { fetchLiveEntry } from '../payloads/live-fetch.ts';
import { reportMarkdown } from '../report/markdown.ts';
import { writeRunReport } from '../report/write.ts';
import { type CpuSample, cpuShare_pct } from './cpu.ts';
import { EXIT_EXTERNAL_ABORT, type Interruption, watchSignals } from './interrupt.ts';
import { type LocalServer, startLocalServer } from './local-server.ts';
import { checkMetricsUrl, scrapeMetrics } from './metrics-scrape.ts';
import { watchProgress } from './progress.ts';
import { type RunOutcome, type RuntimeChoice, runScenario, runtimeCommand } from './runner.ts';
import { us_to_ms } from '../../lib/units.ts';

/** The package's root: scenarios and budget files are found from here, whatever the working directory. */
const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** What a bench run takes; env holds the scenario settings (TRITON_URL, PROTOCOL, CONCURRENCY, ...). */
export interface BenchOptions {
  model: string;
  env: Record<string, string>;
  runtime: RuntimeChoice;
  k6Args: string[];
  resultsDir: string;
  /** The server started when no TRITON_URL is given: settings of the embedded server, or a real tritonserver. */
  timeScale?: number;
  modelRepository?: string;
  /** A tritonserver binary (TRITONSERVER) to start instead of the embedded server. */
  tritonserver?: string;
  /** Requests in a generated payload set. @default 8 */
  count?: number;
  /** Also copy junit.xml here, for CI systems. */
  junit?: string;
  /** The target's Prometheus endpoint, scraped per level; 'off' for none. @default the embedded server's */
  metricsUrl?: string;
  /** Also write perf_analyzer-verbose.csv (perf_analyzer's --verbose-csv columns). */
  verboseCsv?: boolean;
  /** Print the bench's progress lines (level i of n, times, live rate) to stderr. @default true */
  progress?: boolean;
}

/** Where the run's files are and how it ended. */
export interface BenchOutcome {
  exitCode: number;
  dir: string;
}

function runId(): string {
  return new Date().toISOString().replace(/[:.]/g, '-').replace('Z', '');
}

/**
 * Adds the generator's CPU share to each level: the runtime process's samples over the level's window,
 * whose start the level's stats probe recorded. Only the bench can see the process, so only it adds this.
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
      result.failure !== undefined,
    );
    return { ...result, generator };
  });
}

/** Adds the target's Prometheus metrics over each level's window (from its stats probe's start time). */
function withServerMetrics(
  results: LevelResult[],
  metrics: K6SummaryData['metrics'],
  scrapes: readonly MetricsScrape[],
  model: string,
): LevelResult[] {
  return results.map((result) => {
    const start_ms = windowStart_ms(metrics, result.name);
    if (start_ms === undefined) return result;
    const server_metrics = serverMetricsFor(scrapes, start_ms, start_ms + result.window_s * 1000, model);
    return server_metrics ? { ...result, server_metrics } : result;
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

/** Reads a JSON file the run wrote, or undefined when the run ended before writing it. */
function readJson<T>(path: string): T | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : undefined;
}

/** k6's exit codes of a run that went to its end: passed, or a threshold crossed. */
const WHOLE_RUN_EXITS = new Set([0, 99]);

/**
 * The levels a stopped run cut short, and why it stopped: at the bench's signal when one came (the runtime
 * heard it at once, from the bench), else at the runtime's exit when that exit says the run did not go to
 * its end (a signal sent to the runtime alone, test.abort(), a crash).
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
  if (run.exitCode === EXIT_EXTERNAL_ABORT) return { interrupted: 'a signal to the runtime', partial };
  return partial.length > 0 ? { interrupted: `the runtime's exit ${run.exitCode}`, partial } : { partial };
}

/**
 * Runs one model's benchmark end to end; the reports are written even when the run fails. SIGINT and
 * SIGTERM stop it as they stop k6 (see interrupt.ts): finished levels written, the cut one named, exit 105.
 */
export async function runBench(options: BenchOptions): Promise<BenchOutcome> {
  const interruption = watchSignals();
  try {
    return await benchWith(options, interruption);
  } finally {
    interruption.dispose();
  }
}

async function benchWith(options: BenchOptions, interruption: Interruption): Promise<BenchOutcome> {
  const env: Record<string, string> = { ...options.env };
  const catalogEntry = options.model === 'generic' ? genericEntry(env.MODEL_NAME) : getModel(options.model);
  // bert-base and bert-large share one scenario, which picks its entry by MODEL.
  if (catalogEntry.scenario === 'bert') env.MODEL = catalogEntry.id;
  const budgetPath = env.THRESHOLDS
    ? resolve(env.THRESHOLDS)
    : join(PACKAGE_ROOT, 'thresholds', `${catalogEntry.id}.json`);
  // The same plan the scenario resolves inside k6: bad settings fail here, before anything starts.
  const { settings, overrides, budget, validateEvery, warmupChecks, plan } = resolveRunPlan(
    catalogEntry,
    env,
    readFileSync(budgetPath, 'utf8'),
    budgetPath,
  );
  const startedAt = new Date().toISOString();
  // Checked before anything starts, as the run plan is.
  const wantedMetricsUrl =
    options.metricsUrl && options.metricsUrl !== 'off' ? checkMetricsUrl(options.metricsUrl) : undefined;

  let server: LocalServer | undefined;
  if (!env.TRITON_URL) {
    server = await startLocalServer(
      {
        modelId: catalogEntry.id,
        servedModel: settings.modelName,
        ...(env.PRECISION ? { precision: settings.precision } : {}),
        modelRepository: options.modelRepository,
        timeScale: options.timeScale,
        tritonserver: options.tritonserver,
      },
      interruption,
    );
    env.TRITON_URL = server.url;
    env.TRITON_GRPC_URL = server.grpcUrl;
    console.log(server.description);
  }
  try {
    const entry =
      catalogEntry.id === 'generic'
        ? // A generic model's entry is read from the server, as perf_analyzer does.
          {
            ...(await fetchLiveEntry(env.TRITON_URL, settings.modelName, settings.modelVersion || undefined)),
            id: 'generic',
          }
        : catalogEntry;
    if (!env.PAYLOAD) {
      const set = await ensurePayloads({
        model: entry,
        batch: settings.batch,
        // Empty for a generic model: its datatypes are the server's.
        ...(settings.precision ? { precision: settings.precision } : {}),
        ...(options.count ? { count: options.count } : {}),
      });
      env.PAYLOAD = set.manifestPath;
    }
    env.PAYLOAD = resolve(env.PAYLOAD);
    env.THRESHOLDS = budgetPath;
    const dir = resolve(
      options.resultsDir,
      catalogEntry.id === 'generic' ? entry.name : catalogEntry.id,
      runId(),
    );
    await mkdir(dir, { recursive: true });
    env.SUMMARY_JSON = join(dir, 'k6-summary.json');
    env.LEVELS_JSON = join(dir, 'levels.json');
    const [script] = await buildScenarios([join(PACKAGE_ROOT, 'scenarios', `${catalogEntry.scenario}.ts`)]);
    const metricsUrl = options.metricsUrl === 'off' ? undefined : (wantedMetricsUrl ?? server?.metricsUrl);
    const scraper =
      metricsUrl && !interruption.first
        ? scrapeMetrics(metricsUrl, (line) => console.error(`k6-triton: ${line}`))
        : undefined;
    // Outside the measured path: a timer in the bench process reading the plan and the scrapes.
    const stopProgress =
      options.progress === false || interruption.first
        ? undefined
        : watchProgress({
            levels: plan.levels,
            total_s: plan.total_s,
            model: settings.modelName,
            batch: settings.batch,
            scrapes: () => scraper?.scrapes() ?? [],
            started_ms: Date.now(),
            print: (line) => console.error(`k6-triton: ${line}`),
          });
    // A signal before the run started: nothing to measure, nothing to stop but the server.
    const run: RunOutcome = interruption.first
      ? {
          runtime: runtimeCommand(options.runtime).runtime,
          exitCode: EXIT_EXTERNAL_ABORT,
          cpu: [],
          ended_ms: Date.now(),
        }
      : await runScenario({
          runtime: options.runtime,
          script: script!,
          env,
          k6Args: options.k6Args,
          interruption,
        });
    stopProgress?.();
    const scrapes = (await scraper?.stop()) ?? [];

    // The level results were computed once, by the scenario's handleSummary; here they are only written,
    // less the levels the bench knows were cut (it knows when the signal came, to the millisecond).
    const summary = readJson<K6SummaryData>(env.SUMMARY_JSON) ?? { metrics: {} };
    const { interrupted, partial } = cutShort(run, interruption, summary.metrics, plan.levels);
    const measured = withoutCut(readJson<LevelResult[]>(env.LEVELS_JSON) ?? [], partial);
    const results = withServerMetrics(
      withGeneratorCpu(measured, summary.metrics, run.cpu),
      summary.metrics,
      scrapes,
      settings.modelName,
    );
    const timeline = serverTimeline(scrapes, levelWindows(results, summary.metrics), settings.modelName);
    const report = buildRunReport({
      model: settings.modelName,
      protocol: settings.protocol,
      runtime: run.runtime,
      batch: settings.batch,
      started_at: startedAt,
      results,
      validate_every: validateEvery,
      warmup_checks: warmupChecks,
      ...(interrupted ? { interrupted, partial } : {}),
      ...(timeline.points.length > 0 ? { server_timeline: timeline } : {}),
    });
    const written = await writeRunReport(dir, report, summary, {
      budget: { p95_ms: overrides.p95_ms ?? budget.p95_ms, p99_ms: overrides.p99_ms ?? budget.p99_ms },
      ...(options.verboseCsv ? { verboseCsv: true } : {}),
    });
    if (results.length > 0 || interrupted) console.log(`\n${reportMarkdown(report)}`);
    else console.log('\nno level completed a request; see the errors above');
    if (options.junit && written.files['junit.xml'])
      await copyFile(written.files['junit.xml'], options.junit);
    for (const error of written.errors) console.error(`k6-triton: could not write ${error}`);
    console.log(`results: ${dir}`);
    // Stopped by a signal, the bench exits as k6 does (105), whatever the runtime's own code.
    return { exitCode: interruption.first ? EXIT_EXTERNAL_ABORT : run.exitCode, dir };
  } finally {
    await server?.stop();
  }
}
