/**
 * `k6-triton models`: the catalog's model ids, one per line. The Makefile's bench-all and the CI script read
 * this list; the catalog (models/catalog.ts) is the one place that names the models.
 */
import type { Command } from 'commander';
import { modelIds } from '../models/index.ts';

/** Adds the `models` subcommand to the program. */
export function registerModels(program: Command): void {
  program
    .command('models')
    .description('List the catalog model ids, one per line (bench <model> takes each)')
    .action(() => {
      process.stdout.write(`${modelIds().join('\n')}\n`);
    });
}
