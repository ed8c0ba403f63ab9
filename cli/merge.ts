/**
 * `k6-triton merge <file>...`: one report from N runners' `--out json` files (k6-operator's runners, or
 * local processes): percentiles of the pooled samples, one perf_analyzer CSV, one report.md, one budget
 * verdict (exit 99 when a budget is missed, as bench). Give the settings the run had, as to bench.
 */
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { modelIds } from '../models/index.ts';
import { PROTOCOLS } from '../scenarios/kit/settings.ts';
import { reportMarkdown } from '../report/markdown.ts';
import { runSettings } from './bench.ts';
import { runMerge } from '../measure/merge/run-merge.ts';

/** Adds the `merge` subcommand to the program. */
export function registerMerge(program: Command): void {
  program
    .command('merge')
    .description(
      "Merge runners' k6 --out json files into one report and budget verdict (exact pooled percentiles)",
    )
    .argument('<files...>', "each runner's --out json file (NDJSON, .gz too)")
    .requiredOption('--model <id>', `catalog model (${modelIds().join(', ')})`)
    .addOption(new Option('--protocol <p>', 'PROTOCOL of the run').choices(PROTOCOLS))
    .option('--model-name <name>', 'served model name (MODEL_NAME)')
    .option('--batch <n>', 'request batch size of the run (BATCH)')
    .option('--precision <p>', 'PRECISION of the run')
    .option('--concurrency <range>', "the run's CONCURRENCY")
    .option('--request-rate <range>', "the run's REQUEST_RATE")
    .option('--step-duration <d>', "the run's STEP_DURATION (each level's window is read from the files)")
    .option('--warmup <d>', "the run's WARMUP_DURATION")
    .option('--stability <pct>', 'stability tolerance, percent (STABILITY)')
    .option('--p95-ms <ms>', 'override the p95 budget (P95_MS)')
    .option('--p99-ms <ms>', 'override the p99 budget (P99_MS)')
    .option('--thresholds <file>', 'budget file (THRESHOLDS); default thresholds/<model>.json')
    .option('--allow-inconclusive', 'an inconclusive budget does not fail the merge (ALLOW_INCONCLUSIVE)')
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
