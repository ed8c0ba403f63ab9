/**
 * `k6-triton bench <model>`: the main job. Ramps load on a model, gates on its latency budget
 * (exit 99 when missed, as k6), and writes results/<model>/<run-id>/. Settings come from the
 * environment (as in the scenarios) and from flags, flags winning; arguments after `--` go to k6.
 */
import { type Command, Option } from 'commander';
import { modelIds } from '../models/index.ts';
import { runBench } from './bench/pipeline.ts';
import type { RuntimeChoice } from './bench/runner.ts';

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
  concurrency: 'CONCURRENCY',
  requestRate: 'REQUEST_RATE',
  stepDuration: 'STEP_DURATION',
  warmup: 'WARMUP_DURATION',
  stability: 'STABILITY',
  p95Ms: 'P95_MS',
  p99Ms: 'P99_MS',
  thresholds: 'THRESHOLDS',
  validateEvery: 'VALIDATE_EVERY',
};

/** The scenario environment: the process's values for our variables, then the flags. */
export function benchEnv(
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
  return env;
}

/** Adds the `bench` subcommand to the program. */
export function registerBench(program: Command): void {
  program
    .command('bench')
    .description('Benchmark a model: concurrency or request-rate sweep, budgets, perf_analyzer-style results')
    .argument('<model>', `catalog model (${modelIds().join(', ')}) or generic (with --model-name)`)
    .argument('[k6-args...]', 'extra k6 flags after --, e.g. -- --out json=points.json')
    .option('--url <url>', 'Triton HTTP endpoint (TRITON_URL); default: start the embedded server')
    .option('--grpc-url <host:port>', 'Triton gRPC endpoint (TRITON_GRPC_URL)')
    .addOption(new Option('--protocol <p>', 'PROTOCOL').choices(['http', 'http-json', 'grpc']))
    .option('--model-name <name>', 'served model name (MODEL_NAME)')
    .option('--model-version <v>', 'model version (MODEL_VERSION)')
    .option('--batch <n>', 'request batch size (BATCH)')
    .option('--precision <p>', 'FP32, FP16, INT32, INT64 (PRECISION)')
    .option('--payload <file>', 'payload manifest or perf_analyzer input-data JSON (PAYLOAD)')
    .option('--headers <list>', 'extra HTTP headers / gRPC metadata "k:v,k2:v2" (HEADERS)')
    .option('--concurrency <range>', 'start:end:step or a list 1,2,4 (CONCURRENCY)')
    .option('--request-rate <range>', 'open loop, start:end:step or a list (REQUEST_RATE)')
    .option('--step-duration <d>', 'measurement window per level, e.g. 5s (STEP_DURATION)')
    .option('--warmup <d>', 'warm-up per level, e.g. 2s (WARMUP_DURATION)')
    .option('--stability <pct>', 'stability tolerance, percent (STABILITY)')
    .option('--p95-ms <ms>', 'override the p95 budget (P95_MS)')
    .option('--p99-ms <ms>', 'override the p99 budget (P99_MS)')
    .option(
      '--validate-every <n>',
      'check outputs of 1 in n measured responses (VALIDATE_EVERY; default 100; 1 = all, 0 = none); warm-up responses are all checked',
    )
    .option('--thresholds <file>', 'budget file (THRESHOLDS); default thresholds/<model>.json')
    .addOption(
      new Option('--runtime <r>', 'k6 binary or the Node runtime (RUNTIME)')
        .choices(['auto', 'k6', 'node'])
        .default(process.env.RUNTIME || 'auto'),
    )
    .option('--results-dir <dir>', 'where run folders go', 'results')
    .option('--count <n>', 'requests in a generated payload set', Number)
    .option('--junit <file>', 'also write the budget verdicts as JUnit XML here (CI)')
    .option('--time-scale <f>', 'embedded server: multiply simulated compute times', Number)
    .option('--model-repository <dir>', 'embedded server: Triton-layout model repository')
    .action(async (model: string, k6Args: string[], flags: Record<string, unknown>) => {
      const outcome = await runBench({
        model,
        env: benchEnv(flags, process.env),
        runtime: flags.runtime as RuntimeChoice,
        k6Args,
        resultsDir: String(flags.resultsDir),
        ...(flags.timeScale !== undefined ? { timeScale: flags.timeScale as number } : {}),
        ...(flags.modelRepository ? { modelRepository: String(flags.modelRepository) } : {}),
        ...(flags.count ? { count: flags.count as number } : {}),
        ...(flags.junit ? { junit: String(flags.junit) } : {}),
      });
      process.exitCode = outcome.exitCode;
    });
}
