/**
 * `k6-triton capacity <model>`: the highest concurrency (or, with --request-rate, request rate) whose p95,
 * p99 and error rate stay within the model's budget, found in few measured levels (measure/capacity/search.ts),
 * each level one bench run (runBench) against one server; written to results/<model>/capacity-<run-id>/.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Command, InvalidArgumentError } from 'commander';
import { addBudgetOptions, addLocalRunOptions, addTargetOptions, tritonserverOption } from './options.ts';
import { resolveRunPlan } from '../lib/scenario/run-plan.ts';
import { buildRunReport } from '../lib/summary/from-summary.ts';
import type { LevelResult } from '../lib/summary/types.ts';
import { genericEntry } from '../models/generic.ts';
import { getModel, modelIds } from '../models/index.ts';
import { benchEnv } from './bench.ts';
import { type LocalServer, startLocalServer } from '../measure/local-server.ts';
import type { RuntimeChoice } from '../measure/runner.ts';
import { type LevelSetOptions, measureLevels } from '../measure/capacity/measure.ts';
import {
  type Confirmation,
  confirmationSentence,
  confirmPlan,
  judgeConfirmation,
} from '../measure/capacity/confirm.ts';
import { project } from '../measure/capacity/projection.ts';
import {
  type CapacityRecord,
  capacityHeader,
  capacityRow,
  capacitySentence,
  measurementText,
  projectionSentence,
  trialLine,
  writeCapacity,
} from '../measure/capacity/report.ts';
import { DEFAULT_MAX_TRIALS, nextStep, type SearchConfig, type Trial } from '../measure/capacity/search.ts';

const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Defaults of the search per mode: where it starts, its ceiling and when bisection stops. */
export const CAPACITY_DEFAULTS = {
  concurrency: { start: 1, max: 256, resolution: { absolute: 1, relative: 0 } },
  // Rates bisect to 5%: a 1 req/s resolution at 3,000 req/s costs levels and is below the noise.
  'request-rate': { start: 10, max: 100_000, resolution: { absolute: 1, relative: 0.05 } },
  attempts: 3,
  maxTrials: DEFAULT_MAX_TRIALS,
} as const;

/** What a capacity run takes. */
export interface CapacityOptions {
  model: string;
  /** Scenario settings as the bench takes them (CONCURRENCY and REQUEST_RATE are the search's). */
  env: Record<string, string>;
  mode: 'concurrency' | 'request-rate';
  runtime: RuntimeChoice;
  k6Args: string[];
  resultsDir: string;
  start?: number;
  max?: number;
  attempts?: number;
  maxTrials?: number;
  targetRate?: number;
  timeScale?: number;
  modelRepository?: string;
  /** A tritonserver binary (TRITONSERVER) to start instead of the embedded server. */
  tritonserver?: string;
  count?: number;
  /** After the search, a linear bench over --start..the level it found outside the budget checks it (confirm.ts). */
  confirmSweep?: boolean;
}

