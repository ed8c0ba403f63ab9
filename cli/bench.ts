/**
 * `k6-triton bench <model>`: the main job. Ramps load on a model, gates on its latency budget
 * (exit 99 when missed, as k6), and writes results/<model>/<run-id>/. Settings come from the
 * environment (as in the scenarios) and from flags, flags winning; arguments after `--` go to k6.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import {
  addBudgetOptions,
  addLocalRunOptions,
  addTargetOptions,
  outputOptions,
  serverOptions,
} from './options.ts';
import { modelIds, SEQUENCE_MODELS } from '../models/index.ts';
import { GENERATIVE } from '../models/generative.ts';
import { runBench } from '../measure/bench/run-bench.ts';
import { runMixBench } from '../measure/mix/bench-mix.ts';
import type { RuntimeChoice } from '../measure/core/runner.ts';
import { addSslOptions, sslSettings } from './ssl-options.ts';

/** Flag → the scenario's environment variable. */
const FLAG_ENV: Record<string, string> = {
  url: 'TRITON_URL',
  grpcUrl: 'TRITON_GRPC_URL',
  protocol: 'PROTOCOL',
  modelName: 'MODEL_NAME',
  modelVersion: 'MODEL_VERSION',
  batch: 'BATCH',
  precision: 'PRECISION',
  payload: 'PAYLOAD',
  headers: 'HEADERS',
  headersFile: 'HEADERS_FILE',
  insecureSkipTlsVerify: 'INSECURE_SKIP_TLS_VERIFY',
  tlsCa: 'TLS_CA',
  // No flags of these names: perf_analyzer's --ssl-* flags set them (ssl-options.ts); the environment may too.
  tlsClientCert: 'TLS_CLIENT_CERT',
  tlsClientKey: 'TLS_CLIENT_KEY',
  tls: 'TLS',
  concurrency: 'CONCURRENCY',
  requestRate: 'REQUEST_RATE',
  arrivals: 'ARRIVALS',
  arrivalsSeed: 'ARRIVALS_SEED',
  schedule: 'SCHEDULE',
  scheduleSpeed: 'SCHEDULE_SPEED',
  requestIntervals: 'REQUEST_INTERVALS',
  maxVus: 'MAX_VUS',
  stepDuration: 'STEP_DURATION',
  warmup: 'WARMUP_DURATION',
  stability: 'STABILITY',
  stabilityPercentage: 'STABILITY',
  maxTrials: 'MAX_TRIALS',
  measurementMode: 'MEASUREMENT_MODE',
  measurementRequestCount: 'MEASUREMENT_REQUEST_COUNT',
  allowInconclusive: 'ALLOW_INCONCLUSIVE',
  p95Ms: 'P95_MS',
  p99Ms: 'P99_MS',
  ttftP95Ms: 'TTFT_P95_MS',
  itlP95Ms: 'ITL_P95_MS',
  thresholds: 'THRESHOLDS',
  validateEvery: 'VALIDATE_EVERY',
  sequenceLength: 'SEQUENCE_LENGTH',
  sequenceLengthVariation: 'SEQUENCE_LENGTH_VARIATION',
  sequenceIdRange: 'SEQUENCE_ID_RANGE',
  numOfSequences: 'NUM_OF_SEQUENCES',
  inputTokens: 'INPUT_TOKENS',
  outputTokens: 'OUTPUT_TOKENS',
  prefixTokens: 'PREFIX_TOKENS',
  prompts: 'PROMPT_COUNT',
  promptSeed: 'PROMPT_SEED',
  dataset: 'DATASET',
  tokenizer: 'TOKENIZER',
  llmBackend: 'LLM_BACKEND',
};

