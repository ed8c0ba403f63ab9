/**
 * `capacity --mix`: the whole mix scaled by one factor (every rate and concurrency, percent of the file's)
 * to the highest total load within every model's budget. The capacity search (capacity/search.ts) runs
 * unchanged on the scale: a scale's measurement is the tightest model's share of its budget, so "within
 * budget" means within every model's. The answer is one sentence naming the total and each model's part.
 */
import { join } from 'node:path';
import { us_to_ms } from '../../lib/units.ts';
import { writeResult } from '../../report/not-written.ts';
import { EXIT } from '../core/exit-codes.ts';
import type { Measurement, SearchBudget, SearchConfig, Trial } from '../capacity/search.ts';
import { DEFAULT_MAX_TRIALS, nextStep } from '../capacity/search.ts';
import type { SearchLimits } from '../capacity/run-capacity.ts';
import { watchSignals } from '../core/interrupt.ts';
import { RUNTIME_LOG } from '../core/measure-pass.ts';
import type { PrepareOptions } from '../core/prepare.ts';
import type { RuntimeChoice } from '../core/runner.ts';
import type { RunSettings } from '../core/target.ts';
import { fmt, mixCapacitySentence, mixLimitWords, missWords } from './capacity-words.ts';
import { measureMix, mixRunDir, mixTargets, prepareMix, readMix } from './run-mix.ts';
import { errorShare, type MixModelResult, type MixResult } from './mix-summary.ts';

/**
 * The search's budget on the scale: measurements are percentages of each model's own budget (p95, p99,
 * error rate), so 100 is the edge, as k6's strict `<` judges a budget.
 */
export const MIX_BUDGET: SearchBudget = { p95_ms: 100, p99_ms: 100, error_rate: 1 };

/** Defaults of the scale search, percent of the file's loads; it bisects to 5%, as a rate search does. */
export const MIX_CAPACITY_DEFAULTS = { start: 10, max: 1000, resolution: { absolute: 1, relative: 0.05 } };

/**
 * The search's view of the mix at a scale: p95, p99 and errors of the model closest to its budget on each,
 * as percentages of that budget (of the error rate: as a fraction of it); a model not measured misses.
 */
export function mixMeasurement(result: MixResult): Measurement {
  const worst = (share: (m: MixModelResult) => number) =>
    Math.max(...result.models.map((m) => (m.result ? share(m) : Number.POSITIVE_INFINITY)));
  const stable = result.models.every((m) => m.result?.stable !== false);
  return {
    level: result.percent,
    throughput_infer_s: result.whole.throughput_infer_s,
    p95_ms: worst((m) => (us_to_ms(m.result!.latency_us.p95) / m.limits.p95_ms) * 100),
    p99_ms: worst((m) => (us_to_ms(m.result!.latency_us.p99) / m.limits.p99_ms) * 100),
    error_rate: worst(errorShare),
    stable,
    generator_bound: result.models.some((m) => m.result?.generator?.bound === true),
  };
}

/** What a mix capacity run takes; its start and max are scales, in percent of the file's loads. */
export interface MixCapacityOptions extends PrepareOptions, SearchLimits {
  mixPath: string;
  settings: RunSettings;
  runtime: RuntimeChoice;
  k6Args: string[];
  resultsDir: string;
  /** How often the server's metrics are scraped, ms (perf_analyzer's --metrics-interval). @default 500 */
  metricsInterval_ms?: number;
}

