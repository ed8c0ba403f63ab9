/**
 * A model mix measured as one k6 test: each model resolved as a bench resolves it (resolveTarget, with its
 * own load, payload and budget from the mix file and its slot in scenarios/mix.ts), one server and one
 * bundle prepared for them all, one runtime run (measure.ts), then each model's run report written to its
 * own folder as a bench writes it, and the mix's report.md and summary.json beside them.
 */
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { mixMeasureKey } from '../../lib/load/names.ts';
import type { MixLevels } from '../../scenarios/kit/mix-test.ts';
import { latencyStats_us, normalize } from '../../lib/summary/from-summary.ts';
import type { MixPlanFile } from '../../scenarios/kit/run-plan.ts';
import { writeResult } from '../../report/not-written.ts';
import { writeMeasured } from '../bench/run-bench.ts';
import type { Interruption } from '../core/interrupt.ts';
import {
  type MeasureOptions,
  modelReport,
  runExitCode,
  runMeasurement,
  scenarioEnvironment,
} from '../core/measure-pass.ts';
import { packagePath, runId } from '../core/paths.ts';
import { checkedPayload, type PrepareOptions, type Prepared, prepare } from '../core/prepare.ts';
import { checkJudgedLevels, type RunSettings, resolveTarget, type Target } from '../core/target.ts';
import { type Mix, parseMix, scaleMix } from './file.ts';
import { type MixResult, mixMarkdown, mixResult } from './mix-summary.ts';

/** Settings the mix file gives per model; set for the whole mix they would be ambiguous. */
const PER_MODEL: Record<string, string> = {
  CONCURRENCY: '--concurrency',
  REQUEST_RATE: '--request-rate',
  MODEL_NAME: '--model-name',
  PAYLOAD: '--payload',
  THRESHOLDS: '--thresholds',
  PRECISION: '--precision',
  SCHEDULE: '--schedule',
  REQUEST_INTERVALS: '--request-intervals',
};

/** Reads and checks a mix file; one line naming the file when it cannot be read. */
export function readMix(path: string): Mix {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `--mix ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; give a readable mix file`,
    );
  }
  return parseMix(text, resolve(path));
}

/** Each model's target at `percent` of the mix's loads, in the file's order; throws one line for a bad setting. */
export function mixTargets(mix: Mix, settings: RunSettings, percent = 100): Target[] {
  for (const [name, flag] of Object.entries(PER_MODEL))
    if (settings[name] !== undefined)
      throw new Error(
        `${flag} (${name}) does not apply to a mix; the mix file gives each model's load, payload and budget`,
      );
  const loads = scaleMix(mix, percent);
  // One test runs every model's levels side by side: they share the warm-up and the window.
  const windows = mix.models.map((m) => resolveTarget(m.id, settings).run.load);
  const shared = {
    STEP_DURATION: settings.STEP_DURATION ?? `${Math.max(...windows.map((w) => w.window_s))}s`,
    WARMUP_DURATION: settings.WARMUP_DURATION ?? `${Math.max(...windows.map((w) => w.warmup_s))}s`,
  };
  return mix.models.map((m, slot) => {
    const load = loads[slot]!;
    const target = resolveTarget(m.id, {
      ...settings,
      ...shared,
      [load.mode === 'concurrency' ? 'CONCURRENCY' : 'REQUEST_RATE']: String(load.level),
      ...(m.payload ? { PAYLOAD: m.payload } : {}),
      ...(m.budget ? { THRESHOLDS: m.budget } : {}),
      ...(m.p95_ms !== undefined ? { P95_MS: String(m.p95_ms) } : {}),
      ...(m.p99_ms !== undefined ? { P99_MS: String(m.p99_ms) } : {}),
      ...(m.ttft_p95_ms !== undefined ? { TTFT_P95_MS: String(m.ttft_p95_ms) } : {}),
      ...(m.itl_p95_ms !== undefined ? { ITL_P95_MS: String(m.itl_p95_ms) } : {}),
      MIX_SLOT: String(slot),
    });
    checkJudgedLevels(target);
    return target;
  });
}

/** A prepared mix: the server and the bundle (on the first model's target) and every model's payloads. */
export interface PreparedMix {
  mix: Mix;
  /** The first model's target with the mix's scenario: its server, URLs, TLS and bundle are the mix's. */
  prepared: Prepared;
  /** Each model's payload manifest, in the file's order. */
  payloads: string[];
  stop(): Promise<void>;
}

/**
 * Requests per model's payload set unless --count says otherwise. Every VU of a mix holds every model's
 * requests (k6 reads files in the init context only): DLRM's 8 default samples of 4096 rows are 8.5 MB, whose
 * reading held each new VU of the Node runtime for over 200 ms on a loaded machine, long enough that an
 * open-loop level adding VUs mid-run measured nothing.
 */
