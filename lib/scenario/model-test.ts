/**
 * Everything a model scenario exports, built from a catalog entry and its budget file:
 * k6 options (one scenario per load level, budgets as thresholds), setup() that fails with one
 * readable line when the server or model is not ready, the `infer` and `stats` exec functions,
 * and handleSummary(). Scenario files stay a few lines long.
 */
import exec from 'k6/execution';
import type { Options } from 'k6/options';
import { inputsFor } from '../../models/index.ts';
import type { ModelEntry, TensorSpec } from '../../models/types.ts';
import { budgetOverridesFromEnv, budgetThresholds, parseBudget } from '../budget.ts';
import { createInferErrors, createServerCounters, recordServerStats } from '../load/metrics.ts';
import {
  DEFAULT_SUB_WINDOWS,
  type RequestMetric,
  SUMMARY_TREND_STATS,
  WARMUP_SUFFIX,
} from '../load/names.ts';
import { buildPlan, type LoadPlan } from '../load/scenarios.ts';
import { serverStatsDelta } from '../load/server-stats.ts';
import { loadPlanFromEnv } from '../load/shapes.ts';
import { windowTags } from '../load/windows.ts';
import { checkOutcome, type Expectations } from './checks.ts';
import { levelSummary } from './summary.ts';
import { loadSamples, randomSamples, type Sample } from './samples.ts';
import { readSettings, type Settings } from './settings.ts';
import { createTransport, type Transport } from './transport.ts';

/** What setup() hands every VU (JSON round trip, as k6 does). */
export interface SetupData {
  expect: Expectations;
  /** Generic models only: the inputs read from the server, to make random requests from. */
  inputs?: TensorSpec[];
}

/** The exports of a model scenario. */
export interface ModelTest {
  options: Options;
  plan: LoadPlan;
  settings: Settings;
  setup(): Promise<SetupData>;
  infer(data: SetupData): Promise<void>;
  stats(): Promise<void>;
  handleSummary(data: Record<string, unknown>): Record<string, string>;
}

/** Builds a model scenario; call at the top level (init context) with the text of its budget file. */
export function modelTest(entry: ModelEntry, budgetJson: string, budgetPath: string): ModelTest {
  const env = __ENV as Record<string, string | undefined>;
  const settings = readSettings(env, entry);
  const load = loadPlanFromEnv(env, entry.loadShape);
  const plan = buildPlan({
    mode: load.mode,
    levels: load.levels,
    warmup_s: load.warmup_s,
    window_s: load.window_s,
    exec: 'infer',
    statsExec: 'stats',
    // Open loop: enough VUs that slow responses do not drop iterations before the server saturates.
    maxVUs: Math.max(...load.levels) * 4,
  });
  const metric: RequestMetric = settings.protocol === 'grpc' ? 'grpc_req_duration' : 'http_req_duration';
  const budget = parseBudget(budgetJson, budgetPath);
  const options: Options = {
    scenarios: plan.scenarios,
    thresholds: budgetThresholds(
      budget,
      plan.levels.map((l) => l.name),
      budgetOverridesFromEnv(env),
      metric,
      { subWindows: DEFAULT_SUB_WINDOWS },
    ),
    summaryTrendStats: SUMMARY_TREND_STATS,
    setupTimeout: '60s',
    tags: { model: settings.modelName, protocol: settings.protocol },
  };

  const transport = createTransport(settings);
  // Generic models: inputs and outputs come from the server in setup(); without PAYLOAD the
  // requests are random tensors made from them, as perf_analyzer does.
  const generic = entry.payload.kind === 'random';
  const samples: Sample[] = generic && !settings.payload ? [] : loadSamples(settings, entry);
  const counters = createServerCounters();
  const inferErrors = createInferErrors();
  let labels: (number | undefined)[] = [];
  let next = 0;
  let warned = false;

  function prepare(source: Sample[]): unknown[] {
    labels = source.map((s) => s.label);
    return source.map((s) => transport.prepare(s.inputs));
  }
  // Request bodies are built once per VU in the init context, never per request; random requests
  // for a generic model wait for the tensors setup() reads from the server.
  let prepared: unknown[] | undefined = samples.length > 0 ? prepare(samples) : undefined;

  return {
    options,
    plan,
    settings,
    setup: () => checkTarget(transport, settings, entry, generic),
    async infer(data: SetupData): Promise<void> {
      if (!prepared) {
        const inputs = data.inputs ?? [];
        prepared = prepare(
          randomSamples(inputs, { batch: settings.batch, maxBatchSize: data.expect.maxBatchSize }),
        );
      }
      const i = (next++ + exec.vu.idInTest) % prepared.length;
      // Measurement requests carry their sub-window, for perf_analyzer's stability verdict.
      const scenario = exec.scenario;
      const tags = scenario.name.endsWith(WARMUP_SUFFIX)
        ? undefined
        : windowTags(Date.now() - scenario.startTime, load.window_s);
      const outcome = await transport.infer(prepared[i], tags);
      const ok = checkOutcome(outcome, data.expect, labels[i]);
      inferErrors.add(!outcome.ok);
      if (!ok && !warned) {
        warned = true;
        console.warn(
          `${settings.modelName} on ${transport.target}: ${outcome.error() ?? 'outputs do not match the model'}`,
        );
      }
    },
    async stats(): Promise<void> {
      const window_s = Number(__ENV.WINDOW_S);
      const before = await transport.statistics();
      await new Promise((resolve) => setTimeout(resolve, window_s * 1000));
      const after = await transport.statistics();
      recordServerStats(
        counters,
        serverStatsDelta(before, after, { model: settings.modelName, version: settings.modelVersion }),
      );
    },
    handleSummary: (data) => levelSummary(data, { plan, batch: settings.batch, metric, env }),
  };
}

