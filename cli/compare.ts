/**
 * `k6-triton compare <runA> <runB>`: did B get slower than baseline A? Per-level throughput and p50/p95/p99
 * deltas (a generative model's also TTFT, ITL, output tokens/s and goodput) as Markdown on stdout, optionally JUnit XML, and exit 98 when B regressed beyond the tolerances
 * (99 stays the bench's "budget missed", 1 a bad input).
 */
import { type Command, Option } from 'commander';
import { compareRuns, DEFAULT_TOLERANCES, parsePercent } from '../measure/compare/compare.ts';
import {
  DEFAULT_GENAI_TOLERANCES,
  GENAI_PERCENTILES,
  type GenaiPercentile,
} from '../measure/compare/compare-genai.ts';
import { comparisonJunit, comparisonMarkdown } from '../measure/compare/compare-table.ts';
import { loadRun } from '../measure/compare/load-runs.ts';
import { EXIT } from '../measure/core/exit-codes.ts';
import { writeResult } from '../report/not-written.ts';

/** Adds the `compare` subcommand to the program. */
export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description('Compare run B against baseline run A: per-level deltas, exit 98 on a regression')
    .argument(
      '<runA>',
      'baseline: a run folder (results/<model>/<run-id>), a model folder (its newest run) or a summary.json',
    )
    .argument('<runB>', 'the run to judge, same forms')
    .option(
      '--max-throughput-drop <pct>',
      'largest throughput drop allowed per level',
      `${DEFAULT_TOLERANCES.max_throughput_drop_pct}%`,
    )
    .option(
      '--max-p99-rise <pct>',
      'largest p99 latency rise allowed per level',
      `${DEFAULT_TOLERANCES.max_p99_rise_pct}%`,
    )
    .option(
      '--max-ttft-rise <pct>',
      'generative models: largest TTFT rise allowed per level, at --genai-percentile',
      `${DEFAULT_GENAI_TOLERANCES.max_ttft_rise_pct}%`,
    )
    .option(
      '--max-itl-rise <pct>',
      'generative models: largest ITL rise allowed per level, at --genai-percentile',
      `${DEFAULT_GENAI_TOLERANCES.max_itl_rise_pct}%`,
    )
    .option(
      '--max-tokens-drop <pct>',
      'generative models: largest output tokens/s drop allowed per level',
      `${DEFAULT_GENAI_TOLERANCES.max_tokens_drop_pct}%`,
    )
    .option(
      '--max-goodput-drop <pct>',
      'generative models: largest goodput (requests/s meeting every SLO) drop allowed per level',
      `${DEFAULT_GENAI_TOLERANCES.max_goodput_drop_pct}%`,
    )
    .addOption(
      new Option('--genai-percentile <p>', 'generative models: the TTFT and ITL percentile judged')
        .choices([...GENAI_PERCENTILES])
        .default(DEFAULT_GENAI_TOLERANCES.percentile),
    )
    .option('--junit <file>', 'also write the verdicts as JUnit XML here (CI)')
    .action(async (runA: string, runB: string, flags: Record<string, string | undefined>) => {
      // Flags first: a typo in a tolerance is reported before any file is read.
      const tolerances = {
        max_throughput_drop_pct: parsePercent('--max-throughput-drop', String(flags.maxThroughputDrop)),
        max_p99_rise_pct: parsePercent('--max-p99-rise', String(flags.maxP99Rise)),
        genai: {
          max_ttft_rise_pct: parsePercent('--max-ttft-rise', String(flags.maxTtftRise)),
          max_itl_rise_pct: parsePercent('--max-itl-rise', String(flags.maxItlRise)),
          max_tokens_drop_pct: parsePercent('--max-tokens-drop', String(flags.maxTokensDrop)),
          max_goodput_drop_pct: parsePercent('--max-goodput-drop', String(flags.maxGoodputDrop)),
          percentile: flags.genaiPercentile as GenaiPercentile,
        },
      };
      const comparison = compareRuns(loadRun(runA), loadRun(runB), tolerances);
      process.stdout.write(comparisonMarkdown(comparison));
      if (flags.junit) await writeResult(flags.junit, () => comparisonJunit(comparison));
      process.exitCode = comparison.regressed ? EXIT.REGRESSION : EXIT.OK;
    });
}
