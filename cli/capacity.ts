/**
 * `k6-triton capacity <model>`: parses the flags of the capacity search (measure/capacity/run-capacity.ts) and
 * exits with its code; results go to results/<model>/capacity-<run-id>/.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { runCapacity } from '../measure/capacity/run-capacity.ts';
import { DEFAULT_MAX_TRIALS } from '../measure/capacity/search.ts';
import type { RuntimeChoice } from '../measure/core/runner.ts';
import { modelIds } from '../models/index.ts';
import { GENERATIVE } from '../models/generative.ts';
import { mixOperands } from './bench.ts';
import { addSettingOptions, runSettings } from './settings-options.ts';
import { addSslOptions } from './ssl-options.ts';
import {
  addPerfAnalyzerOptions,
  capacityFromPerfAnalyzer,
  checkShapes,
  modelOperand,
} from './perf-analyzer.ts';
import { runMixCapacity } from '../measure/mix/mix-capacity.ts';
import { addLocalRunOptions, outputOptions, searchOptions, serverOptions } from './options.ts';
import { copyCsv } from './perf-analyzer-csv.ts';

/** The metrics scrape's options of a capacity search: --metrics-url and perf_analyzer's --metrics-interval. */
function scrapeOptions(flags: Record<string, unknown>): { metricsUrl?: string; metricsInterval_ms?: number } {
  const { metricsUrl, metricsInterval_ms } = outputOptions(flags);
  return {
    ...(metricsUrl ? { metricsUrl } : {}),
    ...(metricsInterval_ms ? { metricsInterval_ms } : {}),
  };
}

/** Parses a positive number flag; commander prints the message as one line naming the flag. */
function positive(flag: string, integer = false) {
  return (text: string): number => {
    const value = Number(text);
    if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value)))
      throw new InvalidArgumentError(
        `${flag} must be a positive ${integer ? 'whole ' : ''}number, e.g. ${flag} ${integer ? 8 : 100}`,
      );
    return value;
  };
}

/** Adds the `capacity` subcommand to the program. */
export function registerCapacity(program: Command): void {
  const command = program
    .command('capacity')
    .description(
      'Find the highest concurrency (or request rate) within the latency budget: exponential then binary search, boundary confirmed',
    )
    .argument(
      '[model]',
      `catalog model (${modelIds().join(', ')}), a generative model (${Object.keys(GENERATIVE).join(', ')}: its SLOs must hold) or generic (with --model-name); none with --mix`,
    )
    .argument('[k6-args...]', 'extra k6 flags after --')
    .option('--request-rate', 'search the open-loop request rate instead of the concurrency')
    .option('--start <n>', 'first level (default 1 concurrent request, or 10 req/s)', positive('--start'))
    .option('--max <n>', "the search's ceiling (default 256, or 100000 req/s)", positive('--max'))
    .option(
      '--attempts <n>',
      'measurements of an unstable level before the last is taken (default 3)',
      positive('--attempts', true),
    )
    .option(
      '--max-levels <n>',
      `most measured levels in all (default ${DEFAULT_MAX_TRIALS})`,
      positive('--max-levels', true),
    )
    .option(
      '--target-rate <n>',
      'plan: servers needed for this many inferences/s, with the headroom',
      positive('--target-rate'),
    )
    .option(
      '--mix <file>',
      "scale a model mix (JSON or YAML) to the highest total load within every model's budget; --start and --max in percent of its loads",
    )
    .option(
      '--confirm-sweep',
      'after the search, bench every level from --start to the first one it found outside the budget and say whether it confirms',
    )
    .option(
      '--metrics-url <url>',
      "Prometheus endpoint scraped per level, e.g. http://host:8002/metrics ('off': none); default: the embedded server's",
    );
  addSettingOptions(command, 'capacity');
  addSslOptions(command);
  addLocalRunOptions(command);
  addPerfAnalyzerOptions(command, 'capacity');
  command.action(async (operand: string | undefined, k6Args: string[], given: Record<string, unknown>) => {
    const flags = capacityFromPerfAnalyzer(given);
    const model = modelOperand(operand, given);
    const { requestRate, confirmSweep, mix, f: csvFile, ...benchFlags } = flags;
    if (mix !== undefined) {
      const refused = [
        requestRate ? '--request-rate' : '',
        confirmSweep ? '--confirm-sweep' : '',
        flags.targetRate !== undefined ? '--target-rate' : '',
      ].filter(Boolean);
      if (csvFile !== undefined) refused.push('-f');
      if (refused.length > 0)
        throw new Error(
          `${refused.join(', ')} does not apply to --mix; the mix file gives each model's load and the search scales them all`,
        );
      process.exitCode = await runMixCapacity({
        mixPath: String(mix),
        settings: runSettings(benchFlags, process.env),
        runtime: flags.runtime as RuntimeChoice,
        k6Args: mixOperands(model, k6Args),
        resultsDir: String(flags.resultsDir),
        ...searchOptions(flags),
        ...serverOptions(flags),
        ...scrapeOptions(flags),
      });
      return;
    }
    if (model === undefined)
      throw new Error(
        'capacity: name a model, e.g. capacity mnist (or -m <served name>), or give --mix <file>',
      );
    checkShapes(model, flags.shape as string[] | undefined);
    const outcome = await runCapacity({
      model,
      settings: runSettings(benchFlags, process.env),
      mode: requestRate ? 'request-rate' : 'concurrency',
      runtime: flags.runtime as RuntimeChoice,
      k6Args,
      resultsDir: String(flags.resultsDir),
      ...searchOptions(flags),
      ...(flags.targetRate !== undefined ? { targetRate: flags.targetRate as number } : {}),
      ...serverOptions(flags),
      ...(confirmSweep ? { confirmSweep: true } : {}),
      ...scrapeOptions(flags),
    });
    // perf_analyzer's -f: the search's perf_analyzer.csv (every measured level), as bench copies its own.
    process.exitCode =
      csvFile === undefined ? outcome.exitCode : await copyCsv(outcome, String(csvFile), false);
  });
}
