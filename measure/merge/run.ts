/**
 * `k6-triton merge` as a pipeline: resolve the run's plan (the same settings the runners had), pool the
 * runners' samples, judge the budgets on the pool, build the level results and write one report.
 */
import { EXIT } from '../../runtime/exit-codes.ts';
import { resolve } from 'node:path';
import { parseLevelName } from '../../lib/load/names.ts';
import { buildRunReport, levelsFromSummary } from '../../lib/summary/from-summary.ts';
import type { RunReport } from '../../lib/summary/types.ts';
import { type WrittenReport, writeRunReport } from '../../report/write.ts';
import { type ReadStats, readSamples } from './samples.ts';
import { type RunSettings, resolveTarget, runDir } from '../target.ts';
import { mergedSummary } from './summary.ts';

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

/** Merges runners' `--out json` files into one report and one budget verdict. */
export async function runMerge(options: MergeOptions): Promise<MergeOutcome> {
  const target = resolveTarget(options.model, options.settings);
  const plan = target.run;
  const dir = options.dir ?? runDir('results', target, 'merged-');
  const { aggregates, stats } = await readSamples(options.files.map((f) => resolve(f)));
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
  const summary = mergedSummary(aggregates, plan.options.thresholds ?? {});
  const results = levelsFromSummary({
    summary,
    batch: plan.settings.batch,
    levels: plan.plan.levels,
    metric: plan.metric,
    errorMetric: plan.errorMetric,
    stability_pct: plan.load.stability_pct,
    // Merged files are whole runs: no level is cut by a stop time.
    stopped_ms: Number.POSITIVE_INFINITY,
  });
  const report = buildRunReport({
    model: plan.settings.modelName,
    protocol: plan.settings.protocol,
    // The runners were k6 (k6-operator); a local merge of Node-runtime files reads the same.
    runtime: 'k6',
    batch: plan.settings.batch,
    started_at: new Date().toISOString(),
    results,
    validate_every: plan.validateEvery,
    warmup_checks: plan.warmupChecks,
  });
  const written = await writeRunReport(dir, report, summary, {
    budget: { p95_ms: plan.limits.p95_ms, p99_ms: plan.limits.p99_ms },
  });
  return { report, written, stats, dir, exitCode: report.verdict_ok ? EXIT.OK : EXIT.THRESHOLDS_FAILED };
}
