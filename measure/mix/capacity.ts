/**
 * `capacity --mix`: the whole mix scaled by one factor (every rate and concurrency, percent of the file's)
 * to the highest total load within every model's budget. The capacity search (capacity/search.ts) runs
 * unchanged on the scale: a scale's measurement is the tightest model's share of its budget, so "within
 * budget" means within every model's. The answer is one sentence naming the total and each model's part.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { us_to_ms } from '../../lib/units.ts';
import { EXIT } from '../../runtime/exit-codes.ts';
import type { Answer, Measurement, SearchBudget, SearchConfig, Trial } from '../capacity/search.ts';
import { DEFAULT_MAX_TRIALS, nextStep } from '../capacity/search.ts';
import { watchSignals } from '../interrupt.ts';
import type { PrepareOptions } from '../prepare.ts';
import type { RuntimeChoice } from '../runner.ts';
import type { RunSettings } from '../target.ts';
import { measureMix, mixRunDir, mixTargets, prepareMix, readMix } from './run.ts';
import type { MixModelResult, MixResult } from './summary.ts';

/**
 * The search's budget on the scale: measurements are percentages of each model's own budget (p95, p99,
 * error rate), so 100 is the edge, as k6's strict `<` judges a budget.
 */
export const MIX_BUDGET: SearchBudget = { p95_ms: 100, p99_ms: 100, error_rate: 1 };

/** Defaults of the scale search, percent of the file's loads; it bisects to 5%, as a rate search does. */
export const MIX_CAPACITY_DEFAULTS = { start: 10, max: 1000, resolution: { absolute: 1, relative: 0.05 } };

/** A model's error rate as a share of its budget's: 0 errors is 0; any error against a zero budget is over it. */
function errorShare(m: MixModelResult): number {
  const r = m.result;
  if (!r || r.requests === 0) return Number.POSITIVE_INFINITY;
  const rate = r.errors / r.requests;
  if (m.limits.error_rate > 0) return rate / m.limits.error_rate;
  return rate > 0 ? Number.POSITIVE_INFINITY : 0;
}

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

