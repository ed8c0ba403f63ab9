/**
 * Everything the generative scenario (scenarios/llm.ts) exports, built from a generative entry
 * (models/generative.ts) and its budget file: closed- or open-loop levels from lib/load, one request per
 * iteration over its own k6/net/grpc Stream to the decoupled model's ModelStreamInfer. Each message is timed
 * in its handler and folded into the request's record (record.ts); the request asks for Triton's empty final
 * response, the only way to know from the stream that it ended. When the stream ends the record is scored
 * (metrics.ts) into k6 metrics (names.ts). Runs unchanged under real k6 and the Node runtime, whose
 * iterations both wait for their open streams.
 */
import encoding from 'k6/encoding';
import exec from 'k6/execution';
import { Counter, Rate, Trend } from 'k6/metrics';
import grpc from 'k6/net/grpc';
import type { Options } from 'k6/options';
import type { GenerativeModelEntry } from '../../models/generative.ts';
import { grpcMethod } from '../kserve/grpc-messages.ts';
import { createWindowStart } from '../load/metrics.ts';
import {
  statsName,
  SUMMARY_TREND_STATS,
  SYSTEM_TAGS,
  subMetricKey,
  WINDOW_START_METRIC,
  parseLevelName,
} from '../load/names.ts';
import { buildPlan, type LoadPlan } from '../load/scenarios.ts';
import { loadPlanFromEnv, type LoadPlanSettings } from '../load/shapes.ts';
import { missedBudgetLines } from '../summary/verdicts.ts';
import type { K6SummaryData } from '../summary/from-summary.ts';
import { budgetFromEnv, type GenerativeBudget, parseGenerativeBudget } from './budget.ts';
import { EMPTY_FINAL_PARAMETER, readDecoupledResponse } from './decoupled.ts';
import { generativeLevels, generativeLines } from './level-summary.ts';
import { requestMetrics } from './metrics.ts';
import { GENAI_METRICS } from './names.ts';
import { failRecord, newRecord, recordDecoupled } from './record.ts';

/** The generative scenario's exports. */
export interface GenerativeTest {
  options: Options;
  plan: LoadPlan;
  load: LoadPlanSettings;
  budget: GenerativeBudget;
  setup(): Promise<void>;
  warmup(): void;
  infer(): void;
  stats(): Promise<void>;
  handleSummary(data: Record<string, unknown>): Record<string, string>;
}

/** The run's workload: where, which model, and the request's lengths. */
export interface GenerativeSettings {
  grpcUrl: string;
  modelName: string;
  inputTokens: number;
  outputTokens: number;
}

function whole(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`invalid ${name}="${raw}"; expected a whole number >= 1`);
  return n;
}

/** Reads TRITON_GRPC_URL, MODEL_NAME, INPUT_TOKENS, OUTPUT_TOKENS over the entry's calibration workload. */
export function generativeSettings(
  entry: GenerativeModelEntry,
  env: Record<string, string | undefined>,
): GenerativeSettings {
  return {
    grpcUrl: (env.TRITON_GRPC_URL || '127.0.0.1:8001').replace(/^grpc:\/\//, ''),
    modelName: env.MODEL_NAME || entry.name,
    inputTokens: whole(env, 'INPUT_TOKENS', entry.calibration.inputTokens),
    outputTokens: whole(env, 'OUTPUT_TOKENS', entry.calibration.outputTokens),
  };
}

/**
 * The ModelInferRequest in k6's JSON mapping: a prompt of `inputTokens` words, `max_tokens` = outputTokens,
 * streaming on, and the empty final response asked for. Inputs and datatypes come from the entry.
 */
export function streamRequest(entry: GenerativeModelEntry, s: GenerativeSettings): Record<string, unknown> {
  const prompt = Array.from({ length: s.inputTokens }, (_, i) => `w${i}`).join(' ');
  const value: Record<string, unknown> = {
    text_input: encoding.b64encode(prompt),
    max_tokens: s.outputTokens,
    stream: true,
  };
  const field: Record<string, string> = {
    BYTES: 'bytesContents',
    INT32: 'intContents',
    BOOL: 'boolContents',
  };
  return {
    modelName: s.modelName,
    inputs: entry.inputs.map((t) => ({
      name: t.name,
      datatype: t.datatype,
      shape: [1],
      contents: { [field[t.datatype] ?? 'bytesContents']: [value[t.name]] },
    })),
    parameters: { [EMPTY_FINAL_PARAMETER]: { boolParam: true } },
  };
}

/** The per-level thresholds: the budget on measured levels, probes the summary reads elsewhere. */
function thresholds(levels: readonly string[], budget: GenerativeBudget): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const errorExpr = budget.error_rate > 0 ? `rate<${budget.error_rate}` : 'rate==0';
  for (const level of levels) {
    out[subMetricKey(GENAI_METRICS.ttft, level)] = [`p(95)<${budget.ttft_p95_ms}`];
    out[subMetricKey(GENAI_METRICS.itl, level)] = [`p(95)<${budget.itl_p95_ms}`];
    out[subMetricKey(GENAI_METRICS.failed, level)] = [errorExpr];
    out[subMetricKey(GENAI_METRICS.latency, level)] = ['max>=0'];
    out[subMetricKey(GENAI_METRICS.chunkGap, level)] = ['max>=0'];
    out[subMetricKey(GENAI_METRICS.outputTokens, level)] = ['count>=0'];
    out[subMetricKey('dropped_iterations', level)] = ['count>=0'];
    out[subMetricKey(WINDOW_START_METRIC, statsName(level))] = ['value>=0'];
  }
  return out;
}

