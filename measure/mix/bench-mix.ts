/**
 * `bench --mix`: a model mix benched once, as the file gives its loads, under either runtime; the mix's
 * folder written whatever the run gathered, and k6's exit code (99 when any model missed its budget).
 */
import { type Interruption, watchSignals } from '../core/interrupt.ts';
import type { PrepareOptions } from '../core/prepare.ts';
import type { RuntimeChoice } from '../core/runner.ts';
import type { RunSettings } from '../core/target.ts';
import { measureMix, mixRunDir, mixTargets, prepareMix, readMix } from './run-mix.ts';
import { exitForVerdict } from '../core/verdict-exit.ts';
import { measurementRulesFromEnv } from '../../lib/load/measurement.ts';

/** What a mix bench takes; settings are the ones every model shares (TRITON_URL, PROTOCOL, STEP_DURATION, ...). */
export interface MixBenchOptions extends PrepareOptions {
  /** The mix file. */
  mixPath: string;
  settings: RunSettings;
  runtime: RuntimeChoice;
  k6Args: string[];
  resultsDir: string;
  /** Print the progress lines to stderr. @default true */
  progress?: boolean;
  /** Also write each model's perf_analyzer-verbose.csv. */
  verboseCsv?: boolean;
  /** How often the server's metrics are scraped, ms (perf_analyzer's --metrics-interval). @default 500 */
  metricsInterval_ms?: number;
}

/** Runs the mix's bench end to end; resolves with its exit code and folder. */
export async function runMixBench(options: MixBenchOptions): Promise<{ exitCode: number; dir: string }> {
  const interruption = watchSignals();
  try {
    return await mixBenchWith(options, interruption);
  } finally {
    interruption.dispose();
  }
}

async function mixBenchWith(options: MixBenchOptions, interruption: Interruption) {
  // Checked before anything starts: the file, every model's settings and budget.
  const mix = readMix(options.mixPath);
  const targets = mixTargets(mix, options.settings);
  const ready = await prepareMix(mix, targets, options, interruption);
  try {
    const dir = mixRunDir(options.resultsDir, mix);
    const measured = await measureMix(
      ready,
      targets,
      100,
      options.settings,
      {
        dir,
        runtime: options.runtime,
        k6Args: options.k6Args,
        interruption,
        ...(options.progress === false ? { progress: false } : {}),
        ...(options.metricsInterval_ms ? { metricsInterval_ms: options.metricsInterval_ms } : {}),
      },
      { ...(options.verboseCsv ? { verboseCsv: true } : {}) },
    );
    return {
      exitCode: exitForVerdict(
        measured.result.whole.verdict,
        measured.exitCode,
        measurementRulesFromEnv(options.settings).allow_inconclusive,
      ),
      dir,
    };
  } finally {
    await ready.stop();
  }
}
