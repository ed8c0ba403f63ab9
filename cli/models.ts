/**
 * `k6-triton models`: the catalog's model ids, one per line (the Makefile's bench-all and the CI script read
 * this list); --all adds every other id bench takes, --by-kind groups them by kind. The catalog
 * (models/catalog.ts, models/generative.ts) is the one place that names the models.
 */
import type { Command } from 'commander';
import { modelIds, SEQUENCE_MODELS } from '../models/index.ts';
import { GENERATIVE } from '../models/generative.ts';

/** Every id bench takes, by kind, in the order listed. */
export function modelsByKind(): Record<string, string[]> {
  return {
    tensor: modelIds(),
    sequence: Object.keys(SEQUENCE_MODELS).sort(),
    generative: Object.keys(GENERATIVE).sort(),
    'any served model': ['generic'],
  };
}

/** Adds the `models` subcommand to the program. */
export function registerModels(program: Command): void {
  program
    .command('models')
    .description(
      'List the catalog (tensor) model ids, one per line; --all or --by-kind: every id bench takes',
    )
    .option('--all', 'every id bench takes, one per line (sequence, generative and generic too)')
    .option('--by-kind', 'every id bench takes, grouped by kind (tensor, sequence, generative)')
    .action((flags: { all?: boolean; byKind?: boolean }) => {
      const kinds = modelsByKind();
      if (flags.byKind) {
        const lines = Object.entries(kinds).map(([kind, ids]) => `${kind}: ${ids.join(' ')}`);
        process.stdout.write(`${lines.join('\n')}\n`);
        return;
      }
      const ids = flags.all ? Object.values(kinds).flat() : kinds.tensor!;
      process.stdout.write(`${ids.join('\n')}\n`);
    });
}
