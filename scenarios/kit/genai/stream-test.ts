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
import { sleep } from 'k6';
import { type GenerativeModelEntry, generativeModelEntry } from '../../../models/generative.ts';
import { maxVusFromEnv, type RunPlan, resolveRunPlan } from '../run-plan.ts';
import { grpcMethod } from '../../../lib/kserve/grpc-messages.ts';
import { epochNow } from '../../../lib/load/clock.ts';
import { createScheduledLatency, createWindowRecord } from '../../../lib/load/metrics.ts';
import {
  parseLevelName,
  SCHEDULED_LATENCY_METRIC,
  statsName,
  subMetricKey,
  WINDOW_START_METRIC,
} from '../../../lib/load/names.ts';
import { blockingCallsAllowed } from '../blocking.ts';
import { missedBudgetLines, runVerdictLine } from '../../../lib/summary/verdicts.ts';
import { judgeLevels } from '../../../lib/summary/judge.ts';
import type { K6SummaryData } from '../../../lib/summary/from-summary.ts';
import { generativeBudgetExprs, type TokenBudget, tokenBudget } from '../../../lib/genai/budget.ts';
import { EMPTY_FINAL_PARAMETER, readDecoupledResponse } from '../../../lib/genai/decoupled.ts';
import {
  generativeLevels,
  generativeLines,
  type TokenSources,
  tokenLines,
} from '../../../lib/genai/level-summary.ts';
import { llmBackendFromEnv, type PromptInput, promptInputs } from '../../../lib/genai/length-controls.ts';
import { type GenerationRecord, meetsSlo, requestMetrics, type Slo } from '../../../lib/genai/metrics.ts';
import { GENAI_METRICS, GENAI_RECORD } from '../../../lib/genai/names.ts';
import { dueClock, LATE_SEND_MS, scheduleLines } from '../../../lib/genai/open-loop.ts';
import { failRecord, newRecord, recordDecoupled } from '../../../lib/genai/record.ts';
import { loadSseModule, type SseProtocol, sseRequest, streamSse } from './sse-stream.ts';
import { parseWorkload, type TokenSource } from '../../../lib/genai/workload.ts';
import { endpointHint, type StreamProtocol } from '../settings.ts';

/** The generative scenario's exports. */
export interface GenerativeTest {
  options: Options;
  run: RunPlan;
  setup(): Promise<void>;
  warmup(): void;
  infer(): void | Promise<void>;
  stats(): Promise<void>;
  handleSummary(data: Record<string, unknown>): Record<string, string>;
}

/**
 * The request's lengths, INPUT_TOKENS and OUTPUT_TOKENS over the entry's calibration workload; for a repeat
 * model also the delays it asks for, FIRST_DELAY_MS before the first response and TOKEN_DELAY_MS before each
 * other one (whole ms, as the backend's DELAY is), over the calibration's TTFT and ITL.
 */
export interface Workload {
  inputTokens: number;
  outputTokens: number;
  firstDelay_ms?: number;
  tokenDelay_ms?: number;
}

function whole(env: Record<string, string | undefined>, name: string, fallback: number, least = 1): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < least)
    throw new Error(`invalid ${name}="${raw}"; expected a whole number >= ${least}`);
  return n;
}

/** Reads INPUT_TOKENS and OUTPUT_TOKENS (and a repeat model's FIRST_DELAY_MS, TOKEN_DELAY_MS). */
export function workloadFromEnv(
  entry: GenerativeModelEntry,
  env: Record<string, string | undefined>,
): Workload {
  const c = entry.calibration;
  const workload: Workload = {
    inputTokens: whole(env, 'INPUT_TOKENS', c.inputTokens),
    outputTokens: whole(env, 'OUTPUT_TOKENS', c.outputTokens),
  };
  if (entry.backend === 'repeat') {
    workload.firstDelay_ms = whole(env, 'FIRST_DELAY_MS', Math.round(c.ttft_ms), 0);
    workload.tokenDelay_ms = whole(env, 'TOKEN_DELAY_MS', Math.round(c.itl_ms), 0);
  }
  return workload;
}

