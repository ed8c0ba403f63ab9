/**
 * Everything a model scenario exports, built from a catalog entry and its budget file: k6 options
 * (one scenario per load level, budgets as thresholds, all from the run plan), setup() that fails with
 * one readable line when the server or model is not ready, the exec functions, and handleSummary().
 *
 * The measured loop (`infer`) is kept as lean as a five-line k6 script, because whatever it does per
 * request is load-generator time the server never sees: it sends a request bound once and records
 * only a failure; the stability sub-window is a VU tag, changed three times a level. Responses are validated
 * (outputs, labels) on each VU's first WARMUP_CHECKS warm-up requests (`warmup`), after which the warm-up
 * sends as the measured loop does, and on one in VALIDATE_EVERY measured ones. Under real k6 the exec
 * functions block (cheaper there than a promise per request); under the Node runtime they are async.
 * Scenario files stay a few lines long.
 */
import { check } from 'k6';
import exec from 'k6/execution';
import type { Options } from 'k6/options';
import { inputsFor } from '../../models/index.ts';
import type { ModelEntry, TensorSpec } from '../../models/types.ts';
import {
  createInferErrors,
  createScheduledLatency,
  createServerCounters,
  createWindowStart,
  recordServerStats,
} from '../load/metrics.ts';
import type { LoadPlan } from '../load/scenarios.ts';
import { serverStatsDelta } from '../load/server-stats.ts';
import { firstErrorCheck, parseLevelName, WINDOW_TAG } from '../load/names.ts';
import { WindowClock } from '../load/windows.ts';
import { blockingCallsAllowed } from './blocking.ts';
import { normalizeModelConfig } from '../kserve/config.ts';
import { checkOutcome, type Expectations } from './checks.ts';
import { resolveRunPlan, type RunPlan } from './run-plan.ts';
import { levelSummary } from './summary.ts';
import { loadSamples, randomSamples, type Sample } from './samples.ts';
import type { Settings } from './settings.ts';
import { type BoundRequest, createTransport, type InferOutcome, type Transport } from './transport.ts';

/** What setup() hands every VU (JSON round trip, as k6 does). */
export interface SetupData {
  expect: Expectations;
  /** Generic models only: the inputs read from the server, to make random requests from. */
  inputs?: TensorSpec[];
}

/** An exec function: blocking under real k6, async under the Node runtime. */
export type ExecFunction = (data: SetupData) => void | Promise<void>;

/** The exports of a model scenario. */
export interface ModelTest {
  options: Options;
  plan: LoadPlan;
  run: RunPlan;
  settings: Settings;
  setup(): Promise<SetupData>;
  /** Warm-up iterations: the VU's first WARMUP_CHECKS responses validated, then the measured path. */
  warmup: ExecFunction;
  /** Measured iterations: send and record; one in VALIDATE_EVERY validated. */
  infer: ExecFunction;
  stats(): Promise<void>;
  handleSummary(data: Record<string, unknown>): Record<string, string>;
}

