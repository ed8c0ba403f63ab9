/**
 * Measuring a set of levels: one measurement (measure.ts) over the levels on a target prepared once (and,
 * for a sweep, already configured), its folder written from the report in memory, the results turned into
 * the search's measurements. Capacity measures one level at a time, its confirmation pass a linear range,
 * and the sweep a concurrency list per config.
 */
import type { LoadMode } from '../../lib/load/shapes.ts';
import type { GenerativeLevel, LevelResult, RunReport } from '../../lib/summary/types.ts';
import { EXIT } from '../core/exit-codes.ts';
import { writeMeasured } from '../bench/run-bench.ts';
import type { Interruption } from '../core/interrupt.ts';
import { measure } from '../core/measure-pass.ts';
import type { Prepared } from '../core/prepare.ts';
import type { RuntimeChoice } from '../core/runner.ts';
import { runDir } from '../core/target.ts';
import type { GenerativeMeasurement, Measurement } from './search.ts';
import { us_to_ms } from '../../lib/units.ts';

/** k6's exit codes that still mean the levels were measured: budgets met, or a budget missed. */
const MEASURED_EXIT_CODES: readonly number[] = [EXIT.OK, EXIT.THRESHOLDS_FAILED];

/** What measuring a level set takes besides the prepared target and the levels. */
export interface LevelSetOptions {
  mode: LoadMode;
  runtime: RuntimeChoice;
  k6Args: string[];
  /** Where each measurement's folder goes (<resultsDir>/<model>/<run-id>/). */
  resultsDir: string;
  interruption: Interruption;
  /** Print nothing per measurement: its report goes to its folder, the runtime's output to runtime.log. */
  quiet?: boolean;
  /** How often the server's metrics are scraped, ms (perf_analyzer's --metrics-interval). @default 500 */
  metricsInterval_ms?: number;
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
  report: RunReport;
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
    ...(result.trials !== undefined ? { passes: result.trials } : {}),
    generator_bound: result.generator?.bound ?? false,
    ...(result.genai ? { genai: generativeMeasurement(result.genai) } : {}),
  };
}

/** The search's view of a generative level: TTFT and ITL p95, output tokens/s and goodput. */
function generativeMeasurement(g: GenerativeLevel): GenerativeMeasurement {
  return {
    ttft_p95_ms: g.ttft_ms.p95,
    itl_p95_ms: g.itl_ms.p95,
    output_tokens_per_s: g.output_tokens_per_s,
    ...(g.goodput ? { good_fraction: g.goodput.good_fraction, goodput_per_s: g.goodput.requests_per_s } : {}),
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
    // The scenario reads the level from its shortest decimal text, which gives back the same number.
    const i = left.findIndex((r) => r.level === level);
    const result = i >= 0 ? left.splice(i, 1)[0] : undefined;
    // A failed run's missing levels were never measured; a finished run's were, with no request completing.
    if (result || measured) out.push(toMeasurement(level, result));
  }
  return out;
}

/** Measures `levels` on the prepared target and writes the measurement's folder from its report. */
export async function measureLevels(
  prepared: Prepared,
  options: LevelSetOptions,
  levels: readonly number[],
): Promise<LevelSetRun> {
  if (levels.length === 0) throw new Error('measureLevels: no level to measure');
  const dir = runDir(options.resultsDir, prepared.target);
  const measured = await measure(prepared, {
    levels: { mode: options.mode, levels },
    dir,
    runtime: options.runtime,
    k6Args: options.k6Args,
    interruption: options.interruption,
    ...(options.quiet ? { quiet: true } : {}),
    ...(options.metricsInterval_ms ? { metricsInterval_ms: options.metricsInterval_ms } : {}),
  });
  await writeMeasured(dir, measured, options.quiet ? { quiet: true } : {});
  const { results } = measured.report;
  const ok = MEASURED_EXIT_CODES.includes(measured.exitCode);
  return {
    results,
    measurements: measurementsFor(levels, results, ok),
    report: measured.report,
    dir,
    exitCode: measured.exitCode,
    measured: ok,
  };
}
