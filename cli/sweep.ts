/**
 * `k6-triton sweep <model>`: a grid of server configurations (instances, max queue delay, preferred batch,
 * max batch size) applied one by one through Triton's repository API (load with a config override, explicit
 * model-control mode), each measured over a concurrency list by one bench run, ranked by throughput within
 * the budget; the original config is loaded back at the end. Results go to results/<model>/sweep-<run-id>/.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { resolveRunPlan } from '../lib/scenario/run-plan.ts';
import { genericEntry } from '../models/generic.ts';
import { getModel, modelIds } from '../models/index.ts';
import { benchEnv } from './bench.ts';
import { type LocalServer, startLocalServer } from '../measure/local-server.ts';
import type { RuntimeChoice } from '../measure/runner.ts';
import { measureLevels } from '../measure/capacity/measure.ts';
import type { SearchBudget } from '../measure/capacity/search.ts';
import { buildGrid, configLabel, type GridAxes, parseList } from '../measure/sweep/grid.ts';
import { appliedConfig, overrideMismatches, withOverride } from '../measure/sweep/override.ts';
import type { ConfigOutcome } from '../measure/sweep/rank.ts';
import { rankConfigs } from '../measure/sweep/rank.ts';
import {
  type SweepRecord,
  sweepTable,
  winnerSentence,
  winnerSnippet,
  writeSweep,
} from '../measure/sweep/report.ts';
import { loadModelConfig, readModelConfig } from '../measure/sweep/repository.ts';
import { addBudgetOptions, addLocalRunOptions, addTargetOptions, tritonserverOption } from './options.ts';

const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The grid and levels a bare `k6-triton sweep <model>` measures: seed 003's axes, 6 configs x 3 levels. */
export const SWEEP_DEFAULTS = { instances: '1,2,4', maxQueueDelayUs: '0,150', concurrency: '1,2,4' } as const;

/** What a sweep run takes. */
export interface SweepOptions {
  model: string;
  /** Scenario settings as the bench takes them (CONCURRENCY is the sweep's). */
  env: Record<string, string>;
  axes: GridAxes;
  concurrency: number[];
  runtime: RuntimeChoice;
  k6Args: string[];
  resultsDir: string;
  timeScale?: number;
  modelRepository?: string;
  /** A tritonserver binary (TRITONSERVER) to start instead of the embedded server. */
  tritonserver?: string;
  count?: number;
}

function runId(): string {
  return new Date().toISOString().replace(/[:.]/g, '-').replace('Z', '');
}

/** Runs the sweep end to end and writes its results; resolves with the exit code. */
export async function runSweep(options: SweepOptions): Promise<number> {
  const env: Record<string, string> = { ...options.env };
  delete env.REQUEST_RATE;
  const grid = buildGrid(options.axes);
  const catalogEntry = options.model === 'generic' ? genericEntry(env.MODEL_NAME) : getModel(options.model);
  const budgetPath = env.THRESHOLDS
    ? resolve(env.THRESHOLDS)
    : join(PACKAGE_ROOT, 'thresholds', `${catalogEntry.id}.json`);
  // The bench's own plan, resolved once so a bad setting fails before any server is touched.
  const plan = resolveRunPlan(
    catalogEntry,
    { ...env, CONCURRENCY: options.concurrency.join(',') },
    readFileSync(budgetPath, 'utf8'),
    budgetPath,
  );
  const budget: SearchBudget = {
    p95_ms: plan.overrides.p95_ms ?? plan.budget.p95_ms,
    p99_ms: plan.overrides.p99_ms ?? plan.budget.p99_ms,
    error_rate: plan.budget.error_rate,
  };
  const served = plan.settings.modelName;
  const modelDir = catalogEntry.id === 'generic' ? served : catalogEntry.id;
  const dir = resolve(options.resultsDir, modelDir, `sweep-${runId()}`);

  let server: LocalServer | undefined;
  const target = env.TRITON_URL ?? (options.tritonserver ? 'tritonserver' : 'embedded');
  if (!env.TRITON_URL) {
    // Explicit mode with the model loaded: the state a real Triton must be in for the load API to work.
    server = await startLocalServer({
      modelId: catalogEntry.id,
      servedModel: served,
      ...(env.PRECISION ? { precision: plan.settings.precision } : {}),
      modelRepository: options.modelRepository,
      timeScale: options.timeScale,
      tritonserver: options.tritonserver,
      explicitControl: true,
    });
    env.TRITON_URL = server.url;
    env.TRITON_GRPC_URL = server.grpcUrl;
    console.log(server.description);
  }
  const url = env.TRITON_URL;
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const outcomes: ConfigOutcome[] = [];
  const applied: SweepRecord['applied'] = [];
  let original: Record<string, unknown> | undefined;
  let restored = false;
  let stoppedEarly: string | undefined;
  try {
    original = await readModelConfig(url, served);
    for (const [i, config] of grid.entries()) {
      if (interrupted) {
        stoppedEarly = `interrupted after ${i} of ${grid.length} configurations`;
        break;
      }
      console.log(`\nsweep ${i + 1}/${grid.length}: ${configLabel(config)}`);
      try {
        await loadModelConfig(url, served, withOverride(original, config));
        const now = appliedConfig(await readModelConfig(url, served));
        const mismatches = overrideMismatches(config, now);
        applied.push({ config, applied: now });
        // A server that ignores part of the override would be measured under the wrong label.
        if (mismatches.length > 0)
          throw new Error(`the server did not take the config: ${mismatches.join('; ')}`);
      } catch (error) {
        const message = (error as Error).message.split('\n')[0] ?? 'load failed';
        console.error(`k6-triton: sweep: ${configLabel(config)}: ${message}`);
        outcomes.push({ config, levels: [], error: message });
        continue;
      }
      const run = await measureLevels(
        {
          model: options.model,
          env,
          mode: 'concurrency',
          runtime: options.runtime,
          k6Args: options.k6Args,
          resultsDir: join(dir, 'configs'),
          ...(options.count ? { count: options.count } : {}),
        },
        options.concurrency,
      );
      const last = applied[applied.length - 1];
      if (last) last.dir = run.dir;
      // A bench that failed other than on a budget keeps the levels it finished; the sweep judges them itself.
      const error = run.measured ? undefined : `bench exited ${run.exitCode} (see ${run.dir})`;
      outcomes.push({ config, levels: run.measurements, ...(error ? { error } : {}) });
      for (const m of run.measurements)
        console.log(
          `  c${m.level}: ${Math.round(m.throughput_infer_s).toLocaleString('en-US')} infer/s, p95 ${m.p95_ms.toFixed(1)} ms, p99 ${m.p99_ms.toFixed(1)} ms, errors ${(m.error_rate * 100).toFixed(2)}%`,
        );
    }
  } finally {
    if (original) {
      try {
        await loadModelConfig(url, served, original);
        restored = true;
        console.log(`\nsweep: original config of ${served} loaded back`);
      } catch (error) {
        console.error(
          `k6-triton: sweep: could not restore ${served}'s original config: ${(error as Error).message}; load it by hand`,
        );
      }
    }
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await server?.stop();
  }
  if (interrupted && !stoppedEarly)
    stoppedEarly = `interrupted after ${outcomes.length} of ${grid.length} configurations`;

  const record: SweepRecord = {
    model: options.model === 'generic' ? served : options.model,
    served_model: served,
    target,
    batch: plan.settings.batch,
    budget,
    concurrency: options.concurrency,
    original: appliedConfig(original),
    restored,
    ranking: rankConfigs(outcomes, budget),
    applied,
    ...(stoppedEarly ? { stopped_early: stoppedEarly } : {}),
  };
  for (const error of await writeSweep(dir, record)) console.error(`k6-triton: could not write ${error}`);
  console.log(`\n${sweepTable(record)}\n\n${winnerSentence(record)}`);
  const snippet = winnerSnippet(record);
  if (snippet) console.log(`\nconfig.pbtxt:\n${snippet}`);
  console.log(`results: ${dir}`);
  if (interrupted) return 130;
  if (!restored) return 1;
  return snippet ? 0 : 99;
}

