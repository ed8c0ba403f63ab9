/**
 * Measuring a set of levels: one bench run (runBench) over the levels, against a server the caller already
 * started (and, for a sweep, already configured), read back as the search's measurements. Capacity measures
 * one level at a time, its confirmation pass a linear range, and the sweep a concurrency list per config.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LevelResult, RunReport } from '../../lib/summary/types.ts';
import { runBench } from '../bench.ts';
import type { RuntimeChoice } from '../runner.ts';
import type { Measurement } from './search.ts';
import { us_to_ms } from '../../lib/units.ts';

/** k6's exit codes that still mean the levels were measured: 0 (budgets met) and 99 (a budget missed). */
const MEASURED_EXIT_CODES = [0, 99];

/** What measuring a level set takes besides the levels. */
export interface LevelSetOptions {
  model: string;
  /** Scenario settings with TRITON_URL set; CONCURRENCY or REQUEST_RATE (per mode) is set from the levels. */
  env: Record<string, string>;
  mode: 'concurrency' | 'request-rate';
  runtime: RuntimeChoice;
  k6Args: string[];
  /** Where the run's bench folder goes. */
  resultsDir: string;
  count?: number;
}

/** A measured level set: the bench's results, the search's view of each level, and the run's folder. */
export interface LevelSetRun {
  /** The bench's per-level results, in the order it measured them. */
  results: LevelResult[];
  /**
   * One measurement per requested level when the run was measured (a level with no completed request is all
   * errors); only the levels that have a result when it was not.
   */
  measurements: Measurement[];
  report: RunReport | undefined;
  dir: string;
  exitCode: number;
  /** False when the run failed for another reason than a missed budget (k6 error, interruption). */
  measured: boolean;
}

/** The search's view of a level result; a level with no completed request is all errors. */
export function toMeasurement(level: number, result: LevelResult | undefined): Measurement {
  if (!result || result.requests === 0) {
    return {
      level,
      throughput_infer_s: 0,
      p95_ms: Number.POSITIVE_INFINITY,
      p99_ms: Number.POSITIVE_INFINITY,
      error_rate: 1,
      generator_bound: false,
    };
  }
  return {
    level,
    throughput_infer_s: result.throughput_infer_s,
    p95_ms: us_to_ms(result.latency_us.p95),
    p99_ms: us_to_ms(result.latency_us.p99),
    error_rate: result.errors / result.requests,
    ...(result.stable !== undefined ? { stable: result.stable } : {}),
    generator_bound: result.generator?.bound ?? false,
  };
}

/** Pairs requested levels with the results that have them, in order (a level may be requested twice). */
export function measurementsFor(
  levels: readonly number[],
  results: readonly LevelResult[],
  measured: boolean,
): Measurement[] {
  const left = [...results];
  const out: Measurement[] = [];
  for (const level of levels) {
    // Rates travel through the scenario as text: compare with a tolerance, not bit for bit.
    const i = left.findIndex((r) => Math.abs(r.level - level) <= 1e-9 * Math.max(1, level));
    const result = i >= 0 ? left.splice(i, 1)[0] : undefined;
    // A failed run's missing levels were never measured; a finished run's were, with no request completing.
    if (result || measured) out.push(toMeasurement(level, result));
  }
  return out;
}

/** Runs the bench over `levels` and reads them back from summary.json (it has the generator's CPU). */
export async function measureLevels(
  options: LevelSetOptions,
  levels: readonly number[],
): Promise<LevelSetRun> {
  if (levels.length === 0) throw new Error('measureLevels: no level to measure');
  const variable = options.mode === 'concurrency' ? 'CONCURRENCY' : 'REQUEST_RATE';
  const outcome = await runBench({
    model: options.model,
    env: { ...options.env, [variable]: levels.join(',') },
    runtime: options.runtime,
    k6Args: options.k6Args,
    resultsDir: options.resultsDir,
    ...(options.count ? { count: options.count } : {}),
  });
  const summaryPath = join(outcome.dir, 'summary.json');
  const report = existsSync(summaryPath)
    ? (JSON.parse(readFileSync(summaryPath, 'utf8')) as { report?: RunReport }).report
    : undefined;
  const results = report?.results ?? [];
  const measured = MEASURED_EXIT_CODES.includes(outcome.exitCode);
  return {
    results,
    measurements: measurementsFor(levels, results, measured),
    report,
    dir: outcome.dir,
    exitCode: outcome.exitCode,
    measured,
  };
}
