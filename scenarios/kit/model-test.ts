/**
 * Everything a model scenario exports, built from a catalog entry and its budget file: k6 options
 * (one scenario per load level, budgets as thresholds, all from the run plan), setup() that fails with
 * one readable line when the server or model is not ready, the exec functions (the measured loop,
 * measured-loop.ts), the server-statistics probe and handleSummary(). Scenario files stay a few lines long.
 */
import { check } from 'k6';
import exec from 'k6/execution';
import type { Options } from 'k6/options';
import { inputsFor } from '../../models/index.ts';
import type { ModelEntry } from '../../models/types.ts';
import { normalizeModelConfig } from '../../lib/kserve/config.ts';
import { tensorSpecs } from '../../lib/kserve/metadata.ts';
import {
  createInferErrors,
  createResponseCounters,
  createScheduledLatency,
  createServerCounters,
  createWindowRecord,
  recordServerStats,
} from '../../lib/load/metrics.ts';
import type { LoadPlan } from '../../lib/load/scenarios.ts';
import { serverStatsDelta } from '../../lib/load/server-stats.ts';
import { checkPayloadIndexes } from '../../lib/load/schedule-file.ts';
import { WindowClock } from '../../lib/load/windows.ts';
import { rampDue_ms } from '../../lib/load/ramp.ts';
import { DEFAULT_SUB_WINDOWS } from '../../lib/load/names.ts';
import { sequenceLoop } from './sequence-loop.ts';
import { createSequenceCounters, sequenceSummaryLine } from '../../lib/sequence/metrics.ts';
import { vuBound } from '../../lib/sequence/options.ts';
import { withClientCertificate } from './client-certificate.ts';
import { scenarioSends } from '../../lib/sequence/rate.ts';
import type { K6SummaryData } from '../../lib/summary/from-summary.ts';
import { blockingCallsAllowed } from './blocking.ts';
import { sleepFor } from './wait.ts';
import type { Expectations } from './checks.ts';
import { type ExecFunction, measuredLoop, type SetupData } from './measured-loop.ts';
import { mixSlotFromEnv, resolveRunPlan, type RunPlan } from './run-plan.ts';
import { loadSamples, randomSamples, type Sample } from './samples.ts';
import { endpointHint, parseHeaderLines, type Settings } from './settings.ts';
import { levelSummary } from './summary.ts';
import { createTransport, type Transport } from './transport.ts';

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

/**
 * Builds a model scenario; call at the top level (init context) with the text of its budget file. `env` is
 * k6's __ENV, or in a model mix (mix-test.ts) the model's own settings over it.
 */