function fmt(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/** What a model missed at a scale, e.g. "resnext101-32x4d's p95 212 ms (budget 200 ms)". */
export function missWords(m: MixModelResult): string[] {
  const r = m.result;
  if (!r) return [`${m.id} completed no request`];
  const out: string[] = [];
  const p95 = us_to_ms(r.latency_us.p95);
  const p99 = us_to_ms(r.latency_us.p99);
  if (!(p95 < m.limits.p95_ms))
    out.push(`${m.id}'s p95 ${fmt(p95, 1)} ms (budget ${fmt(m.limits.p95_ms, 3)} ms)`);
  if (!(p99 < m.limits.p99_ms))
    out.push(`${m.id}'s p99 ${fmt(p99, 1)} ms (budget ${fmt(m.limits.p99_ms, 3)} ms)`);
  if (errorShare(m) >= 1)
    out.push(
      `${m.id}'s errors ${fmt((r.errors / Math.max(1, r.requests)) * 100, 2)}% (budget < ${fmt(m.limits.error_rate * 100, 2)}%)`,
    );
  return out;
}

/** The mix's parts at a scale, e.g. "410 requests/s in total (bert-base 287, resnext101-32x4d 123)". */
function totalWords(result: MixResult): string {
  const parts = result.models.map((m) => `${m.id} ${fmt(m.requests_per_s, 1)}`).join(', ');
  return `${fmt(result.whole.requests_per_s, 1)} requests/s in total (${parts})`;
}

/**
 * The capacity of the mix as one sentence: the highest scale within every model's budget, its total and
 * parts, and what the next scale measured missed.
 */
export function mixCapacitySentence(
  name: string,
  best: MixResult | undefined,
  above: MixResult | undefined,
  limitDetail: string,
): string {
  const miss = above
    ? `at ${fmt(above.percent, 1)}% (${fmt(above.whole.requests_per_s, 1)} requests/s) ${above.models.flatMap(missWords).join(' and ') || 'a model missed its budget'}`
    : undefined;
  if (!best) return `The mix ${name} holds no load within every model's budget: ${miss ?? limitDetail}.`;
  return `The mix ${name} holds ${totalWords(best)} within every model's budget, at ${fmt(best.percent, 1)}% of its file's loads; ${miss ?? `limited by ${limitDetail}`}.`;
}

/** What limited the search when no scale above the answer missed a budget, in the mix's percent. */
export function mixLimitWords(
  answer: Pick<Answer, 'limit' | 'limit_detail'>,
  config: Pick<SearchConfig, 'max' | 'maxTrials'>,
  bound: readonly MixResult[],
): string {
  switch (answer.limit) {
    case 'ceiling':
      return `the search's ceiling, ${fmt(config.max, 1)}% (raise --max to search higher)`;
    case 'trials':
      return `the search's ${config.maxTrials ?? DEFAULT_MAX_TRIALS} measurements (raise --max-levels)`;
    case 'generator':
      return `the load generator (bound at ${bound.map((r) => `${fmt(r.percent, 1)}%`).join(' and ')}); the server may hold more, measure with a faster client or another machine`;
    default:
      return answer.limit_detail;
  }
}

/** What a mix capacity run takes. */
export interface MixCapacityOptions extends PrepareOptions {
  mixPath: string;
  settings: RunSettings;
  runtime: RuntimeChoice;
  k6Args: string[];
  resultsDir: string;
  /** First scale, percent of the file's loads. */
  start?: number;
  /** Highest scale, percent. */
  max?: number;
  attempts?: number;
  maxTrials?: number;
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
  const trials: Trial[] = [];
  const measured = new Map<number, MixResult>();
  let stoppedEarly: string | undefined;
  try {
    const ready = await prepareMix(mix, first, options, interruption);
    try {
      for (;;) {
        const step = nextStep(config, trials);
        if (step.kind === 'done') break;
        console.log(`\ncapacity: measuring the mix at ${step.level}% (${step.purpose}: ${step.reason})`);
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
          },
        );
        if (interruption.first) stoppedEarly = `interrupted at ${step.level}%`;
        else if (run.exitCode !== EXIT.OK && run.exitCode !== EXIT.THRESHOLDS_FAILED)
          stoppedEarly = `the mix at ${step.level}% failed with exit code ${run.exitCode} (see ${run.dir})`;
        if (stoppedEarly) break;
        measured.set(step.level, run.result);
        trials.push({ purpose: step.purpose, reason: step.reason, measurement: mixMeasurement(run.result) });
        const misses = run.result.models.flatMap(missWords);
        console.log(
          `capacity: ${step.level}%: ${fmt(run.result.whole.requests_per_s, 1)} requests/s, ${misses.length === 0 ? 'every budget met' : misses.join(', ')}`,
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
    ? `an unfinished search (${stoppedEarly})`
    : mixLimitWords(answer, config, bound);
  const sentence = mixCapacitySentence(mix.name, best, above, detail);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'capacity.json'),
    `${JSON.stringify({ mix: { name: mix.name, path: mix.path }, sentence, answer, best, above, trials }, null, 2)}\n`,
  );
  await writeFile(join(dir, 'capacity.md'), `# Capacity of the mix ${mix.name}\n\n${sentence}\n`);
  console.log(`\n${sentence}`);
  console.log(
    `search: ${trials.length} measured scales: ${trials.map((t) => `${t.measurement.level}%`).join(', ')}`,
  );
  console.log(`results: ${dir}`);
  if (interruption.first) return EXIT.EXTERNAL_ABORT;
  if (stoppedEarly) return EXIT.FAILED;
  return answer.level === null ? EXIT.THRESHOLDS_FAILED : EXIT.OK;
}