/** A clock with sub-millisecond resolution where the runtime has one (the Node runtime), else Date.now (k6). */
const now: () => number = typeof performance !== 'undefined' ? () => performance.now() : () => Date.now();

/** Builds the generative scenario; call at the top level (init context) with the text of its budget file. */
export function generativeTest(
  entry: GenerativeModelEntry,
  budgetJson: string,
  budgetPath: string,
): GenerativeTest {
  const env = __ENV as Record<string, string | undefined>;
  const settings = generativeSettings(entry, env);
  const budget = budgetFromEnv(parseGenerativeBudget(budgetJson, budgetPath), env);
  const load = loadPlanFromEnv(env, entry.load);
  const plan = buildPlan({
    mode: load.mode,
    levels: load.levels,
    warmup_s: load.warmup_s,
    window_s: load.window_s,
    exec: 'infer',
    warmupExec: 'warmup',
    statsExec: 'stats',
    maxVUs: Math.max(...load.levels) * 4,
  });
  const options: Options = {
    scenarios: plan.scenarios,
    thresholds: thresholds(
      plan.levels.map((l) => l.name),
      budget,
    ),
    summaryTrendStats: SUMMARY_TREND_STATS,
    systemTags: SYSTEM_TAGS,
    setupTimeout: '60s',
    tags: { model: settings.modelName, protocol: 'grpc' },
  };
  const metrics = {
    ttft: new Trend(GENAI_METRICS.ttft, true),
    itl: new Trend(GENAI_METRICS.itl, true),
    latency: new Trend(GENAI_METRICS.latency, true),
    chunkGap: new Trend(GENAI_METRICS.chunkGap, true),
    outputTokens: new Counter(GENAI_METRICS.outputTokens),
    failed: new Rate(GENAI_METRICS.failed),
  };
  const windowStart = createWindowStart();
  const client = new grpc.Client();
  client.load(['../proto'], 'grpc_service.proto');
  const request = streamRequest(entry, settings);
  const method = grpcMethod('ModelStreamInfer');
  let connected = false;
  let warned = false;

  function connect(): void {
    if (connected) return;
    client.connect(settings.grpcUrl, { plaintext: true, timeout: '60s' });
    connected = true;
  }

  /** Scores a finished request into the k6 metrics; a failure is counted and, once per VU, logged. */
  function score(record: ReturnType<typeof newRecord>): void {
    const m = requestMetrics(record);
    metrics.failed.add(!m.ok);
    if (!m.ok) {
      // Warm-up requests cut at the window's start end this way by design: only a level's failures are news.
      if (!warned && parseLevelName(exec.scenario.name))
        console.warn(`${settings.modelName} on ${settings.grpcUrl}: ${m.error}`);
      if (parseLevelName(exec.scenario.name)) warned = true;
      return;
    }
    metrics.ttft.add(m.ttft_ms!);
    metrics.latency.add(m.latency_ms!);
    if (m.itl_ms !== undefined) metrics.itl.add(m.itl_ms);
    for (const gap of m.gaps_ms) metrics.chunkGap.add(gap);
    metrics.outputTokens.add(m.outputTokens ?? 0);
  }

  /** One request on its own stream; the iteration lasts until the stream ends. */
  function streamOne(): void {
    connect();
    const record = newRecord(now(), settings.inputTokens);
    const stream = new grpc.Stream(client, method, { timeout: '120s' });
    stream.on('data', (message: unknown) => {
      const at = now();
      if (recordDecoupled(record, readDecoupledResponse(message), at)) stream.end();
    });
    stream.on('error', (err) => {
      const why = (err as { message?: unknown } | undefined)?.message;
      failRecord(record, typeof why === 'string' ? why : 'stream failed', now());
    });
    stream.on('end', () => {
      if (record.done_ms === undefined) failRecord(record, 'stream ended before the final response', now());
      score(record);
    });
    stream.write(request);
  }

  return {
    options,
    plan,
    load,
    budget,
    async setup(): Promise<void> {
      // One readable line when nothing answers or the model is not there.
      try {
        connect();
      } catch (err) {
        throw new Error(
          `server ${settings.grpcUrl} is unreachable (${err instanceof Error ? err.message : String(err)}); start it or set TRITON_GRPC_URL`,
        );
      }
      const ready = await client.asyncInvoke(grpcMethod('ModelReady'), {
        name: settings.modelName,
        version: '',
      });
      if (ready.status !== grpc.StatusOK || !(ready.message as { ready?: boolean })?.ready) {
        throw new Error(
          `model ${settings.modelName} on ${settings.grpcUrl} is not ready (${(ready.error as { message?: string } | null)?.message ?? 'not ready'}); start the server or set TRITON_GRPC_URL`,
        );
      }
    },
    warmup: streamOne,
    infer: streamOne,
    async stats(): Promise<void> {
      windowStart.add(Date.now());
      await new Promise((resolve) => setTimeout(resolve, load.window_s * 1000));
    },
    handleSummary(data) {
      const results = generativeLevels(data as K6SummaryData, plan.levels);
      const missed = missedBudgetLines(results);
      const lines = [...generativeLines(results), ...missed];
      if (results.length > 0 && missed.length === 0) lines.push('all budgets met');
      const out: Record<string, string> = { stdout: `${lines.join('\n')}\n` };
      if (env.SUMMARY_JSON) out[env.SUMMARY_JSON] = JSON.stringify(data);
      if (env.LEVELS_JSON) out[env.LEVELS_JSON] = JSON.stringify(results);
      return out;
    },
  };
}
