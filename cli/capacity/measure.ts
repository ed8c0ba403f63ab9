/**
 * One capacity level = one bench run (runBench) at that single level, against a server the capacity
 * command already started, so every level meets the same warm server a real Triton would be.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LevelResult, RunReport } from '../../lib/summary/types.ts';
import { runBench } from '../bench/pipeline.ts';
import type { RuntimeChoice } from '../bench/runner.ts';
import type { Measurement } from './search.ts';

/** k6's exit codes that still mean the level was measured: 0 (budgets met) and 99 (a budget missed). */
const MEASURED_EXIT_CODES = [0, 99];

/** What measuring a level takes besides the level. */
export interface LevelRunOptions {
  model: string;
  /** Scenario settings with TRITON_URL set and neither CONCURRENCY nor REQUEST_RATE. */
  env: Record<string, string>;
  mode: 'concurrency' | 'request-rate';
  runtime: RuntimeChoice;
  k6Args: string[];
  /** Where the level's bench run folder goes. */
  resultsDir: string;
  count?: number;
}

/** A measured level: the bench's result for it (undefined when no request completed) and its folder. */
export interface LevelRun {
  result: LevelResult | undefined;
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
    p95_ms: result.latency_us.p95 / 1000,
    p99_ms: result.latency_us.p99 / 1000,
    error_rate: result.errors / result.requests,
    ...(result.stable !== undefined ? { stable: result.stable } : {}),
    generator_bound: result.generator?.bound ?? false,
  };
}

/** Runs the bench at one level and reads back its result (from summary.json: it has the generator's CPU). */
export async function runLevel(options: LevelRunOptions, level: number): Promise<LevelRun> {
  const variable = options.mode === 'concurrency' ? 'CONCURRENCY' : 'REQUEST_RATE';
  const outcome = await runBench({
    model: options.model,
    env: { ...options.env, [variable]: String(level) },
    runtime: options.runtime,
    k6Args: options.k6Args,
    resultsDir: options.resultsDir,
    ...(options.count ? { count: options.count } : {}),
  });
  const summaryPath = join(outcome.dir, 'summary.json');
  const report = existsSync(summaryPath)
    ? (JSON.parse(readFileSync(summaryPath, 'utf8')) as { report?: RunReport }).report
    : undefined;
  return {
    result: report?.results[0],
    report,
    dir: outcome.dir,
    exitCode: outcome.exitCode,
    measured: MEASURED_EXIT_CODES.includes(outcome.exitCode),
  };
}