/** The delays a repeat request asks for, ms: the first response's, then each other one's. */
export function requestedDelays(s: Workload): number[] {
  return Array.from({ length: s.outputTokens }, (_, i) =>
    i === 0 ? (s.firstDelay_ms ?? 0) : (s.tokenDelay_ms ?? 0),
  );
}

/** Contents of a tensor in k6's JSON mapping, by datatype. */
function contents(datatype: string, values: unknown[]): Record<string, unknown[]> {
  const field: Record<string, string> = {
    BYTES: 'bytesContents',
    INT32: 'intContents',
    UINT32: 'uintContents',
    BOOL: 'boolContents',
  };
  return { [field[datatype] ?? 'bytesContents']: values };
}

/** A ModelInferRequest in k6's JSON mapping, with the empty final response asked for (BYTES values as text). */
function requestBody(modelName: string, inputs: readonly PromptInput[]): Record<string, unknown> {
  return {
    modelName,
    inputs: inputs.map((t) => {
      const v = t.datatype === 'BYTES' ? t.values.map((x) => encoding.b64encode(String(x))) : t.values;
      return { name: t.name, datatype: t.datatype, shape: [v.length], contents: contents(t.datatype, v) };
    }),
    parameters: { [EMPTY_FINAL_PARAMETER]: { boolParam: true } },
  };
}

/** One request the scenario sends: its body, its input length and the output length it asks for. */
export interface PlannedRequest {
  body: Record<string, unknown>;
  /** The inputs the body carries (an SSE request is built from them). */
  inputs: PromptInput[];
  inputTokens: number;
  outputTokens: number;
}

/** The requests a run sends in turn, and where their input lengths came from. */
export interface PlannedRequests {
  requests: PlannedRequest[];
  inputSource: TokenSource;
}

/**
 * The run's requests. A repeat model gets `outputTokens` values to send back with the requested delays. A
 * prompt model sends the workload file PAYLOAD names (payloads/prompt-workload.ts; the bench makes one), each
 * request with its output length pinned as LLM_BACKEND takes it; without PAYLOAD, one prompt of INPUT_TOKENS
 * words asking for OUTPUT_TOKENS (its input length an estimate: whitespace words).
 */
export function plannedRequests(
  entry: GenerativeModelEntry,
  modelName: string,
  env: Record<string, string | undefined>,
  readText: (path: string) => string,
): PlannedRequests {
  if (entry.backend === 'repeat') {
    const s = workloadFromEnv(entry, env);
    const inputs: PromptInput[] = [
      { name: 'IN', datatype: 'INT32', values: Array.from({ length: s.outputTokens }, (_, i) => i) },
      { name: 'DELAY', datatype: 'UINT32', values: requestedDelays(s) },
      { name: 'WAIT', datatype: 'UINT32', values: [0] },
    ];
    return {
      requests: [
        {
          body: requestBody(modelName, inputs),
          inputs,
          inputTokens: s.inputTokens,
          outputTokens: s.outputTokens,
        },
      ],
      inputSource: 'estimate',
    };
  }
  const backend = llmBackendFromEnv(env);
  const plan = (prompt: string, inputTokens: number, outputTokens: number): PlannedRequest => {
    const inputs = promptInputs(backend, prompt, outputTokens);
    return { body: requestBody(modelName, inputs), inputs, inputTokens, outputTokens };
  };
  const path = env['PAYLOAD']?.trim();
  if (path) {
    const workload = parseWorkload(readText(path), path);
    return {
      requests: workload.requests.map((r) => plan(r.prompt, r.inputTokens, r.outputTokens)),
      inputSource: workload.inputTokenSource,
    };
  }
  const s = workloadFromEnv(entry, env);
  const prompt = Array.from({ length: s.inputTokens }, (_, i) => `w${i}`).join(' ');
  return { requests: [plan(prompt, s.inputTokens, s.outputTokens)], inputSource: 'estimate' };
}

