/**
 * A model mix inside one k6 test (scenarios/mix.ts): one model scenario (model-test.ts) per model, each
 * built from its own settings over k6's __ENV and told its slot (MIX_SLOT), so its scenarios carry its id
 * (`dlrm__c8`, tagged model:dlrm) and call its slot's exported functions (`infer_2`). The options merge the
 * models' scenarios and thresholds; setup() checks every model; handleSummary writes each model's levels. A
 * generative model (models/generative.ts) joins with the generative scenario (genai/stream-test.ts): its
 * levels carry TTFT, ITL and tokens, its budgets the TTFT and ITL bounds.
 */
import type { Options } from 'k6/options';
import { getModel } from '../../models/index.ts';
import { GENERATIVE } from '../../models/generative.ts';
import { generativeTest, type SetupData as GenerativeSetupData } from './genai/stream-test.ts';
import { mixMeasureKey } from '../../lib/load/names.ts';
import type { LevelResult } from '../../lib/summary/types.ts';
import { type ModelTest, modelTest } from './model-test.ts';
import type { SetupData } from './measured-loop.ts';
import type { RunPlan } from './run-plan.ts';
import { MIX_SLOTS, type MixPlanFile } from './run-plan.ts';
import { levelLines } from './summary.ts';

export { MIX_SLOTS } from './run-plan.ts';

/** What LEVELS_JSON holds for a mix: each model's level results by its id. */
export type MixLevels = Record<string, LevelResult[]>;

/** The mix's setup data: each model's by its slot (none for a generative model). */
export type MixSetupData = (SetupData | GenerativeSetupData)[];

/** A slot's exec functions; they read the slot's own setup data from the mix's. */
export interface MixSlot {
  warmup: (data: MixSetupData) => void | Promise<void>;
  infer: (data: MixSetupData) => void | Promise<void>;
  stats: () => Promise<void>;
}

/** The exports of scenarios/mix.ts. */
export interface MixTest {
  options: Options;
  setup(): Promise<MixSetupData>;
  slot(index: number): MixSlot;
  handleSummary(data: Record<string, unknown>): Record<string, string>;
}

/**
 * One model of the mix, tensor or generative alike: its options and plan, its exec functions (each reads the
 * setup data its own setup made) and its level results with the lines its own summary would print.
 */
interface MixMember {
  options: Options;
  run: RunPlan;
  setup(): Promise<SetupData | GenerativeSetupData>;
  warmup(data: SetupData | GenerativeSetupData): void | Promise<void>;
  infer(data: SetupData | GenerativeSetupData): void | Promise<void>;
  stats(): Promise<void>;
  levelLines(data: Record<string, unknown>): { results: LevelResult[]; lines: string[] };
}

/** A mix's model: the generative scenario for a generative model (TTFT/ITL budgets), else the model scenario. */
function mixMember(id: string, budget: string, env: Record<string, string | undefined>): MixMember {
  const generative = GENERATIVE[id];
  if (generative) {
    const test = generativeTest(generative, open(budget), budget, env);
    return {
      ...test,
      warmup: (data) => test.warmup(data as GenerativeSetupData),
      infer: (data) => test.infer(data as GenerativeSetupData),
    };
  }
  const test: ModelTest = modelTest(getModel(id), open(budget), budget, env);
  return {
    options: test.options,
    run: test.run,
    setup: () => test.setup(),
    warmup: (data) => test.warmup(data as SetupData),
    infer: (data) => test.infer(data as SetupData),
    stats: () => test.stats(),
    levelLines: (data) => levelLines(data, test.run),
  };
}

/** A slot no model uses: no scenario calls its functions. */
const UNUSED: MixSlot = { warmup: () => {}, infer: () => {}, stats: async () => {} };

/** Calls a model's exec function with its own part of the mix's setup data. */
function bind(
  fn: (data: SetupData | GenerativeSetupData) => void | Promise<void>,
  slot: number,
): (data: MixSetupData) => void | Promise<void> {
  return (data) => fn(data[slot]);
}

/** Builds a mix's exports; call at the top level (init context) with the mix plan's text. */
export function mixTest(planJson: string, env: Record<string, string | undefined> = __ENV): MixTest {
  const plan = JSON.parse(planJson) as MixPlanFile;
  if (plan.models.length === 0 || plan.models.length > MIX_SLOTS)
    throw new Error(`MIX_PLAN has ${plan.models.length} models; a mix takes 1 to ${MIX_SLOTS}`);
  const tests: { id: string; test: MixMember }[] = plan.models.map((model, slot) => {
    const own: Record<string, string | undefined> = { ...env, ...model.env, MIX_SLOT: String(slot) };
    const budget = own.THRESHOLDS;
    if (!budget)
      throw new Error(`MIX_PLAN: model ${model.id} has no THRESHOLDS; the bench writes one per model`);
    return { id: model.id, test: mixMember(model.id, budget, own) };
  });
  const first = tests[0]!.test.options;
  const options: Options = {
    ...first,
    scenarios: Object.assign({}, ...tests.map((t) => t.test.options.scenarios)),
    thresholds: Object.assign(
      // A probe keeps the whole mix's latency in the summary.
      { [mixMeasureKey(tests[0]!.test.run.metric)]: ['max>=0'] },
      ...tests.map((t) => t.test.options.thresholds),
    ),
    // Every model's trend statistics: a generative model's add genai-perf's p1 ... p75.
    summaryTrendStats: [...new Set(tests.flatMap((t) => t.test.options.summaryTrendStats ?? []))],
    // Each scenario carries its model's tag; the protocol is the mix's.
    tags: { protocol: tests[0]!.test.run.settings.protocol },
  };
  return {
    options,
    async setup() {
      const data: MixSetupData = [];
      for (const { test } of tests) data.push(await test.setup());
      return data;
    },
    slot(index) {
      const model = tests[index]?.test;
      if (!model) return UNUSED;
      return { warmup: bind(model.warmup, index), infer: bind(model.infer, index), stats: model.stats };
    },
    handleSummary(data) {
      const levels: MixLevels = {};
      const text: string[] = [];
      for (const { id, test } of tests) {
        const { results, lines } = test.levelLines(data);
        levels[id] = results;
        text.push(`${id}:`, ...lines, '');
      }
      const out: Record<string, string> = { stdout: `${text.join('\n')}` };
      if (env.SUMMARY_JSON) out[env.SUMMARY_JSON] = JSON.stringify(data);
      if (env.LEVELS_JSON) out[env.LEVELS_JSON] = JSON.stringify(levels);
      return out;
    },
  };
}
