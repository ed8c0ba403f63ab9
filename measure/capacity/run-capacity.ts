/**
 * The capacity search run end to end: the highest concurrency (or request rate) whose p95, p99 and error
 * rate stay within the model's budget, found in few measured levels (search.ts), each level one measurement
 * on a target prepared once; written to results/<model>/capacity-<run-id>/.
 */
import { withPromptWorkload } from '../../payloads/prompt-workload.ts';
import { join } from 'node:path';
import type { GeneratorErrorBar, LevelResult } from '../../lib/summary/types.ts';
import { errorBarLine } from '../../lib/genai/error-bar.ts';
import { read } from '../../lib/settings/read.ts';
import { S } from '../../lib/settings/schema.ts';
import { preflight, preflightDir } from '../core/preflight.ts';
import { buildRunReport } from '../../lib/summary/from-summary.ts';
import { EXIT } from '../core/exit-codes.ts';
import { watchSignals } from '../core/interrupt.ts';
import { type PrepareOptions, type Prepared, prepare } from '../core/prepare.ts';
import type { RuntimeChoice } from '../core/runner.ts';
import { type RunSettings, resolveTarget, runDir } from '../core/target.ts';
import { type Confirmation, confirmationSentence, confirmPlan, judgeConfirmation } from './confirm.ts';
import { type LevelSetOptions, measureLevels } from './measure-levels.ts';
import { planningBasis, project } from './projection.ts';
import { RUNTIME_LOG } from '../core/measure-pass.ts';
import {
  type CapacityRecord,
  capacityHeader,
  capacityRow,
  capacitySentence,
  measurementText,
  noProjectionSentence,
  projectionSentence,
  trialHead,
  writeCapacity,
} from './capacity-report.ts';
import { DEFAULT_MAX_TRIALS, nextStep, type SearchBudget, type SearchConfig, type Trial } from './search.ts';

/** Defaults of the search per mode: where it starts, its ceiling and when bisection stops. */
export const CAPACITY_DEFAULTS = {
  concurrency: { start: 1, max: 256, resolution: { absolute: 1, relative: 0 } },
  // Rates bisect to 5%: a 1 req/s resolution at 3,000 req/s costs levels and is below the noise.
  'request-rate': { start: 10, max: 100_000, resolution: { absolute: 1, relative: 0.05 } },
  attempts: 3,
  maxTrials: DEFAULT_MAX_TRIALS,
} as const;

/** The search's bounds, a single model's or a mix's (in percent of its loads): defaults above. */
export interface SearchLimits {
  start?: number;
  max?: number;
  attempts?: number;
  maxTrials?: number;
}

/** What a capacity run takes. */
export interface CapacityOptions extends PrepareOptions, SearchLimits {
  model: string;
  /** Scenario settings as the bench takes them (CONCURRENCY and REQUEST_RATE are the search's). */
  settings: RunSettings;
  mode: 'concurrency' | 'request-rate';
  runtime: RuntimeChoice;
  k6Args: string[];
  resultsDir: string;
  targetRate?: number;
  /** After the search, a linear bench over --start..the level it found outside the budget checks it (confirm.ts). */
  confirmSweep?: boolean;
  /** How often the server's metrics are scraped, ms (perf_analyzer's --metrics-interval). @default 500 */
  metricsInterval_ms?: number;
}

/** How a capacity run ended and where its folder is. */
export interface CapacityOutcome {
  exitCode: number;
  dir: string;
}

/**
 * Runs the search end to end and writes its results; resolves with the exit code and the run's folder. The
 * console gets one line per measurement; each measurement's full report is in its folder under levels/.
 */
