/**
 * One sweep config measured: one bench run (runBench) over the whole concurrency list against the server
 * that already holds the config, read back as the capacity search's measurements.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunReport } from '../../lib/summary/types.ts';
import { runBench } from '../bench/pipeline.ts';
import type { RuntimeChoice } from '../bench/runner.ts';
import { toMeasurement } from '../capacity/measure.ts';
import type { Measurement } from '../capacity/search.ts';

/** What measuring a config takes besides the config (the server already has it). */
export interface ConfigRunOptions {
  model: string;
  /** Scenario settings with TRITON_URL set; CONCURRENCY is the sweep's. */
  env: Record<string, string>;
  concurrency: number[];
  runtime: RuntimeChoice;
  k6Args: string[];
  resultsDir: string;
  count?: number;
}

/** A config's measured levels and its bench folder; `error` when the run failed other than on a budget. */
export interface ConfigRun {
  levels: Measurement[];
  dir: string;
  exitCode: number;
  error?: string;
}

/** Runs the bench over the concurrency list and reads each level back from summary.json. */
export async function measureConfig(options: ConfigRunOptions): Promise<ConfigRun> {
  const outcome = await runBench({
    model: options.model,
    env: { ...options.env, CONCURRENCY: options.concurrency.join(',') },
    runtime: options.runtime,
    k6Args: options.k6Args,
    resultsDir: options.resultsDir,
    ...(options.count ? { count: options.count } : {}),
  });
  const summaryPath = join(outcome.dir, 'summary.json');
  const report = existsSync(summaryPath)
    ? (JSON.parse(readFileSync(summaryPath, 'utf8')) as { report?: RunReport }).report
    : undefined;
  const levels = (report?.results ?? []).map((r) => toMeasurement(r.level, r));
  // 0 and 99 (a budget missed) both mean the levels were measured; the sweep judges them itself.
  const measured = outcome.exitCode === 0 || outcome.exitCode === 99;
  return {
    levels,
    dir: outcome.dir,
    exitCode: outcome.exitCode,
    ...(measured ? {} : { error: `bench exited ${outcome.exitCode} (see ${outcome.dir})` }),
  };
}
