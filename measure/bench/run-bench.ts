/**
 * One benchmark run, as perf_analyzer's top level reads: resolve the target, prepare it (server,
 * payloads, bundle), measure, then write the reports from the report in memory, whatever the run gathered.
 */
import { junitXml } from '../../report/junit.ts';
import { reportMarkdown } from '../../report/markdown.ts';
import { writeResult } from '../../report/not-written.ts';
import { writeRunReport } from '../../report/write.ts';
import { runVerdictLine } from '../../lib/summary/verdicts.ts';
import { verdictOf } from '../../lib/summary/judge.ts';
import { type Interruption, watchSignals } from '../core/interrupt.ts';
import { type Measured, measure } from '../core/measure-pass.ts';
import { verdictExitCode } from '../core/verdict-exit.ts';
import { type PrepareOptions, prepare } from '../core/prepare.ts';
import type { RuntimeChoice } from '../core/runner.ts';
import { checkJudgedLevels, type RunSettings, resolveTarget, runDir } from '../core/target.ts';
import { withPromptWorkload } from '../../payloads/prompt-workload.ts';
import { errorBarLine } from '../../lib/genai/error-bar.ts';
import { read } from '../../lib/settings/read.ts';
import { S } from '../../lib/settings/schema.ts';
import { preflight, preflightDir } from '../core/preflight.ts';

/** What a bench run takes; settings are the scenario's (TRITON_URL, PROTOCOL, CONCURRENCY, ...). */
export interface BenchOptions extends PrepareOptions {
  model: string;
  settings: RunSettings;
  runtime: RuntimeChoice;
  k6Args: string[];
  resultsDir: string;
  /** Also copy junit.xml here, for CI systems. */
  junit?: string;
  /** Also write perf_analyzer-verbose.csv (perf_analyzer's --verbose-csv columns). */
  verboseCsv?: boolean;
  /** Print the bench's progress lines (level i of n, times, live rate) to stderr. @default true */
  progress?: boolean;
  /** How often the server's metrics are scraped, ms (perf_analyzer's --metrics-interval). @default 500 */
  metricsInterval_ms?: number;
}

/** Where the run's files are and how it ended. */
export interface BenchOutcome {
  exitCode: number;
  dir: string;
}

/**
 * Writes a measurement's folder (summary.json, CSVs, reports) from its report and prints its table; files
 * not written are said at the end of the command's output (report/not-written.ts).
 */
export async function writeMeasured(
  dir: string,
  measured: Measured,
  options: { junit?: string; verboseCsv?: boolean; quiet?: boolean } = {},
): Promise<void> {
  const { report, summary, plan } = measured;
  await writeRunReport(dir, report, summary, {
    budget: { p95_ms: plan.limits.p95_ms, p99_ms: plan.limits.p99_ms },
    ...(options.verboseCsv ? { verboseCsv: true } : {}),
  });
  // quiet: the caller prints its own summary of the run (a mix's table).
  if (!options.quiet) {
    if (report.results.length > 0 || report.interrupted) console.log(`\n${reportMarkdown(report)}`);
    else if (measured.levelsUnread) console.log('\nthe level results were not read back; see the last lines');
    else console.log('\nno level completed a request; see the errors above');
    // The closing line a CI log ends on: what the run may claim, and why when it is not "met".
    console.log(runVerdictLine(verdictOf(report), report.verdict_reasons ?? [], Boolean(report.interrupted)));
  }
  // Rendered again rather than copied: the CI path may be on another disk than a full results folder.
  if (options.junit) await writeResult(options.junit, () => junitXml(report));
  if (!options.quiet) console.log(`results: ${dir}`);
}

/**
 * Runs one model's benchmark end to end; the reports are written even when the run fails. SIGINT and
 * SIGTERM stop it as they stop k6 (see interrupt.ts): finished levels written, the cut one named, exit 105.
 */
export async function runBench(options: BenchOptions): Promise<BenchOutcome> {
  const interruption = watchSignals();
  try {
    return await benchWith(options, interruption);
  } finally {
    interruption.dispose();
  }
}

async function benchWith(options: BenchOptions, interruption: Interruption): Promise<BenchOutcome> {
  // The same plan the scenario resolves inside k6: bad settings fail here, before anything starts.
  // A generative model's prompts are made (and counted with its tokenizer) first: a trace sets the schedule.
  const settings = withPromptWorkload(options.model, options.settings);
  const target = resolveTarget(options.model, settings);
  checkJudgedLevels(target);
  const prepared = await prepare(target, options, interruption);
  try {
    const dir = runDir(options.resultsDir, target);
    const errorBar =
      target.entry.scenario === 'llm' && read(settings, S.PREFLIGHT) !== 'off' && !interruption.first
        ? await preflight(prepared, { dir: preflightDir(dir), runtime: options.runtime, interruption })
        : undefined;
    if (errorBar) console.error(`k6-triton: ${errorBarLine(errorBar)}`);
    const measuredRun = await measure(prepared, {
      dir,
      runtime: options.runtime,
      k6Args: options.k6Args,
      interruption,
      ...(options.progress === false ? { progress: false } : {}),
      ...(options.metricsInterval_ms ? { metricsInterval_ms: options.metricsInterval_ms } : {}),
    });
    // The error bar is the run's, measured once before its levels: beside them in every report.
    const measured = errorBar
      ? { ...measuredRun, report: { ...measuredRun.report, error_bar: errorBar } }
      : measuredRun;
    await writeMeasured(dir, measured, options);
    return { exitCode: verdictExitCode(measured.report, measured.exitCode), dir };
  } finally {
    await prepared.stop();
  }
}