export async function runCapacity(options: CapacityOptions): Promise<CapacityOutcome> {
  const mode = options.mode;
  const defaults = CAPACITY_DEFAULTS[mode];
  const start = options.start ?? defaults.start;
  const max = options.max ?? defaults.max;
  if (start > max) throw new Error(`--start ${start} is above --max ${max}; lower --start or raise --max`);
  if (mode === 'concurrency' && !(Number.isInteger(start) && Number.isInteger(max)))
    throw new Error(
      `--start ${start} --max ${max}: a concurrency is a whole number of requests; use e.g. --start 1 --max 64`,
    );
  // The bench's own plan at the first level, resolved once here so a bad setting fails before any server starts.
  // A generative model's prompts are made first (payloads/prompt-workload.ts), as the bench makes them.
  const target = resolveTarget(
    options.model,
    withPromptWorkload(options.model, options.settings, process.env, { loadGiven: true }),
    { levels: { mode, levels: [start] } },
  );
  const plan = target.run;
  // A generative model's TTFT and ITL bounds join the latency budget (its scenario reads the same settings).
  const budget: SearchBudget = { ...plan.limits, ...plan.tokens };
  const config: SearchConfig = {
    mode,
    budget,
    start,
    max,
    resolution: defaults.resolution,
    attempts: options.attempts ?? CAPACITY_DEFAULTS.attempts,
    maxTrials: options.maxTrials ?? CAPACITY_DEFAULTS.maxTrials,
  };
  const dir = runDir(options.resultsDir, target, 'capacity-');
  const startedAt = new Date().toISOString();

  // SIGINT and SIGTERM stop the level being measured as they stop a bench; the search then stops.
  const interruption = watchSignals();
  const path: CapacityRecord['path'] = [];
  const results: LevelResult[] = [];
  let runtime: 'k6' | 'node' = 'node';
  let stoppedEarly: string | undefined;
  let confirmation: Confirmation | undefined;
  let errorBar: GeneratorErrorBar | undefined;
  try {
    // One server, payload set and bundle for the whole search, so levels do not pay a cold start.
    const prepared = await prepare(target, options, interruption);
    if (target.entry.scenario === 'llm' && read(target.settings, S.PREFLIGHT) !== 'off') {
      errorBar = await preflight(prepared, {
        dir: preflightDir(dir),
        runtime: options.runtime,
        interruption,
      });
      if (errorBar) console.error(`k6-triton: ${errorBarLine(errorBar)}`);
    }
    const levelOptions: LevelSetOptions = {
      mode,
      runtime: options.runtime,
      k6Args: options.k6Args,
      resultsDir: join(dir, 'levels'),
      interruption,
      quiet: true,
      ...(options.metricsInterval_ms ? { metricsInterval_ms: options.metricsInterval_ms } : {}),
    };
    console.log(
      `capacity: one line per measurement; each one's report is in ${join(dir, 'levels', target.modelDir)}/<run>/ (report.md; the runtime's output in ${RUNTIME_LOG})`,
    );
    try {
      for (;;) {
        const step = nextStep(config, path);
        if (step.kind === 'done') break;
        // The line is ended when the level is measured: one line per measurement, whatever its passes.
        process.stdout.write(trialHead(path.length + 1, step.level, step.purpose));
        const run = await measureLevels(prepared, levelOptions, [step.level]);
        runtime = run.report.runtime;
        if (interruption.first) stoppedEarly = `interrupted while measuring ${step.level}`;
        else if (!run.measured)
          stoppedEarly = `the bench run at ${step.level} failed with exit code ${run.exitCode} (see ${join(run.dir, RUNTIME_LOG)})`;
        if (stoppedEarly) {
          process.stdout.write('not measured\n');
          break;
        }
        results.push(...run.results);
        const measurement = run.measurements[0];
        if (!measurement) throw new Error(`capacity: the bench at ${step.level} returned no measurement`);
        const trial: Trial = { purpose: step.purpose, reason: step.reason, measurement };
        path.push({ ...trial, dir: run.dir });
        process.stdout.write(`${measurementText(measurement, budget)}\n`);
      }
      if (options.confirmSweep && !stoppedEarly && path.length > 0)
        confirmation = await confirmAnswer(config, path, prepared, {
          ...levelOptions,
          resultsDir: join(dir, 'confirm'),
        });
    } finally {
      await prepared.stop();
    }
  } finally {
    interruption.dispose();
  }

  if (path.length === 0) {
    console.error(`k6-triton: capacity: no level was measured; ${stoppedEarly ?? 'see the errors above'}`);
    return { exitCode: interruption.first ? EXIT.EXTERNAL_ABORT : EXIT.FAILED, dir };
  }
  // Stopped early: the answer from what was measured, as if the search had run out of measurements.
  const final = nextStep(stoppedEarly ? { ...config, maxTrials: path.length } : config, path);
  if (final.kind !== 'done') throw new Error('capacity search did not converge');
  const answer = stoppedEarly
    ? {
        ...final.answer,
        limit_detail: `the search stopping early (${stoppedEarly}); higher levels were not measured`,
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
  // A plan rests on a stable measurement only: an unstable one may be off by its whole spread.
  const basis = planningBasis(
    path.map((t) => t.measurement),
    answer,
    budget,
  );
  if (options.targetRate !== undefined && basis && basis.throughput_infer_s > 0)
    record.projection = { ...project(options.targetRate, basis.throughput_infer_s), level: basis.level };
  const report = buildRunReport({
    model: plan.settings.modelName,
    protocol: plan.settings.protocol,
    runtime,
    batch: plan.settings.batch,
    started_at: startedAt,
    results,
    validate_every: plan.validateEvery,
    warmup_checks: plan.warmupChecks,
    ...(errorBar ? { error_bar: errorBar } : {}),
  });
  // Files not written are said at the end of the output (report/not-written.ts).
  await writeCapacity(dir, record, report);

  console.log(`\n${capacitySentence(record)}\n\n${capacityHeader(mode)}\n${capacityRow(record)}`);
  console.log(`\nsearch: ${path.length} measured levels: ${path.map((t) => t.measurement.level).join(', ')}`);
  if (confirmation) console.log(confirmationSentence(confirmation, budget));
  else if (options.confirmSweep)
    console.log('confirm: no verdict (the search stopped early or the confirmation bench failed, see above)');
  if (options.targetRate !== undefined) {
    console.log(
      `planning: ${record.projection ? projectionSentence(record.projection) : noProjectionSentence(record)}`,
    );
  }
  // Read by scripts as the run's folder: the path alone (its report.md has the answer, path and every level).
  console.log(`results: ${dir}`);
  if (interruption.first) return { exitCode: EXIT.EXTERNAL_ABORT, dir };
  if (stoppedEarly) return { exitCode: EXIT.FAILED, dir };
  // As the bench: 99 says the budget could not be met at all.
  return { exitCode: answer.level === null ? EXIT.THRESHOLDS_FAILED : EXIT.OK, dir };
}

/**
 * Measures the confirmation pass of the search's answer on the same server, as one bench run; undefined
 * (and a line on stderr) when that run fails, so the search's answer is still written.
 */
async function confirmAnswer(
  config: SearchConfig,
  path: readonly Trial[],
  prepared: Prepared,
  levelOptions: LevelSetOptions,
): Promise<Confirmation | undefined> {
  const final = nextStep(config, path);
  if (final.kind !== 'done') return undefined;
  const plan = confirmPlan(config, final.answer);
  console.log(
    `\ncapacity: confirming ${final.answer.level ?? 'no level'} with a ${plan.kind} bench over ${plan.levels.join(', ')}`,
  );
  const run = await measureLevels(prepared, levelOptions, plan.levels);
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
