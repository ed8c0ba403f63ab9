/**
 * `k6-triton sweep <model>`: parses the flags of the config sweep (measure/sweep/run-sweep.ts) and exits with
 * its code; results go to results/<model>/sweep-<run-id>/.
 */
import type { Command } from 'commander';
import type { RuntimeChoice } from '../measure/core/runner.ts';
import { type GridAxes, parseList } from '../measure/sweep/grid.ts';
import { runSweep, SWEEP_DEFAULTS } from '../measure/sweep/run-sweep.ts';
import { modelIds } from '../models/index.ts';
import { runSettings } from './bench.ts';
import { addSslOptions } from './ssl-options.ts';
import { addBudgetOptions, addLocalRunOptions, addTargetOptions, serverOptions } from './options.ts';

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
  addSslOptions(command);
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
      settings: runSettings(benchFlags, process.env),
      axes,
      concurrency: parseList('--concurrency', String(concurrency)),
      runtime: flags.runtime as RuntimeChoice,
      k6Args,
      resultsDir: String(flags.resultsDir),
      ...serverOptions(flags),
    });
  });
}