/** The per-level thresholds: the budget where it applies, probes for everything the summary reads. */
function thresholds(run: RunPlan, tokens: TokenBudget): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const open: Record<string, string> =
    run.load.mode === 'request-rate'
      ? {
          [GENAI_METRICS.sendLag]: 'max>=0',
          [GENAI_METRICS.lateSends]: 'count>=0',
          [SCHEDULED_LATENCY_METRIC]: 'max>=0',
        }
      : {};
  const probes: Record<string, string> = {
    ...open,
    [GENAI_METRICS.good]: 'rate>=0',
    [GENAI_METRICS.ttft]: 'max>=0',
    [GENAI_METRICS.itl]: 'max>=0',
    [GENAI_METRICS.latency]: 'max>=0',
    [GENAI_METRICS.chunkGap]: 'max>=0',
    [GENAI_METRICS.osl]: 'max>=0',
    [GENAI_METRICS.isl]: 'max>=0',
    [GENAI_METRICS.outputTokens]: 'count>=0',
    [GENAI_METRICS.requestedOsl]: 'max>=0',
    [GENAI_METRICS.oslMismatch]: 'count>=0',
    [GENAI_METRICS.failed]: 'rate>=0',
    dropped_iterations: 'count>=0',
  };
  for (const { name } of run.plan.levels) {
    const budgets = generativeBudgetExprs(run.budget, run.overrides, tokens, name);
    for (const [metric, probe] of Object.entries(probes))
      out[subMetricKey(metric, name)] = budgets[metric] ?? [probe];
    out[subMetricKey(WINDOW_START_METRIC, statsName(name))] = ['value>=0'];
  }
  return out;
}

/** A clock with sub-millisecond resolution where the runtime has one (the Node runtime), else Date.now (k6). */
const now: () => number = typeof performance !== 'undefined' ? () => performance.now() : () => Date.now();

/** The per-request SLOs goodput counts against: the budget's TTFT and ITL p95 bounds and its latency p95. */
export function budgetSlo(tokens: TokenBudget, latencyP95_ms: number): Slo {
  return {
    ...(tokens.ttft_p95_ms !== undefined ? { ttft_ms: tokens.ttft_p95_ms } : {}),
    ...(tokens.itl_p95_ms !== undefined ? { itl_ms: tokens.itl_p95_ms } : {}),
    latency_ms: latencyP95_ms,
  };
}

/** The most VUs each measurement scenario may use (a paced level's VUs, an arrival-rate level's maxVUs). */
function vusOf(options: Options): (level: string) => number | undefined {
  return (level) => {
    const scenario = options.scenarios?.[level] as { vus?: number; maxVUs?: number } | undefined;
    return scenario?.maxVUs ?? scenario?.vus;
  };
}

