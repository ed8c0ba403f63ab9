/**
 * `k6-triton sweep <model>`: parses the flags of the config sweep (measure/sweep/run-sweep.ts) and exits with
 * its code; results go to results/<model>/sweep-<run-id>/.
 */
import type { Command } from 'commander';
import type { RuntimeChoice } from '../measure/core/runner.ts';
import { type GridAxes, parseList } from '../measure/sweep/grid.ts';
import { runSweep, SWEEP_DEFAULTS } from '../measure/sweep/run-sweep.ts';
import { modelIds } from '../models/index.ts';
import { addSettingOptions, runSettings } from './settings-options.ts';
import { addSslOptions } from './ssl-options.ts';
import { addLocalRunOptions, serverOptions } from './options.ts';

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
  // The server must be in explicit model-control mode: the sweep loads each config through its repository API.
  addSettingOptions(command, 'sweep');
  addSslOptions(command);
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
