/**
 * `k6-triton merge` as a pipeline: resolve the run's plan (the same settings the runners had), pool the
 * runners' samples, judge the budgets on the pool, build the level results and write one report.
 */
import { verdictExitCode } from '../core/verdict-exit.ts';
import { EXIT } from '../core/exit-codes.ts';
import { resolve } from 'node:path';
import type { RunPlan } from '../../scenarios/kit/run-plan.ts';
import { parseLevelName, WINDOW_LENGTH_METRIC } from '../../lib/load/names.ts';
import { buildRunReport, levelsFromSummary } from '../../lib/summary/from-summary.ts';
import type { PlannedLevel } from '../../lib/load/scenarios.ts';
import type { RunReport } from '../../lib/summary/types.ts';
import { type WrittenReport, writeRunReport } from '../../report/write.ts';

import { type ReadStats, type Recorded, readSamples } from './samples.ts';
import { planAt, type RunSettings, resolveTarget, runDir, type Target } from '../core/target.ts';
import { mergedSummary } from './merged-summary.ts';
import {
  GENAI_SUMMARY_PERCENTILES,
  generativeMergedLevels,
  generativeReadOptions,
  generativeThresholds,
  type PooledRecords,
  writePooledRecords,
} from './generative.ts';

/** What a merge takes: the runners' files and the settings the run had (CONCURRENCY, STEP_DURATION, ...). */
export interface MergeOptions {
  model: string;
  files: string[];
  settings: RunSettings;
  /** Where the merged report goes (created). @default results/<model>/merged-<run id> */
  dir?: string;
}

/** The merged report, where it was written, and what was read. */
export interface MergeOutcome {
  report: RunReport;
  written: WrittenReport;
  stats: ReadStats;
  /** The merged report's folder. */
  dir: string;
  /** 0 when every budget held, 99 when one was missed (k6's code for crossed thresholds). */
  exitCode: number;
}

/**
 * The run plan of the levels the runners recorded (or of the levels asked for, each of which must have been
 * recorded), with each level's window as its stats probe recorded it: a merge never divides by a default.
 */
function recordedPlan(target: Target, settings: RunSettings, recorded: Recorded, files: readonly string[]) {
  const levels = [...recorded.windows.keys()].flatMap((name) => {
    const parsed = parseLevelName(name);
    return parsed ? [{ name, ...parsed }] : [];
  });
  if (levels.length === 0) {
    throw new Error(
      `merge: ${files.join(', ')} hold no window records (${WINDOW_LENGTH_METRIC} points of the stats probes); write them with --out json from a bench or k8s runner of this version`,
    );
  }
  const modes = new Set(levels.map((l) => l.mode));
  if (modes.size > 1)
    throw new Error(`merge: the files mix concurrency and request-rate levels; merge one run's files`);
  const asked = settings.CONCURRENCY !== undefined || settings.REQUEST_RATE !== undefined;
  const plan = asked
    ? target.run
    : planAt(target, {
        levels: { mode: levels[0]!.mode, levels: levels.map((l) => l.level).sort((a, b) => a - b) },
      });
  return plan;
}

/** The plan's levels with the windows their probes recorded; a level asked for without samples is an error. */
function recordedLevels(plan: RunPlan, recorded: Recorded): PlannedLevel[] {
  const missing = plan.plan.levels.filter((ref) => !recorded.windows.has(ref.name)).map((ref) => ref.name);
  if (missing.length > 0) {
    throw new Error(
      `merge: level ${missing.join(', ')} has no samples in the files (they hold ${[...recorded.windows.keys()].join(', ')}); drop it from --concurrency / --request-rate or add its runners' files`,
    );
  }
  return plan.plan.levels.map((ref) => ({ ...ref, window_s: recorded.windows.get(ref.name)! }));
}

/** The runtime the runners recorded; one line when files of both runtimes are merged. */
function recordedRuntime(recorded: Recorded): 'k6' | 'node' {
  const runtimes = [...recorded.runtimes];
  if (runtimes.length !== 1 || (runtimes[0] !== 'k6' && runtimes[0] !== 'node')) {
    throw new Error(
      `merge: the files record ${runtimes.length === 0 ? 'no runtime' : `runtimes ${runtimes.join(', ')}`}; merge the files of one run, written by this version`,
    );
  }
  return runtimes[0];
}

/** Merges runners' `--out json` files into one report and one budget verdict. */
export async function runMerge(options: MergeOptions): Promise<MergeOutcome> {
  const target = resolveTarget(options.model, options.settings);
  const dir = options.dir ?? runDir('results', target, 'merged-');
  // A generative run's per-request figures are pooled value by value, and its request records kept.
  const generative = target.run.generative !== undefined;
  const pooled: PooledRecords = { lines: [] };
  const { aggregates, stats, recorded } = await readSamples(
    options.files.map((f) => resolve(f)),
    generative ? generativeReadOptions(pooled) : {},
  );
  const plan = recordedPlan(target, options.settings, recorded, options.files);
  const runtime = recordedRuntime(recorded);
  // A level in the samples that the plan lacks means the settings differ from the run's: say which.
  const planned = new Set(plan.plan.levels.map((l) => l.name));
  for (const key of aggregates.keys()) {
    const scenario = /\{scenario:([^,}]+)/.exec(key)?.[1];
    if (scenario && parseLevelName(scenario) && !planned.has(scenario)) {
      throw new Error(
        `merge: the samples have level ${scenario}, which this plan (${[...planned].join(', ')}) lacks; give the run's --concurrency or --request-rate`,
      );
    }
  }
  const refs = recordedLevels(plan, recorded);
  const summary = generative
    ? mergedSummary(aggregates, generativeThresholds(plan, refs), GENAI_SUMMARY_PERCENTILES)
    : mergedSummary(aggregates, plan.options.thresholds ?? {});
  const results = generative
    ? generativeMergedLevels(summary, plan, refs)
    : levelsFromSummary({
        summary,
        batch: plan.settings.batch,
        levels: refs,
        metric: plan.metric,
        errorMetric: plan.errorMetric,
        stability_pct: plan.load.stability_pct,
        // Merged files are whole runs: no level is cut by a stop time.
        stopped_ms: Number.POSITIVE_INFINITY,
      });
  const report = buildRunReport(
    {
      model: plan.settings.modelName,
      protocol: plan.settings.protocol,
      runtime,
      batch: plan.settings.batch,
      started_at: new Date().toISOString(),
      results,
      validate_every: plan.validateEvery,
      warmup_checks: plan.warmupChecks,
    },
    { planned: refs.map((ref) => ref.name), allowInconclusive: plan.measurement.allow_inconclusive },
  );
  const written = await writeRunReport(dir, report, summary, {
    budget: { p95_ms: plan.limits.p95_ms, p99_ms: plan.limits.p99_ms },
  });
  if (generative) await writePooledRecords(dir, pooled);
  return { report, written, stats, dir, exitCode: verdictExitCode(report, EXIT.OK) };
}