/** Adds the `sweep` subcommand to the program. */
export function registerSweep(program: Command): void {
  const command = program
    .command('sweep')
    .description(
      'Sweep server configs (instances, queue delay, batch sizes) through the repository load API, rank by throughput within budget',
    )
    .argument('<model>', `catalog model (${modelIds().join(', ')}) or generic (with --model-name)`)
    .argument('[k6-args...]', 'extra k6 flags after --')
    .option('--instances <list>', 'instance_group counts, e.g. 1,2,4', SWEEP_DEFAULTS.instances)
    .option(
      '--max-queue-delay-us <list>',
      'dynamic_batching max_queue_delay_microseconds values',
      SWEEP_DEFAULTS.maxQueueDelayUs,
    )
    .option(
      '--preferred-batch <list>',
      'dynamic_batching preferred_batch_size values (one per config); default: unchanged',
    )
    .option('--max-batch-size <list>', 'max_batch_size values; default: unchanged')
    .option('--concurrency <list>', 'levels measured per config', SWEEP_DEFAULTS.concurrency);
  addTargetOptions(
    command,
    'Triton HTTP endpoint in explicit model-control mode (TRITON_URL); default: start the embedded server',
  );
  command
    .option('--step-duration <d>', 'measurement window per level, e.g. 5s (STEP_DURATION)')
    .option('--warmup <d>', 'warm-up per level, e.g. 2s (WARMUP_DURATION)')
    .option('--stability <pct>', 'stability tolerance, percent (STABILITY)');
  addBudgetOptions(command);
  addLocalRunOptions(command);
  command.action(async (model: string, k6Args: string[], flags: Record<string, unknown>) => {
    const { instances, maxQueueDelayUs, preferredBatch, maxBatchSize, concurrency, ...benchFlags } = flags;
    const axes: GridAxes = {
      instances: parseList('--instances', String(instances)),
      max_queue_delay_us: parseList('--max-queue-delay-us', String(maxQueueDelayUs), 0),
      ...(preferredBatch !== undefined
        ? { preferred_batch: parseList('--preferred-batch', String(preferredBatch)) }
        : {}),
      ...(maxBatchSize !== undefined
        ? { max_batch_size: parseList('--max-batch-size', String(maxBatchSize)) }
        : {}),
    };
    process.exitCode = await runSweep({
      model,
      env: benchEnv(benchFlags, process.env),
      axes,
      concurrency: parseList('--concurrency', String(concurrency)),
      runtime: flags.runtime as RuntimeChoice,
      k6Args,
      resultsDir: String(flags.resultsDir),
      ...(flags.timeScale !== undefined ? { timeScale: flags.timeScale as number } : {}),
      ...(flags.modelRepository ? { modelRepository: String(flags.modelRepository) } : {}),
      ...tritonserverOption(flags),
      ...(flags.count ? { count: flags.count as number } : {}),
    });
  });
}
