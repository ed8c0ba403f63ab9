/**
 * `k6-triton bench <model>`: the main job. Ramps load on a model, gates on its latency budget
 * (exit 99 when missed, as k6), and writes results/<model>/<run-id>/. Settings come from the
 * environment (as in the scenarios) and from flags, flags winning (both from lib/settings/schema.ts);
 * arguments after `--` go to k6.
 */
import type { Command } from 'commander';
import { addLocalRunOptions, addMetricsUrlOption, outputOptions, serverOptions } from './options.ts';
import { addSettingOptions, runSettings } from './settings-options.ts';
import { modelIds, SEQUENCE_MODELS } from '../models/index.ts';
import { GENERATIVE } from '../models/generative.ts';
import { runBench } from '../measure/bench/run-bench.ts';
import { runMixBench } from '../measure/mix/bench-mix.ts';
import type { RuntimeChoice } from '../measure/core/runner.ts';
import { addSslOptions } from './ssl-options.ts';
import { addPerfAnalyzerOptions, checkShapes, fromPerfAnalyzer, modelOperand } from './perf-analyzer.ts';
import { copyCsv } from './perf-analyzer-csv.ts';

/** Adds the `bench` subcommand to the program. */
export function registerBench(program: Command): void {
  const command = program
    .command('bench')
    .description('Benchmark a model: concurrency or request-rate sweep, budgets, perf_analyzer-style results')
    .argument(
      '[model]',
      `catalog model (${modelIds().join(', ')}), a sequence model (${Object.keys(SEQUENCE_MODELS).join(', ')}), a generative model (${Object.keys(GENERATIVE).join(', ')}) or generic (with --model-name); none with --mix`,
    )
    .argument('[k6-args...]', 'extra k6 flags after --, e.g. -- --out json=points.json');
  addSettingOptions(command, 'bench');
  addSslOptions(command);
  addLocalRunOptions(command);
  addPerfAnalyzerOptions(command, 'bench');
  addMetricsUrlOption(command);
  command
    .option('--junit <file>', 'also write the budget verdicts as JUnit XML here (CI)')
    .option(
      '--verbose-csv',
      "also write perf_analyzer-verbose.csv with perf_analyzer's --verbose-csv columns (avg latency, request/response, response wait, GPU metrics)",
    )
    .option('--no-progress', "don't print the bench's progress lines (level i of n, times, live infer/s)")
    .option(
      '-o, --out <output>',
      "k6's --out (repeatable), handed to the runtime: e.g. -o json=points.json, as -- --out json=points.json",
      (v: string, acc: string[] = []) => [...acc, v],
    )
    .option('--mix <file>', 'bench a model mix (JSON or YAML): each model its share or load, one k6 test')
    .action(async (operand: string | undefined, extra: string[], given: Record<string, unknown>) => {
      const flags = fromPerfAnalyzer(given);
      const model = modelOperand(operand, given);
      const k6Args = [...((flags.out as string[] | undefined) ?? []).flatMap((o) => ['--out', o]), ...extra];
      if (flags.mix !== undefined) {
        process.exitCode = await benchMix(String(flags.mix), mixOperands(model, k6Args), flags);
        return;
      }
      if (model === undefined)
        throw new Error('bench: name a model, e.g. bench mnist (or -m <served name>), or give --mix <file>');
      checkShapes(model, flags.shape as string[] | undefined);
      const outcome = await runBench({
        model,
        settings: runSettings(flags, process.env),
        runtime: flags.runtime as RuntimeChoice,
        k6Args,
        resultsDir: String(flags.resultsDir),
        ...serverOptions(flags),
        ...(flags.junit ? { junit: String(flags.junit) } : {}),
        ...outputOptions(flags),
      });
      process.exitCode = flags.f
        ? await copyCsv(outcome, String(flags.f), Boolean(flags.verboseCsv))
        : outcome.exitCode;
    });
}

/**
 * The k6 flags of `bench --mix <file> -- <k6 flags>`: the first operand after `--` lands in [model]. A model
 * named beside --mix is an error: the mix file names the models.
 */
export function mixOperands(model: string | undefined, k6Args: string[]): string[] {
  if (model === undefined) return k6Args;
  if (!model.startsWith('-'))
    throw new Error(
      `bench: give a model or --mix <file>, not both ("${model}"); the mix file names its models`,
    );
  return [model, ...k6Args];
}

async function benchMix(mixPath: string, k6Args: string[], flags: Record<string, unknown>): Promise<number> {
  if (flags.junit)
    throw new Error(
      "--junit does not apply to --mix; each model's junit.xml is in its folder of the mix's results",
    );
  const settings = runSettings(flags, process.env);
  // The mix file gives each model its load; a ramp is one model's load shape (lib/load/ramp.ts).
  for (const [env, flag] of [
    ['RAMP', '--ramp'],
    ['RAMP_RATE', '--ramp-rate'],
  ])
    if (settings[env] !== undefined)
      throw new Error(`${flag} is not supported with --mix; ramp one model at a time`);
  const outcome = await runMixBench({
    mixPath,
    settings,
    runtime: flags.runtime as RuntimeChoice,
    k6Args,
    resultsDir: String(flags.resultsDir),
    ...serverOptions(flags),
    ...outputOptions(flags),
  });
  return outcome.exitCode;
}