export function modelTest(
  entry: ModelEntry,
  budgetJson: string,
  budgetPath: string,
  env: Record<string, string | undefined> = __ENV,
): ModelTest {
  // open() resolves a relative path against the script; the bench hands absolute ones.
  const run = resolveRunPlan(entry, env, budgetJson, budgetPath, (path) => open(path));
  const { validateEvery, warmupChecks } = run;
  // HEADERS_FILE is read here, in the init context: its values (secrets) never travel as settings.
  const settings = run.settings.headersFile
    ? {
        ...run.settings,
        headers: {
          ...parseHeaderLines(open(run.settings.headersFile), run.settings.headersFile),
          ...run.settings.headers,
        },
      }
    : run.settings;
  const transport = createTransport(settings);
  // Generic models: inputs and outputs come from the server in setup(); without PAYLOAD the
  // requests are random tensors made from them, as perf_analyzer does.
  const generic = entry.payload.kind === 'random';
  // Sequence models: each request is one step of a sequence, written by the sequence loop (lib/sequence/).
  const sequence = run.sequence;
  const samples: Sample[] =
    sequence !== undefined || (generic && !settings.payload) ? [] : loadSamples(settings, entry);
  const counters = createServerCounters();
  const windowRecord = createWindowRecord(env);
  // gRPC has no built-in failed-request metric in k6; HTTP has http_req_failed, and an invalid answer is
  // counted in `responses` (lib/load/names.ts).
  const inferErrors = settings.protocol === 'grpc' ? createInferErrors() : undefined;
  const responses = createResponseCounters();
  // A ramp's windows are consecutive parts of one scenario (lib/load/ramp.ts).
  const rampWindows = run.load.ramp ? run.plan.levels.map((l) => l.name) : undefined;
  const clock = new WindowClock(
    run.load.window_s,
    () => exec.scenario.startTime,
    DEFAULT_SUB_WINDOWS,
    rampWindows,
  );
  // Open loop only: the scheduled-start latency (coordinated omission made visible, see measured-loop.ts).
  const scheduledLatency = run.load.mode === 'request-rate' ? createScheduledLatency() : undefined;
  const blocking = blockingCallsAllowed();
  if (run.load.pacing?.kind === 'schedule' && samples.length > 0)
    checkPayloadIndexes(run.load.pacing.schedule, samples.length);

  const ramp = run.load.ramp;
  const loopContext = {
    transport,
    exec,
    clock,
    ...(ramp?.mode === 'request-rate' ? { rampDue_ms: (slot: number) => rampDue_ms(ramp, slot) } : {}),
    modelName: settings.modelName,
    inferErrors,
    responses,
    blocking,
    check,
    warn: (line: string) => console.warn(line),
  };
  // A client certificate (TLS_CLIENT_CERT, TLS_CLIENT_KEY) is offered to the target when it asks for one.
  const options = withClientCertificate(run.options, env, (path) => open(path));
  const wait = sleepFor(blocking);
  const loop = sequence
    ? sequenceLoop({
        ...loopContext,
        input: entry.inputs[0]!.name,
        output: entry.outputs[0]!.name,
        settings: sequence,
        stride: vuBound(options),
        counters: createSequenceCounters(),
        ...(scheduledLatency
          ? {
              rate: {
                sequences: sequence.sequences,
                sends: scenarioSends({ ...run.load, levelSchedule: run.levelSchedule }),
                sleep: wait,
                scheduledLatency,
              },
            }
          : {}),
      })
    : measuredLoop({
        ...loopContext,
        samples,
        // In a mix, a VU builds only the bodies of the models it runs.
        prepareOnFirstUse: mixSlotFromEnv(env) !== undefined,
        samplesFrom: (data) =>
          randomSamples(data.inputs ?? [], { batch: settings.batch, maxBatchSize: data.expect.maxBatchSize }),
        validateEvery,
        warmupChecks,
        ...(scheduledLatency ? { scheduledLatency } : {}),
        ...(run.load.pacing
          ? {
              pacing: { schedule: run.levelSchedule, sleep: wait },
            }
          : {}),
      });

  return {
    options,
    plan: run.plan,
    run,
    settings,
    setup: () => checkTarget(transport, settings, entry, generic),
    warmup: loop.warmup,
    infer: loop.infer,
    async stats(): Promise<void> {
      windowRecord.add(Date.now(), run.load.window_s);
      // A server lost in the window costs one line here, not a stack trace: the level's verdict says the rest.
      try {
        const before = await transport.statistics();
        await new Promise((resolve) => setTimeout(resolve, run.load.window_s * 1000));
        const after = await transport.statistics();
        recordServerStats(
          counters,
          serverStatsDelta(before, after, { model: settings.modelName, version: settings.modelVersion }),
        );
      } catch (err) {
        console.warn(`${exec.scenario.name}: server statistics not read: ${message(err)}`);
      }
    },
    handleSummary: (data) => {
      const out = levelSummary(data, run, env);
      if (sequence) out.stdout = `${out.stdout}${sequenceSummaryLine(data as K6SummaryData)}\n`;
      return out;
    },
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
      `server ${transport.target} is unreachable (${message(err)}); start it or ${endpointHint(settings)}`,
    );
  }
  // k6 reports a refused connection as status 0, not an exception: both mean nobody answers.
  if (!live)
    throw new Error(
      `server ${transport.target} is unreachable or not live; start it or ${endpointHint(settings)}`,
    );
  if (!(await transport.modelReady())) {
    throw new Error(`model ${where} is not ready; load it or set MODEL_NAME to a served model`);
  }
  const metadata = await transport.modelMetadata();
  const config = normalizeModelConfig(await transport.modelConfig());
  const maxBatchSize = config.name ? config.maxBatchSize : entry.maxBatchSize;
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
    outputs: generic ? tensorSpecs(metadata.outputs, config.outputs, maxBatchSize, 'output') : entry.outputs,
    maxBatchSize,
    batch: settings.batch,
    checkLabels: backend !== '' && backend !== 'simulated',
  };
  if (!generic) return { expect };
  return { expect, inputs: tensorSpecs(metadata.inputs, config.inputs, maxBatchSize, 'input') };
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