/** A run's settings: the process's values for the scenario's variables, then the flags. */
export function runSettings(
  flags: Record<string, unknown>,
  processEnv: NodeJS.ProcessEnv,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of Object.values(FLAG_ENV)) {
    const value = processEnv[name];
    if (value !== undefined && value !== '') env[name] = value;
  }
  for (const [flag, name] of Object.entries(FLAG_ENV)) {
    const value = flags[flag];
    if (value !== undefined && value !== '') env[name] = String(value);
  }
  // Hints name the flag the user typed (--url), not the variable it set (scenarios/kit/endpoints.ts).
  if (flags.url !== undefined && flags.url !== '') env.TRITON_URL_FLAG = '--url';
  if (flags.grpcUrl !== undefined && flags.grpcUrl !== '') env.TRITON_GRPC_URL_FLAG = '--grpc-url';
  // k6's open() reads a relative path from the script's folder: hand files over as absolute paths.
  for (const name of ['SCHEDULE', 'REQUEST_INTERVALS']) if (env[name]) env[name] = resolve(env[name]);
  return { ...env, ...sslSettings(flags, env) };
}

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
  addTargetOptions(command, 'Triton HTTP endpoint (TRITON_URL); default: start the embedded server');
  addSslOptions(command);
  command
    .option('--concurrency <range>', 'start:end:step or a list 1,2,4 (CONCURRENCY)')
    .option('--request-rate <range>', 'open loop, start:end:step or a list (REQUEST_RATE)')
    .option(
      '--arrivals <process>',
      'open loop gaps: constant, poisson or gamma:<k> (k<1 burstier) (ARRIVALS)',
    )
    .option('--arrivals-seed <n>', 'seed of the Poisson or gamma gaps, default 1 (ARRIVALS_SEED)')
    .option(
      '--schedule <file>',
      'replay a recorded schedule, JSON lines {"at_ms","model","payload"} (SCHEDULE)',
    )
    .option('--schedule-speed <x>', 'replay the schedule x times as fast, e.g. 2 (SCHEDULE_SPEED)')
    .option(
      '--request-intervals <file>',
      "perf_analyzer's file: one gap in microseconds per line (REQUEST_INTERVALS)",
    )
    .option('--max-vus <n>', 'open loop: most VUs per level, as perf_analyzer --max-threads (MAX_VUS)')
    .option('--step-duration <d>', 'measurement window per level, e.g. 5s (STEP_DURATION)')
    .option('--warmup <d>', 'warm-up per level, e.g. 2s (WARMUP_DURATION)')
    .option('--stability <pct>', 'stability tolerance, percent (STABILITY)')
    .option('--stability-percentage <pct>', "perf_analyzer's name of --stability")
    .option(
      '--max-trials <n>',
      "perf_analyzer's: windows a level may take to become stable, default 10 (3 per pass) (MAX_TRIALS)",
    )
    .option(
      '--measurement-mode <mode>',
      'time_windows, or count_windows: windows grow until each holds --measurement-request-count requests (MEASUREMENT_MODE)',
    )
    .option(
      '--measurement-request-count <n>',
      'count_windows: the fewest requests per window, default 50 (MEASUREMENT_REQUEST_COUNT)',
    )
    .option(
      '--allow-inconclusive',
      'an inconclusive budget (too few samples, unstable level) is printed but does not fail the run (ALLOW_INCONCLUSIVE)',
    )
    .option('--sequence-length <n>', 'sequence models: requests per sequence, default 20 (SEQUENCE_LENGTH)')
    .option(
      '--sequence-length-variation <pct>',
      'sequence models: lengths within ± pct, default 20 (SEQUENCE_LENGTH_VARIATION)',
    )
    .option(
      '--sequence-id-range <start:end>',
      'sequence models: correlation ids, end excluded (SEQUENCE_ID_RANGE)',
    )
    .option(
      '--num-of-sequences <n>',
      'sequence models, request rate: live sequences sharing each level, default 4 (NUM_OF_SEQUENCES)',
    )
    .option(
      '--input-tokens <len>',
      'generative models: prompt tokens, 200 | mean,stddev | min:max (INPUT_TOKENS)',
    )
    .option(
      '--output-tokens <len>',
      'generative models: output tokens asked, 100 | mean,stddev | min:max (OUTPUT_TOKENS)',
    )
    .option(
      '--prefix-tokens <n>',
      'generative models: a prefix of n tokens shared by every prompt (PREFIX_TOKENS)',
    )
    .option('--prompts <n>', 'generative models: distinct synthetic prompts, default 100 (PROMPT_COUNT)')
    .option(
      '--prompt-seed <n>',
      'generative models: seed of the prompts and lengths, default 1 (PROMPT_SEED)',
    )
    .option(
      '--dataset <file>',
      'generative models: JSON lines {"text"} or {"input_length"}, "output_length", "timestamp" ms for a trace (DATASET)',
    )
    .option(
      '--tokenizer <path>',
      "generative models: the model's tokenizer.json or its folder, default the model's own (TOKENIZER)",
    )
    .option(
      '--llm-backend <name>',
      'generative models: trtllm | vllm, how output length is asked (LLM_BACKEND)',
    );
  addBudgetOptions(command);
  addLocalRunOptions(command);
  command
    .option('--junit <file>', 'also write the budget verdicts as JUnit XML here (CI)')
    .option(
      '--metrics-url <url>',
      "Prometheus endpoint scraped per level, e.g. http://host:8002/metrics ('off': none); default: the embedded server's",
    )
    .option(
      '--verbose-csv',
      "also write perf_analyzer-verbose.csv with perf_analyzer's --verbose-csv columns (avg latency, request/response, response wait, GPU metrics)",
    )
    .option('--no-progress', "don't print the bench's progress lines (level i of n, times, live infer/s)")
    .option('--mix <file>', 'bench a model mix (JSON or YAML): each model its share or load, one k6 test')
    .action(async (model: string | undefined, k6Args: string[], flags: Record<string, unknown>) => {
      if (flags.mix !== undefined) {
        process.exitCode = await benchMix(String(flags.mix), mixOperands(model, k6Args), flags);
        return;
      }
      if (model === undefined) throw new Error('bench: name a model, e.g. bench mnist, or give --mix <file>');
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
      process.exitCode = outcome.exitCode;
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
  const outcome = await runMixBench({
    mixPath,
    settings: runSettings(flags, process.env),
    runtime: flags.runtime as RuntimeChoice,
    k6Args,
    resultsDir: String(flags.resultsDir),
    ...serverOptions(flags),
    ...outputOptions(flags),
  });
  return outcome.exitCode;
}