function runId(): string {
  return new Date().toISOString().replace(/[:.]/g, '-').replace('Z', '');
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

/** Runs the search end to end and writes its results; resolves with the exit code. */
export async function runCapacity(options: CapacityOptions): Promise<number> {
  const env: Record<string, string> = { ...options.env };
  delete env.CONCURRENCY;
  delete env.REQUEST_RATE;
  const mode = options.mode;
  const defaults = CAPACITY_DEFAULTS[mode];
  const start = options.start ?? defaults.start;
  const max = options.max ?? defaults.max;
  if (start > max) throw new Error(`--start ${start} is above --max ${max}; lower --start or raise --max`);
  if (mode === 'concurrency' && !(Number.isInteger(start) && Number.isInteger(max)))
    throw new Error(
      `--start ${start} --max ${max}: a concurrency is a whole number of requests; use e.g. --start 1 --max 64`,
    );

  const catalogEntry = options.model === 'generic' ? genericEntry(env.MODEL_NAME) : getModel(options.model);
  const budgetPath = env.THRESHOLDS
    ? resolve(env.THRESHOLDS)
    : join(PACKAGE_ROOT, 'thresholds', `${catalogEntry.id}.json`);
  const variable = mode === 'concurrency' ? 'CONCURRENCY' : 'REQUEST_RATE';
  // The bench's own plan, resolved once here so a bad setting fails before any server starts.
  const plan = resolveRunPlan(
    catalogEntry,
    { ...env, [variable]: String(start) },
    readFileSync(budgetPath, 'utf8'),
    budgetPath,
  );
  const budget = {
    p95_ms: plan.overrides.p95_ms ?? plan.budget.p95_ms,
    p99_ms: plan.overrides.p99_ms ?? plan.budget.p99_ms,
    error_rate: plan.budget.error_rate,
  };
  const config: SearchConfig = {
    mode,
    budget,
    start,
    max,
    resolution: defaults.resolution,
    attempts: options.attempts ?? CAPACITY_DEFAULTS.attempts,
    maxTrials: options.maxTrials ?? CAPACITY_DEFAULTS.maxTrials,
  };
  const modelDir = catalogEntry.id === 'generic' ? plan.settings.modelName : catalogEntry.id;
  const dir = resolve(options.resultsDir, modelDir, `capacity-${runId()}`);
  const startedAt = new Date().toISOString();

  let server: LocalServer | undefined;
  if (!env.TRITON_URL) {
    // One server for the whole search, as the bench would start it, so levels do not pay a cold start.
    server = await startLocalServer({
      modelId: catalogEntry.id,
      servedModel: plan.settings.modelName,
      ...(env.PRECISION ? { precision: plan.settings.precision } : {}),
      modelRepository: options.modelRepository,
      timeScale: options.timeScale,
      tritonserver: options.tritonserver,
    });
    env.TRITON_URL = server.url;
    env.TRITON_GRPC_URL = server.grpcUrl;
    console.log(server.description);
  }
  let interrupted = false;
  const onSigint = () => {
    interrupted = true;
  };
  process.on('SIGINT', onSigint);
  const levelOptions: LevelSetOptions = {
    model: options.model,
    env,
    mode,
    runtime: options.runtime,
    k6Args: options.k6Args,
    resultsDir: join(dir, 'levels'),
    ...(options.count ? { count: options.count } : {}),
  };
  const path: CapacityRecord['path'] = [];
  const results: LevelResult[] = [];
  let runtime: 'k6' | 'node' = 'node';
  let stoppedEarly: string | undefined;
  let confirmation: Confirmation | undefined;
  try {
    for (;;) {
      const step = nextStep(config, path);
      if (step.kind === 'done') break;
      console.log(`\ncapacity: measuring ${step.level} (${step.purpose}: ${step.reason})`);
      const run = await measureLevels(levelOptions, [step.level]);
      if (run.report) runtime = run.report.runtime;
      if (interrupted) stoppedEarly = `interrupted while measuring ${step.level}`;
      else if (!run.measured)
        stoppedEarly = `the bench run at ${step.level} failed with exit code ${run.exitCode} (see ${run.dir})`;
      if (stoppedEarly) break;
      results.push(...run.results);
      const measurement = run.measurements[0];
      if (!measurement) throw new Error(`capacity: the bench at ${step.level} returned no measurement`);
      const trial: Trial = { purpose: step.purpose, reason: step.reason, measurement };
      path.push({ ...trial, dir: run.dir });
      console.log(trialLine(path.length, trial, budget));
    }
    if (options.confirmSweep && !stoppedEarly && path.length > 0)
      confirmation = await confirmAnswer(config, path, levelOptions, join(dir, 'confirm'));
  } finally {
    process.off('SIGINT', onSigint);
    await server?.stop();
  }

  if (path.length === 0) {
    console.error(`k6-triton: capacity: no level was measured; ${stoppedEarly ?? 'see the errors above'}`);
    return interrupted ? 130 : 1;
  }
  // Stopped early: the answer from what was measured, as if the search had run out of measurements.
  const final = nextStep(stoppedEarly ? { ...config, maxTrials: path.length } : config, path);
  if (final.kind !== 'done') throw new Error('capacity search did not converge');
  const answer = stoppedEarly
    ? {
        ...final.answer,
        limit_detail: `an unfinished search (${stoppedEarly}); higher levels were not measured`,
      }
    : final.answer;
  const record: CapacityRecord = {
    model: options.model === 'generic' ? plan.settings.modelName : options.model,
    mode,
    batch: plan.settings.batch,
    budget,
    answer,
    path,
    ...(stoppedEarly ? { stopped_early: stoppedEarly } : {}),
    ...(confirmation ? { confirmation } : {}),
  };
  if (options.targetRate !== undefined && answer.measurement && answer.measurement.throughput_infer_s > 0)
    record.projection = project(options.targetRate, answer.measurement.throughput_infer_s);
  const report = buildRunReport({
    model: plan.settings.modelName,
    protocol: plan.settings.protocol,
    runtime,
    batch: plan.settings.batch,
    started_at: startedAt,
    results,
    validate_every: plan.validateEvery,
    warmup_checks: plan.warmupChecks,
  });
  const written = await writeCapacity(dir, record, report);
  for (const error of written.errors) console.error(`k6-triton: could not write ${error}`);

  console.log(`\n${capacitySentence(record)}\n\n${capacityHeader(mode)}\n${capacityRow(record)}`);
  console.log(`\nsearch: ${path.length} measured levels: ${path.map((t) => t.measurement.level).join(', ')}`);
  if (confirmation) console.log(confirmationSentence(confirmation, budget));
  else if (options.confirmSweep)
    console.log('confirm: no verdict (the search stopped early or the confirmation bench failed, see above)');
  if (options.targetRate !== undefined) {
    console.log(
      record.projection
        ? `planning: ${projectionSentence(record.projection)}`
        : 'planning: no capacity within budget was measured, so no number of servers meets --target-rate',
    );
  }
  console.log(`results: ${dir}`);
  if (interrupted) return 130;
  if (stoppedEarly) return 1;
  // As the bench: 99 says the budget could not be met at all.
  return answer.level === null ? 99 : 0;
}

/**
 * Measures the confirmation pass of the search's answer on the same server, as one bench run; undefined
 * (and a line on stderr) when that run fails, so the search's answer is still written.
 */
async function confirmAnswer(
  config: SearchConfig,
  path: readonly Trial[],
  levelOptions: LevelSetOptions,
  resultsDir: string,
): Promise<Confirmation | undefined> {
  const final = nextStep(config, path);
  if (final.kind !== 'done') return undefined;
  const plan = confirmPlan(config, final.answer);
  console.log(
    `\ncapacity: confirming ${final.answer.level ?? 'no level'} with a ${plan.kind} bench over ${plan.levels.join(', ')}`,
  );
  const run = await measureLevels({ ...levelOptions, resultsDir }, plan.levels);
  if (!run.measured) {
    console.error(
      `k6-triton: capacity: the confirmation bench failed with exit code ${run.exitCode} (see ${run.dir})`,
    );
    return undefined;
  }
  for (const m of run.measurements) console.log(`confirm ${m.level}: ${measurementText(m, config.budget)}`);
  return {
    ...judgeConfirmation(
      plan,
      final.answer,
      run.measurements,
      config.budget,
      path.map((t) => t.measurement.level),
    ),
    dir: run.dir,
  };
}

/** Adds the `capacity` subcommand to the program. */
export function registerCapacity(program: Command): void {
  const command = program
    .command('capacity')
    .description(
      'Find the highest concurrency (or request rate) within the latency budget: exponential then binary search, boundary confirmed',
    )
    .argument('<model>', `catalog model (${modelIds().join(', ')}) or generic (with --model-name)`)
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
      '--confirm-sweep',
      'after the search, bench every level from --start to the first one it found outside the budget and say whether it confirms',
    );
  addTargetOptions(command, 'Triton HTTP endpoint (TRITON_URL); default: start the embedded server');
  command
    .option('--step-duration <d>', 'measurement window per level, e.g. 5s (STEP_DURATION)')
    .option('--warmup <d>', 'warm-up per level, e.g. 2s (WARMUP_DURATION)')
    .option('--stability <pct>', 'stability tolerance, percent (STABILITY)');
  addBudgetOptions(command);
  addLocalRunOptions(command);
  command.action(async (model: string, k6Args: string[], flags: Record<string, unknown>) => {
    const { requestRate, confirmSweep, ...benchFlags } = flags;
    process.exitCode = await runCapacity({
      model,
      env: benchEnv(benchFlags, process.env),
      mode: requestRate ? 'request-rate' : 'concurrency',
      runtime: flags.runtime as RuntimeChoice,
      k6Args,
      resultsDir: String(flags.resultsDir),
      ...(flags.start !== undefined ? { start: flags.start as number } : {}),
      ...(flags.max !== undefined ? { max: flags.max as number } : {}),
      ...(flags.attempts !== undefined ? { attempts: flags.attempts as number } : {}),
      ...(flags.maxLevels !== undefined ? { maxTrials: flags.maxLevels as number } : {}),
      ...(flags.targetRate !== undefined ? { targetRate: flags.targetRate as number } : {}),
      ...(flags.timeScale !== undefined ? { timeScale: flags.timeScale as number } : {}),
      ...(flags.modelRepository ? { modelRepository: String(flags.modelRepository) } : {}),
      ...tritonserverOption(flags),
      ...(flags.count ? { count: flags.count as number } : {}),
      ...(confirmSweep ? { confirmSweep: true } : {}),
    });
  });
}
