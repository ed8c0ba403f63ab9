/**
 * Resolving a run's target once: a model id (or `generic` with its served name) and the run's settings
 * become the catalog entry, the scenario, the budget file and the run plan with its budget in force.
 * bench, capacity, sweep, merge and k8s all start here, so they cannot disagree on any of these.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LoadMode, LoadOverride } from '../../lib/load/shapes.ts';
import { checkBudgetLevels } from '../../lib/budget.ts';
import { type RunPlan, resolveRunPlan } from '../../scenarios/kit/run-plan.ts';
import { genericEntry } from '../../models/generic.ts';
import { getModel, servedModelId } from '../../models/index.ts';
import type { ModelEntry } from '../../models/types.ts';
import { packagePath, runId } from './paths.ts';

/**
 * A run's settings under the scenario's variable names (TRITON_URL, PROTOCOL, CONCURRENCY, P95_MS, ...),
 * as the user gave them (flags over the environment). Nothing derived is ever written into it.
 */
export type RunSettings = Readonly<Record<string, string>>;

/** Everything a command needs to know about what it runs, resolved once. */
export interface Target {
  /** The catalog entry, or the generic entry of a served model the catalog does not know. */
  entry: ModelEntry;
  /** The scenario's source file (scenarios/<scenario>.ts). */
  scenarioPath: string;
  /** What the scenario must be told besides the settings: which catalog entry a shared scenario runs. */
  scenarioEnv: Record<string, string>;
  settings: RunSettings;
  /** The budget file and its text. */
  budgetPath: string;
  budgetJson: string;
  /** The run plan of the settings as given (levels, windows, budget in force as plan.limits). */
  run: RunPlan;
  /** The results subfolder: the catalog id, or a generic model's served name. */
  modelDir: string;
}

/** The catalog entry of `model` ('generic' takes the served name from MODEL_NAME). */
function entryFor(model: string, settings: RunSettings): ModelEntry {
  return model === 'generic' ? genericEntry(settings.MODEL_NAME) : getModel(model);
}

/**
 * Resolves a model and its settings, at `load`'s levels when given (as numbers: capacity's first level, a sweep's
 * levels); one readable line for a bad model, setting or budget.
 */
export function resolveTarget(model: string, settings: RunSettings, load?: LoadOverride): Target {
  const entry = entryFor(model, settings);
  const budgetPath = settings.THRESHOLDS
    ? resolve(settings.THRESHOLDS)
    : packagePath('thresholds', `${entry.id}.json`);
  const budgetJson = readBudget(budgetPath, Boolean(settings.THRESHOLDS), entry.id);
  // bert-base and bert-large share one scenario, which picks its entry by MODEL; so do sequence models and
  // generative models.
  const scenarioEnv: Record<string, string> =
    entry.scenario === 'bert' || entry.scenario === 'sequence' || entry.scenario === 'llm'
      ? { MODEL: entry.id }
      : {};
  const run = resolveRunPlan(entry, { ...settings, ...scenarioEnv }, budgetJson, budgetPath, readText, load);
  return {
    entry,
    scenarioPath: packagePath('scenarios', `${entry.scenario}.ts`),
    scenarioEnv,
    settings,
    budgetPath,
    budgetJson,
    run,
    // A generic run of a catalog model's served name goes next to that entry's runs (bench mnist's).
    modelDir:
      entry.id === 'generic' ? (servedModelId(run.settings.modelName) ?? run.settings.modelName) : entry.id,
  };
}

/**
 * A budget file the user gave (THRESHOLDS, --thresholds, a mix model's "budget") must judge one of the run's
 * planned levels (lib/budget.ts checkBudgetLevels); one line naming the file and its "levels" field otherwise.
 * The catalog's own file is exempt: gpt2's budgets its closed-loop levels, and an open-loop run of it is
 * measured unbudgeted. For the commands whose verdict is the budget's (bench, a mix, k8s).
 */
export function checkJudgedLevels(target: Target, plan: RunPlan = target.run): void {
  if (!target.settings.THRESHOLDS) return;
  checkBudgetLevels(
    plan.budget,
    plan.plan.levels.map((l) => l.name),
    target.budgetPath,
  );
}

/** Reads the budget file; a missing or unreadable one is one line naming it and the fix. */
function readBudget(path: string, given: boolean, model: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    const fix = given
      ? `give a budget file (thresholds/README.md describes one), or drop --thresholds for thresholds/${model}.json`
      : `write thresholds/${model}.json (thresholds/README.md) or give one with --thresholds`;
    throw new Error(`THRESHOLDS ${path}: cannot be read (${code}); ${fix}`);
  }
}

/** A new run folder of the target's: <resultsDir>/<model>/<prefix><run id>, e.g. capacity-2026-11-25T15-04-05-123. */
export function runDir(resultsDir: string, target: Target, prefix = ''): string {
  return resolve(resultsDir, target.modelDir, `${prefix}${runId()}`);
}

/**
 * The settings with the levels given instead of the user's (the other mode's variable dropped): what the
 * scenario's process is told; the plan on this side takes the numbers themselves (planAt).
 */
export function withLevels(settings: RunSettings, mode: LoadMode, levels: readonly number[]): RunSettings {
  const { CONCURRENCY: _c, REQUEST_RATE: _r, ...rest } = settings;
  // String(n) reads back as the same number (JS round-trips doubles), so levels are compared exactly.
  return { ...rest, [mode === 'concurrency' ? 'CONCURRENCY' : 'REQUEST_RATE']: levels.join(',') };
}

/** The target's run plan at other levels or another window, given as numbers; throws as resolveTarget does. */
export function planAt(target: Target, load: LoadOverride): RunPlan {
  return resolveRunPlan(
    target.entry,
    { ...target.settings, ...target.scenarioEnv },
    target.budgetJson,
    target.budgetPath,
    readText,
    load,
  );
}

/** Reads a SCHEDULE or REQUEST_INTERVALS file, one line naming it when it cannot be read. */
function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)}); check the path`,
    );
  }
}
