/**
 * `k6-triton merge <file>...`: one report from N runners' `--out json` files (k6-operator's runners, or
 * local processes): percentiles of the pooled samples, one perf_analyzer CSV, one report.md, one budget
 * verdict (exit 99 when a budget is missed, as bench). Give the settings the run had, as to bench.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { modelIds } from '../models/index.ts';
import { reportMarkdown } from '../report/markdown.ts';
import { addSettingOptions, runSettings } from './settings-options.ts';
import { runMerge } from '../measure/merge/run-merge.ts';

/** Adds the `merge` subcommand to the program. */
export function registerMerge(program: Command): void {
  const command = program
    .command('merge')
    .description(
      "Merge runners' k6 --out json files into one report and budget verdict (exact pooled percentiles)",
    )
    .argument('<files...>', "each runner's --out json file (NDJSON, .gz too)")
    .requiredOption('--model <id>', `catalog model (${modelIds().join(', ')})`);
  // The run's settings as it had them (each level's window is read from the files).
  addSettingOptions(command, 'merge');
  command
    .option('--out-dir <dir>', 'where the merged report goes; default results/<model>/merged-<time>')
    .action(async (files: string[], flags: Record<string, unknown>) => {
      const outcome = await runMerge({
        model: String(flags.model),
        files,
        settings: runSettings(flags, process.env),
        ...(flags.outDir ? { dir: resolve(String(flags.outDir)) } : {}),
      });
      console.log(`merged ${outcome.stats.points} samples from ${outcome.stats.files} files`);
      console.log(`\n${reportMarkdown(outcome.report)}`);
      console.log(`results: ${outcome.dir}`);
      process.exitCode = outcome.exitCode;
    });
}