/** Runs the scale search and prints its sentence; resolves with the exit code (99: no scale within budget). */
export async function runMixCapacity(options: MixCapacityOptions): Promise<number> {
  const mix = readMix(options.mixPath);
  const start = options.start ?? MIX_CAPACITY_DEFAULTS.start;
  const max = options.max ?? MIX_CAPACITY_DEFAULTS.max;
  if (start > max) throw new Error(`--start ${start} is above --max ${max}; lower --start or raise --max`);
  const config: SearchConfig = {
    // Percent keeps one decimal, as a rate does.
    mode: 'request-rate',
    budget: MIX_BUDGET,
    start,
    max,
    resolution: MIX_CAPACITY_DEFAULTS.resolution,
    attempts: options.attempts ?? 3,
    maxTrials: options.maxTrials ?? DEFAULT_MAX_TRIALS,
  };
  // Every setting checked before the server starts.
  const first = mixTargets(mix, options.settings, start);
  const dir = mixRunDir(options.resultsDir, mix, 'capacity-');
  const interruption = watchSignals();
  console.log(
    `capacity: one line per scale; each one's tables are in ${dir}/p<scale>-<n>/report.md (the runtime's output in ${RUNTIME_LOG})`,
  );
  const trials: Trial[] = [];
  const measured = new Map<number, MixResult>();
  let stoppedEarly: string | undefined;
  try {
    const ready = await prepareMix(mix, first, options, interruption);
    try {
      for (;;) {
        const step = nextStep(config, trials);
        if (step.kind === 'done') break;
        // One line per scale, ended once it is measured; each scale's tables are in its folder's report.md.
        process.stdout.write(`capacity #${trials.length + 1} ${step.level}% (${step.purpose}): `);
        const run = await measureMix(
          ready,
          mixTargets(mix, options.settings, step.level),
          step.level,
          options.settings,
          {
            dir: join(dir, `p${String(step.level).replace('.', '_')}-${trials.length + 1}`),
            runtime: options.runtime,
            k6Args: options.k6Args,
            interruption,
            quiet: true,
            ...(options.metricsInterval_ms ? { metricsInterval_ms: options.metricsInterval_ms } : {}),
          },
        );
        if (interruption.first) stoppedEarly = `interrupted at ${step.level}%`;
        else if (run.exitCode !== EXIT.OK && run.exitCode !== EXIT.THRESHOLDS_FAILED)
          stoppedEarly = `the mix at ${step.level}% failed with exit code ${run.exitCode} (see ${run.dir})`;
        if (stoppedEarly) {
          process.stdout.write('not measured\n');
          break;
        }
        measured.set(step.level, run.result);
        trials.push({ purpose: step.purpose, reason: step.reason, measurement: mixMeasurement(run.result) });
        const misses = run.result.models.flatMap(missWords);
        const stable = mixMeasurement(run.result).stable ? 'stable' : 'unstable';
        process.stdout.write(
          `${fmt(run.result.whole.requests_per_s, 1)} requests/s, ${stable}, ${misses.length === 0 ? 'every budget met' : misses.join(', ')}\n`,
        );
      }
    } finally {
      await ready.stop();
    }
  } finally {
    interruption.dispose();
  }
  if (trials.length === 0) {
    console.error(
      `k6-triton: capacity --mix: no scale was measured; ${stoppedEarly ?? 'see the errors above'}`,
    );
    return interruption.first ? EXIT.EXTERNAL_ABORT : EXIT.FAILED;
  }
  const final = nextStep(stoppedEarly ? { ...config, maxTrials: trials.length } : config, trials);
  if (final.kind !== 'done') throw new Error('capacity search did not converge');
  const { answer } = final;
  const best = answer.level === null ? undefined : measured.get(answer.level);
  const above = answer.above ? measured.get(answer.above.level) : undefined;
  const bound = [best, above].filter(
    (r): r is MixResult => r !== undefined && mixMeasurement(r).generator_bound,
  );
  const detail = stoppedEarly
    ? `the search stopping early (${stoppedEarly})`
    : mixLimitWords(answer, config, bound);
  const sentence = mixCapacitySentence(mix.name, best, above, detail);
  await writeResult(
    join(dir, 'capacity.json'),
    `${JSON.stringify({ mix: { name: mix.name, path: mix.path }, sentence, answer, best, above, trials }, null, 2)}\n`,
  );
  await writeResult(join(dir, 'capacity.md'), `# Capacity of the mix ${mix.name}\n\n${sentence}\n`);
  console.log(`\n${sentence}`);
  console.log(
    `search: ${trials.length} measured scales: ${trials.map((t) => `${t.measurement.level}%`).join(', ')}`,
  );
  console.log(`results: ${dir}`);
  if (interruption.first) return EXIT.EXTERNAL_ABORT;
  if (stoppedEarly) return EXIT.FAILED;
  return answer.level === null ? EXIT.THRESHOLDS_FAILED : EXIT.OK;
}