/** setup(): the server answers, the model is ready and takes the inputs we send; else one readable line. */
async function checkTarget(
  transport: Transport,
  settings: Settings,
  entry: ModelEntry,
  generic: boolean,
): Promise<SetupData> {
  const where = `${settings.modelName} on ${transport.target}`;
  let live = false;
  try {
    live = await transport.serverLive();
  } catch (err) {
    throw new Error(
      `server ${transport.target} is unreachable (${message(err)}); start it or set TRITON_URL`,
    );
  }
  // k6 reports a refused connection as status 0, not an exception: both mean nobody answers.
  if (!live)
    throw new Error(`server ${transport.target} is unreachable or not live; start it or set TRITON_URL`);
  if (!(await transport.modelReady())) {
    throw new Error(`model ${where} is not ready; load it or set MODEL_NAME to a served model`);
  }
  const metadata = await transport.modelMetadata();
  const config = await transport.modelConfig();
  const maxBatchSize = Number(config['max_batch_size'] ?? config['maxBatchSize'] ?? entry.maxBatchSize);
  const batched = maxBatchSize > 0;
  const strip = (shape: number[]) => (batched ? shape.slice(1) : shape);
  if (!generic) {
    for (const want of inputsFor(entry, settings.precision)) {
      const got = metadata.inputs.find((t) => t.name === want.name);
      if (!got)
        throw new Error(
          `model ${where} has no input "${want.name}"; it has ${metadata.inputs.map((t) => t.name).join(', ')}`,
        );
      if (got.datatype !== want.datatype) {
        throw new Error(
          `model ${where} takes ${want.name} as ${got.datatype}, but PRECISION=${settings.precision} sends ${want.datatype}`,
        );
      }
    }
  }
  const backend = String(config['backend'] ?? '');
  const expect: Expectations = {
    outputs: generic
      ? metadata.outputs.map((t) => ({ name: t.name, datatype: t.datatype, dims: strip(t.shape) }))
      : entry.outputs,
    maxBatchSize,
    batch: settings.batch,
    checkLabels: backend !== '' && backend !== 'simulated',
  };
  if (!generic) return { expect };
  return {
    expect,
    inputs: metadata.inputs.map((t) => ({ name: t.name, datatype: t.datatype, dims: strip(t.shape) })),
  };
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