/** Builds the generative scenario; call at the top level (init context) with the text of its budget file. */
export function generativeTest(
  entry: GenerativeModelEntry,
  budgetJson: string,
  budgetPath: string,
): GenerativeTest {
  const env = __ENV as Record<string, string | undefined>;
  // The same resolver as the bench's (measure/core/target.ts): both sides agree on levels, windows, budget.
  const run = resolveRunPlan(generativeModelEntry(entry), env, budgetJson, budgetPath, (path) => open(path));
  const { settings } = run;
  const protocol = settings.protocol as StreamProtocol;
  const { requests, inputSource } = plannedRequests(entry, settings.modelName, env, (path) => open(path));
  // OpenAI streams end with usage, the server's own counts (record.ts takes them); elsewhere output lengths come
  // from the stream's responses, one token each as the LLM backends stream: an estimate.
  const fromServer = protocol === 'openai-chat' || protocol === 'openai-completions';
  const sources: TokenSources = fromServer
    ? { input: 'server', output: 'server' }
    : { input: inputSource, output: 'estimate' };
  const tokens = tokenBudget(run.budget, env);
  const slo = budgetSlo(tokens, run.limits.p95_ms);
  const options: Options = {
    ...run.options,
    // genai-perf's exports have p1, p5, p10, p25 and p75 as well (lib/genai/genai-perf-csv.ts, -json.ts).
    summaryTrendStats: [...(run.options.summaryTrendStats ?? []), 'p(1)', 'p(5)', 'p(10)', 'p(25)', 'p(75)'],
    thresholds: thresholds(run, tokens),
  };
  const metrics = {
    ttft: new Trend(GENAI_METRICS.ttft, true),
    itl: new Trend(GENAI_METRICS.itl, true),
    latency: new Trend(GENAI_METRICS.latency, true),
    chunkGap: new Trend(GENAI_METRICS.chunkGap, true),
    osl: new Trend(GENAI_METRICS.osl),
    isl: new Trend(GENAI_METRICS.isl),
    outputTokens: new Counter(GENAI_METRICS.outputTokens),
    requestedOsl: new Trend(GENAI_METRICS.requestedOsl),
    oslMismatch: new Counter(GENAI_METRICS.oslMismatch),
    failed: new Rate(GENAI_METRICS.failed),
    good: new Rate(GENAI_METRICS.good),
    record: new Counter(GENAI_RECORD.metric),
  };
  // Open loop: when each measured request was due, and how late it left and ended against that.
  const openLoop = run.load.mode === 'request-rate';
  const pacing = run.load.pacing;
  const due = dueClock(exec, pacing ? run.levelSchedule : undefined);
  const lag = openLoop
    ? {
        send: new Trend(GENAI_METRICS.sendLag, true),
        late: new Counter(GENAI_METRICS.lateSends),
        scheduled: createScheduledLatency(),
      }
    : undefined;
  const blocking = blockingCallsAllowed();
  const windowRecord = createWindowRecord(env);
  const overGrpc = protocol === 'grpc';
  // Over SSE: the extension's module (or one line naming it) and each planned request's URL and body, built
  // once; over gRPC its proto.
  const sse = overGrpc ? undefined : loadSseModule(protocol);
  const sseRequests = overGrpc
    ? undefined
    : requests.map((r) =>
        sseRequest(
          protocol as SseProtocol,
          settings.url,
          settings.modelName,
          Object.fromEntries(r.inputs.map((t) => [t.name, t.values])),
          entry,
        ),
      );
  const target = sseRequests?.[0]?.url ?? settings.grpcUrl;
  const client = new grpc.Client();
  if (overGrpc) client.load(['../proto'], 'grpc_service.proto');
  const method = grpcMethod('ModelStreamInfer');
  let connected = false;
  let warned = false;

  function connect(): void {
    if (connected) return;
    client.connect(settings.grpcUrl, { plaintext: true, timeout: '60s' });
    connected = true;
  }

  /** Hands a measured request's raw record to the outputs (--out json), for `k6-triton rescore`. */
  function keep(record: ReturnType<typeof newRecord>): void {
    if (!parseLevelName(exec.scenario.name)) return;
    const metadata = exec.vu.metrics.metadata as Record<string, string>;
    metadata[GENAI_RECORD.metadata] = JSON.stringify(record);
    metrics.record.add(1);
    delete metadata[GENAI_RECORD.metadata];
  }

  /** Scores a finished request into the k6 metrics; a failure is counted and, once per VU, logged. */
  function score(record: ReturnType<typeof newRecord>, asked: PlannedRequest): void {
    keep(record);
    const m = requestMetrics(record);
    metrics.failed.add(!m.ok);
    metrics.good.add(meetsSlo(m, slo));
    if (!m.ok) {
      // Warm-up requests cut at the window's start end this way by design: only a level's failures are news.
      if (!warned && parseLevelName(exec.scenario.name))
        console.warn(`${settings.modelName} on ${target}: ${m.error}`);
      if (parseLevelName(exec.scenario.name)) warned = true;
      return;
    }
    metrics.ttft.add(m.ttft_ms!);
    metrics.latency.add(m.latency_ms!);
    if (m.itl_ms !== undefined) metrics.itl.add(m.itl_ms);
    for (const gap of m.gaps_ms) metrics.chunkGap.add(gap);
    metrics.outputTokens.add(m.outputTokens ?? 0);
    metrics.osl.add(m.outputTokens);
    metrics.isl.add(m.inputTokens);
    metrics.requestedOsl.add(asked.outputTokens);
    if (m.outputTokens !== asked.outputTokens) metrics.oslMismatch.add(1);
  }

  /** One request on its own gRPC stream; `finish` scores it when the stream ends. */
  function grpcOne(asked: PlannedRequest, finish: (record: GenerationRecord) => void): void {
    connect();
    const stream = new grpc.Stream(client, method, { timeout: '120s' });
    // The send time is stamped at the write, as perf_analyzer stamps a streamed request's: setting up the stream
    // object is the client's work, not the request's time.
    const record = newRecord(0, asked.inputTokens);
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
      finish(record);
    });
    record.sent_ms = now();
    stream.write(asked.body);
  }

  /**
   * Request `i` of the planned ones (round robin) over gRPC or SSE; the iteration lasts until its stream ends.
   * `due_ms`: its scheduled send, in an open loop.
   */
  function streamOne(i: number, due_ms?: number): void {
    const asked = requests[i % requests.length]!;
    const finish = (record: GenerationRecord) => {
      if (due_ms !== undefined) lag!.scheduled.add(Date.now() - due_ms);
      score(record, asked);
    };
    if (due_ms !== undefined) {
      const late_ms = Date.now() - due_ms;
      lag!.send.add(late_ms);
      lag!.late.add(late_ms > LATE_SEND_MS ? 1 : 0);
    }
    if (overGrpc) {
      grpcOne(asked, finish);
      return;
    }
    streamSse({
      protocol: protocol as SseProtocol,
      sse: sse!,
      request: sseRequests![i % sseRequests!.length]!,
      headers: settings.headers,
      inputTokens: asked.inputTokens,
      now,
      score: finish,
    });
  }

  return {
    options,
    run,
    async setup(): Promise<void> {
      // Over SSE a server that does not answer fails every request with its error instead.
      if (!overGrpc) return;
      // One readable line when nothing answers or the model is not there.
      try {
        connect();
      } catch (err) {
        throw new Error(
          `server ${settings.grpcUrl} is unreachable (${err instanceof Error ? err.message : String(err)}); start it or ${endpointHint(settings)}`,
        );
      }
      const ready = await client.asyncInvoke(grpcMethod('ModelReady'), {
        name: settings.modelName,
        version: '',
      });
      if (ready.status !== grpc.StatusOK || !(ready.message as { ready?: boolean })?.ready) {
        throw new Error(
          `model ${settings.modelName} on ${settings.grpcUrl} is not ready (${(ready.error as { message?: string } | null)?.message ?? 'not ready'}); start the server or ${endpointHint(settings)}`,
        );
      }
    },
    warmup: () => streamOne(exec.scenario.iterationInTest),
    infer(): void | Promise<void> {
      const n = exec.scenario.iterationInTest;
      if (!openLoop) return streamOne(n);
      const due_ms = due();
      if (due_ms === undefined) return;
      // A recorded schedule (a trace) names the request each send makes; otherwise iteration n sends request n.
      const i = (pacing ? run.levelSchedule(exec.scenario.name)?.payloads?.[n] : undefined) ?? n;
      const wait_ms = due_ms - epochNow();
      // k6's arrival rate starts the iteration when it is due; a paced level's VU waits for its send time.
      if (!pacing || wait_ms <= 0) return streamOne(i, due_ms);
      if (blocking) {
        sleep(wait_ms / 1000);
        return streamOne(i, due_ms);
      }
      return new Promise<void>((resolve) => setTimeout(resolve, wait_ms)).then(() => streamOne(i, due_ms));
    },
    async stats(): Promise<void> {
      windowRecord.add(Date.now(), run.load.window_s);
      await new Promise((resolve) => setTimeout(resolve, run.load.window_s * 1000));
    },
    handleSummary(data) {
      const results = generativeLevels(data as K6SummaryData, run.plan.levels, {
        slo,
        vus: vusOf(run.options),
        capped: maxVusFromEnv(env) !== undefined,
        sources,
      });
      const missed = missedBudgetLines(results);
      const lines = [
        ...generativeLines(results),
        ...tokenLines(results),
        ...scheduleLines(results),
        ...missed,
      ];
      const { verdict, reasons } = judgeLevels(
        results,
        run.plan.levels.map((l) => l.name),
      );
      lines.push(runVerdictLine(verdict, reasons));
      const out: Record<string, string> = { stdout: `${lines.join('\n')}\n` };
      if (env.SUMMARY_JSON) out[env.SUMMARY_JSON] = JSON.stringify(data);
      if (env.LEVELS_JSON) out[env.LEVELS_JSON] = JSON.stringify(results);
      return out;
    },
  };
}