export const MIX_PAYLOAD_COUNT = 2;

/**
 * Starts the server and makes every model's payloads. The embedded server serves every catalog model at once;
 * a tritonserver is started with every model of the mix loaded.
 */
export async function prepareMix(
  mix: Mix,
  targets: readonly Target[],
  given: PrepareOptions,
  interruption: Interruption,
): Promise<PreparedMix> {
  const alsoServe = targets
    .slice(1)
    .map((t) => ({ modelId: t.entry.id, servedModel: t.run.settings.modelName }));
  const options = { ...given, count: given.count ?? MIX_PAYLOAD_COUNT, alsoServe };
  const first = { ...targets[0]!, scenarioPath: packagePath('scenarios', 'mix.ts') };
  // Every model's payloads are made and checked before the server starts (the first model's in prepare()).
  const others: string[] = [];
  for (const target of targets.slice(1)) others.push(await checkedPayload(target, target.entry, options));
  const prepared = await prepare(first, options, interruption);
  return { mix, prepared, payloads: [prepared.payload, ...others], stop: () => prepared.stop() };
}

/** A measured mix: the mix's result, each model's report, the folder and k6's exit code. */
export interface MixMeasured {
  result: MixResult;
  dir: string;
  exitCode: number;
}

/** The mix's folder: <resultsDir>/mix-<name>/<prefix><run id>. */
export function mixRunDir(resultsDir: string, mix: Mix, prefix = ''): string {
  return resolve(resultsDir, `mix-${mix.name}`, `${prefix}${runId()}`);
}

/**
 * Measures the mix once at `percent` of its loads on the prepared server and writes the folder: a bench
 * folder per model (`<dir>/<model>/`) and the mix's report.md and summary.json.
 */
export async function measureMix(
  ready: PreparedMix,
  targets: readonly Target[],
  percent: number,
  settings: RunSettings,
  options: MeasureOptions,
  files: { verboseCsv?: boolean } = {},
): Promise<MixMeasured> {
  const { mix, prepared } = ready;
  const { dir } = options;
  await mkdir(dir, { recursive: true });
  const plan: MixPlanFile = {
    models: targets.map((target, i) => ({
      id: target.entry.id,
      env: {
        ...target.settings,
        ...target.scenarioEnv,
        PAYLOAD: ready.payloads[i]!,
        THRESHOLDS: target.budgetPath,
      },
    })),
  };
  const planPath = join(dir, 'mix-plan.json');
  // The runtime reads the plan from here: without it there is no run.
  const notWritten = await writeResult(planPath, `${JSON.stringify(plan, null, 2)}\n`);
  if (notWritten) throw new Error(`mix: the run needs its plan file (${notWritten})`);
  const env: Record<string, string> = { ...scenarioEnvironment(prepared, settings, dir), MIX_PLAN: planPath };
  const label = `mix ${mix.name} at ${percent}%`;
  const measured = await runMeasurement<MixLevels>(prepared, env, targets[0]!.run, label, options);
  const levels = measured.levels ?? {};
  const exitCode = runExitCode(measured.run, options.interruption);
  const loads = scaleMix(mix, percent);
  const models = targets.map((target, i) => {
    const report = modelReport(measured, target.run, levels[target.entry.id] ?? [], options.interruption);
    return { id: target.entry.id, load: loads[i]!, limits: target.run.limits, report, target };
  });
  for (const m of models) {
    await writeMeasured(
      join(dir, m.id),
      {
        report: m.report,
        summary: measured.summary,
        plan: m.target.run,
        exitCode,
        ...(measured.levelsLost ? { levelsUnread: true } : {}),
      },
      { ...files, quiet: true },
    );
  }
  const whole = normalize(measured.summary.metrics[mixMeasureKey(targets[0]!.run.metric)])?.values;
  const result = mixResult(mix, percent, models, whole?.count ? latencyStats_us(whole) : undefined);
  const runtime = measured.run.runtime;
  const markdown = mixMarkdown(result, runtime);
  await writeResult(join(dir, 'report.md'), markdown);
  await writeResult(
    join(dir, 'summary.json'),
    `${JSON.stringify({ mix: { name: mix.name, path: mix.path }, runtime, exit_code: exitCode, ...result }, null, 2)}\n`,
  );
  // Quiet (capacity --mix): the caller prints one line per scale; the table is in report.md.
  if (!options.quiet) {
    console.log(`\n${markdown}`);
    console.log(`mix results: ${dir}`);
  }
  return { result, dir, exitCode };
}
