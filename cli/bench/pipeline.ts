/**
 * One benchmark run, as perf_analyzer's top level reads: resolve the target, prepare payloads,
 * bundle, run the scenario, then write the reports from whatever the run gathered.
 */
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildScenarios } from '../../build.ts';
import { resolveRunPlan } from '../../lib/scenario/run-plan.ts';
import { statsName, subMetricKey, WINDOW_START_METRIC } from '../../lib/load/names.ts';
import { buildRunReport, generatorCost, type K6SummaryData } from '../../lib/summary/from-summary.ts';
import type { LevelResult } from '../../lib/summary/types.ts';
import { genericEntry } from '../../models/generic.ts';
import { getModel } from '../../models/index.ts';
import { ensurePayloads } from '../../payloads/index.ts';
import { fetchLiveEntry } from '../../payloads/live-fetch.ts';
import { reportMarkdown } from '../../report/markdown.ts';
import { writeRunReport } from '../../report/write.ts';
import { type CpuSample, cpuShare_pct } from './cpu.ts';
import { type EmbeddedServer, startEmbedded } from './embedded.ts';
import { type RuntimeChoice, runScenario } from './runner.ts';

/** The package's root: scenarios and budget files are found from here, whatever the working directory. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a bench run takes; env holds the scenario settings (TRITON_URL, PROTOCOL, CONCURRENCY, ...). */
export interface BenchOptions {
  model: string;
  env: Record<string, string>;
  runtime: RuntimeChoice;
  k6Args: string[];
  resultsDir: string;
  /** Embedded server settings when no TRITON_URL is given. */
  timeScale?: number;
  modelRepository?: string;
  /** Requests in a generated payload set. @default 8 */
  count?: number;
  /** Also copy junit.xml here, for CI systems. */
  junit?: string;
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
  summary: Record<string, unknown>,
  samples: readonly CpuSample[],
): LevelResult[] {
  const metrics = (summary['metrics'] ?? {}) as K6SummaryData['metrics'];
  return results.map((result) => {
    const gauge = metrics[subMetricKey(WINDOW_START_METRIC, statsName(result.name))];
    const start_ms = gauge?.values?.['value'] ?? (gauge?.['value'] as number | undefined);
    if (!result.generator || start_ms === undefined) return result;
    const cpu_pct = cpuShare_pct(samples, start_ms, start_ms + result.window_s * 1000);
    if (cpu_pct === undefined) return result;
    const { iteration_avg_us } = result.generator;
    const generator = generatorCost(iteration_avg_us / 1000, result.latency_us.avg / 1000, cpu_pct);
    return { ...result, generator };
  });
}

/** Reads a JSON file the run wrote, or undefined when the run ended before writing it. */
function readJson<T>(path: string): T | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : undefined;
}

/** Runs one model's benchmark end to end; the reports are written even when the run fails. */
export async function runBench(options: BenchOptions): Promise<BenchOutcome> {
  const env: Record<string, string> = { ...options.env };
  const catalogEntry = options.model === 'generic' ? genericEntry(env.MODEL_NAME) : getModel(options.model);
  // bert-base and bert-large share one scenario, which picks its entry by MODEL.
  if (catalogEntry.scenario === 'bert') env.MODEL = catalogEntry.id;
  const budgetPath = env.THRESHOLDS
    ? resolve(env.THRESHOLDS)
    : join(PACKAGE_ROOT, 'thresholds', `${catalogEntry.id}.json`);
  // The same plan the scenario resolves inside k6: bad settings fail here, before anything starts.
  const { settings, overrides, budget, validateEvery } = resolveRunPlan(
    catalogEntry,
    env,
    readFileSync(budgetPath, 'utf8'),
    budgetPath,
  );
  const startedAt = new Date().toISOString();

  let server: EmbeddedServer | undefined;
  if (!env.TRITON_URL) {
    server = await startEmbedded({
      // Serve the model at the precision the payloads are made in, as a deployer exports it.
      ...(env.PRECISION && catalogEntry.id !== 'generic'
        ? { precisions: { [catalogEntry.id]: settings.precision } }
        : {}),
      ...(options.modelRepository ? { modelRepository: options.modelRepository } : {}),
      ...(options.timeScale !== undefined ? { simulated: { timeScale: options.timeScale } } : {}),
    });
    env.TRITON_URL = server.url;
    env.TRITON_GRPC_URL = server.grpcUrl;
    console.log(`embedded server on ${server.url} (gRPC ${server.grpcUrl})`);
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
    const run = await runScenario({ runtime: options.runtime, script: script!, env, k6Args: options.k6Args });

    // The level results were computed once, by the scenario's handleSummary; here they are only written.
    const summary = readJson<Record<string, unknown>>(env.SUMMARY_JSON) ?? { metrics: {} };
    const results = withGeneratorCpu(readJson<LevelResult[]>(env.LEVELS_JSON) ?? [], summary, run.cpu);
    const report = buildRunReport({
      model: settings.modelName,
      protocol: settings.protocol,
      runtime: run.runtime,
      batch: settings.batch,
      started_at: startedAt,
      results,
      validate_every: validateEvery,
    });
    const written = await writeRunReport(dir, report, summary, {
      budget: { p95_ms: overrides.p95_ms ?? budget.p95_ms, p99_ms: overrides.p99_ms ?? budget.p99_ms },
    });
    if (results.length > 0) console.log(`\n${reportMarkdown(report)}`);
    else console.log('\nno level completed a request; see the errors above');
    if (options.junit && written.files['junit.xml'])
      await copyFile(written.files['junit.xml'], options.junit);
    for (const error of written.errors) console.error(`k6-triton: could not write ${error}`);
    console.log(`results: ${dir}`);
    return { exitCode: run.exitCode, dir };
  } finally {
    await server?.stop();
  }
}