/** Builds a model scenario; call at the top level (init context) with the text of its budget file. */
export function modelTest(entry: ModelEntry, budgetJson: string, budgetPath: string): ModelTest {
  const env = __ENV as Record<string, string | undefined>;
  const run = resolveRunPlan(entry, env, budgetJson, budgetPath);
  const { settings, validateEvery, warmupChecks: checksPerVu } = run;
  const transport = createTransport(settings);
  // Generic models: inputs and outputs come from the server in setup(); without PAYLOAD the
  // requests are random tensors made from them, as perf_analyzer does.
  const generic = entry.payload.kind === 'random';
  const samples: Sample[] = generic && !settings.payload ? [] : loadSamples(settings, entry);
  const counters = createServerCounters();
  const windowStart = createWindowStart();
  // gRPC has no built-in failed-request metric in k6; HTTP has http_req_failed.
  const inferErrors = settings.protocol === 'grpc' ? createInferErrors() : undefined;
  const clock = new WindowClock(run.load.window_s, () => exec.scenario.startTime);
  // Open loop only: the scheduled-start latency (coordinated omission made visible, see open-loop note below).
  const scheduledLatency = run.load.mode === 'request-rate' ? createScheduledLatency() : undefined;

  // Per VU (k6 evaluates this module once per VU): the requests, built once, and where the VU is in them.
  let labels: (number | undefined)[] = [];
  let prepared: unknown[] = [];
  let bound: BoundRequest[] = [];
  let next = -1;
  let measured = 0;
  let warned = false;
  /** The scenario whose first failure this VU has noted (see noteFirstError). */
  let errorScenario = '';
  let windowTagged = -1;
  let windowChange_ms = 0;
  let warmupChecks = checksPerVu;
  // Open loop: the level's schedule, read when the sub-window changes (so once per level for a new one).
  let levelStart_ms = 0;
  let period_ms = 0;

  function prepare(source: Sample[]): void {
    labels = source.map((s) => s.label);
    prepared = source.map((s) => transport.prepare(s.inputs));
    bound = prepared.map((p) => transport.bind(p));
  }
  // Request bodies are built in the init context, never per request; random requests for a generic
  // model wait for the tensors setup() reads from the server.
  if (samples.length > 0) prepare(samples);

  /** The next sample's index; VUs start at different samples so they do not send the same one in step. */
  function pick(data: SetupData): number {
    if (next < 0) {
      if (prepared.length === 0) {
        prepare(
          randomSamples(data.inputs ?? [], { batch: settings.batch, maxBatchSize: data.expect.maxBatchSize }),
        );
      }
      next = exec.vu.idInTest;
    }
    return next++ % prepared.length;
  }

  /** Counts a request's outcome; `answered`: the server replied (a wrong output, not a failed call). */
  function failed(error: string | undefined, answered = false): void {
    inferErrors?.add(error !== undefined);
    if (error === undefined) return;
    if (!warned) {
      warned = true;
      console.warn(`${settings.modelName} on ${transport.target}: ${error}`);
    }
    if (exec.scenario.name !== errorScenario) noteFirstError(error, !answered && transport.noResponse(error));
  }

  /**
   * Records this VU's first failure in a measured level as a failing check (firstErrorCheck), once per
   * level: the report says why a level's requests failed with it instead of blaming the generator.
   */
  function noteFirstError(error: string, noResponse: boolean): void {
    errorScenario = exec.scenario.name;
    if (!parseLevelName(errorScenario)) return;
    check(null, { [firstErrorCheck(errorScenario, error, noResponse)]: () => false });
  }

  function validated(outcome: InferOutcome, data: SetupData, i: number): void {
    const ok = checkOutcome(outcome, data.expect, labels[i]);
    failed(ok ? undefined : (outcome.error() ?? 'outputs do not match the model'), outcome.ok);
  }

  /**
   * Tags this VU's samples with the sub-window it is in, for the stability verdict. A VU tag is set
   * three times a level, where a tag in the request params would cost k6 a new tag set per request;
   * the measured loop only compares the time with windowChange_ms.
   */
  function tagWindow(now_ms: number): void {
    const window = clock.index(now_ms);
    windowChange_ms = clock.nextChange_ms(now_ms);
    if (window === windowTagged) return;
    windowTagged = window;
    exec.vu.metrics.tags[WINDOW_TAG] = String(window);
  }

  /** Whether this measured request is one of the sampled, validated ones (the first, then 1 in N). */
  function sampled(): boolean {
    if (validateEvery === 0 || measured-- > 0) return false;
    measured = validateEvery - 1;
    return true;
  }

  // The measured loop below is the hot path: real k6 interprets every call in it, so it is flat.
  const blocking: Pick<ModelTest, 'warmup' | 'infer'> = {
    warmup(data) {
      const i = pick(data);
      if (warmupChecks > 0) {
        warmupChecks--;
        return validated(transport.inferSync(prepared[i]), data, i);
      }
      const error = bound[i]!.sendSync();
      if (error !== undefined || inferErrors) failed(error);
    },
    infer(data) {
      const i = next < 0 ? pick(data) : next++ % prepared.length;
      const now = Date.now();
      if (now >= windowChange_ms) tagWindow(now);
      if (measured === 0 && sampled()) return validated(transport.inferSync(prepared[i]), data, i);
      measured--;
      const error = bound[i]!.sendSync();
      if (error !== undefined || inferErrors) failed(error);
    },
  };
  const async: Pick<ModelTest, 'warmup' | 'infer'> = {
    async warmup(data) {
      const i = pick(data);
      if (warmupChecks > 0) {
        warmupChecks--;
        return validated(await transport.infer(prepared[i]), data, i);
      }
      const error = await bound[i]!.send();
      if (error !== undefined || inferErrors) failed(error);
    },
    async infer(data) {
      const i = next < 0 ? pick(data) : next++ % prepared.length;
      const now = Date.now();
      if (now >= windowChange_ms) tagWindow(now);
      if (measured === 0 && sampled()) return validated(await transport.infer(prepared[i]), data, i);
      measured--;
      const error = await bound[i]!.send();
      if (error !== undefined || inferErrors) failed(error);
    },
  };

  /**
   * Open loop: iteration i of a constant-arrival-rate level is due at its start + i / rate (k6's schedule).
   * A started iteration takes the next slot even after dropped ones, so when the generator falls behind,
   * the lag shows as latency (wrk2's rule), as a client queueing every scheduled request would see it.
   */
  function schedule(now_ms: number): void {
    tagWindow(now_ms);
    levelStart_ms = exec.scenario.startTime;
    period_ms = 1000 / (parseLevelName(exec.scenario.name)?.level ?? Infinity);
  }

  // The open-loop measured loop: the closed loop's plus the scheduled-start Trend, chosen once per run.
  const blockingOpen: Pick<ModelTest, 'infer'> = {
    infer(data) {
      const i = next < 0 ? pick(data) : next++ % prepared.length;
      const now = Date.now();
      if (now >= windowChange_ms) schedule(now);
      const due_ms = levelStart_ms + exec.scenario.iterationInTest * period_ms;
      if (measured === 0 && sampled()) {
        validated(transport.inferSync(prepared[i]), data, i);
        scheduledLatency!.add(Date.now() - due_ms);
        return;
      }
      measured--;
      const error = bound[i]!.sendSync();
      scheduledLatency!.add(Date.now() - due_ms);
      if (error !== undefined || inferErrors) failed(error);
    },
  };
  const asyncOpen: Pick<ModelTest, 'infer'> = {
    async infer(data) {
      const i = next < 0 ? pick(data) : next++ % prepared.length;
      const now = Date.now();
      if (now >= windowChange_ms) schedule(now);
      const due_ms = levelStart_ms + exec.scenario.iterationInTest * period_ms;
      if (measured === 0 && sampled()) {
        validated(await transport.infer(prepared[i]), data, i);
        scheduledLatency!.add(Date.now() - due_ms);
        return;
      }
      measured--;
      const error = await bound[i]!.send();
      scheduledLatency!.add(Date.now() - due_ms);
      if (error !== undefined || inferErrors) failed(error);
    },
  };
  const loops = blockingCallsAllowed()
    ? { ...blocking, ...(scheduledLatency ? blockingOpen : {}) }
    : { ...async, ...(scheduledLatency ? asyncOpen : {}) };

  return {
    options: run.options,
    plan: run.plan,
    run,
    settings,
    setup: () => checkTarget(transport, settings, entry, generic),
    ...loops,
    async stats(): Promise<void> {
      const window_s = Number(__ENV.WINDOW_S);
      windowStart.add(Date.now());
      // A server lost in the window costs one line here, not a stack trace: the level's verdict says the rest.
      try {
        const before = await transport.statistics();
        await new Promise((resolve) => setTimeout(resolve, window_s * 1000));
        const after = await transport.statistics();
        recordServerStats(
          counters,
          serverStatsDelta(before, after, { model: settings.modelName, version: settings.modelVersion }),
        );
      } catch (err) {
        console.warn(`${exec.scenario.name}: server statistics not read: ${message(err)}`);
      }
    },
    handleSummary: (data) => levelSummary(data, run, env),
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
  const config = normalizeModelConfig(await transport.modelConfig());
  const maxBatchSize = config.name ? config.maxBatchSize : entry.maxBatchSize;
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
  const { backend } = config;
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
