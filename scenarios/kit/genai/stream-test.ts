/**
 * Everything the generative scenario (scenarios/llm.ts) exports, built from a generative entry
 * (models/generative.ts) and its budget file: closed- or open-loop levels from lib/load, one request per
 * iteration over its own k6/net/grpc Stream to the decoupled model's ModelStreamInfer. Each message is timed
 * in its handler and folded into the request's record (record.ts); the request asks for Triton's empty final
 * response, the only way to know from the stream that it ended. When the stream ends the record is scored
 * (metrics.ts) into k6 metrics (metric-defs.ts). When each request is sent is the pacer's (lib/load/pacer.ts);
 * this file supplies the stream's send and its scorer, plain functions over one VU's StreamState. Runs unchanged under real k6 and the Node runtime, whose
 * iterations both wait for their open streams.
 */
import encoding from 'k6/encoding';
import exec from 'k6/execution';
import { Counter, Rate, Trend } from 'k6/metrics';
import grpc from 'k6/net/grpc';
import type { Options } from 'k6/options';
import { type GenerativeModelEntry, generativeModelEntry } from '../../../models/generative.ts';
import { maxVusFromEnv, type RunPlan, resolveRunPlan } from '../run-plan.ts';
import { grpcMethod } from '../../../lib/kserve/grpc-messages.ts';
import { createScheduledLatency, createWindowRecord } from '../../../lib/load/metrics.ts';
import { createPacer, type Pacer } from '../../../lib/load/pacer.ts';
import {
  parseLevelName,
  SCENARIO_TAG,
  SCHEDULED_LATENCY_METRIC,
  statsName,
  subMetricKey,
  WINDOW_START_METRIC,
} from '../../../lib/load/names.ts';
import { RAMP_SCENARIO, rampDue_ms } from '../../../lib/load/ramp.ts';
import { WindowClock } from '../../../lib/load/windows.ts';
import { blockingCallsAllowed } from '../blocking.ts';
import { sleepFor } from '../wait.ts';
import { missedBudgetLines, runVerdictLine } from '../../../lib/summary/verdicts.ts';
import { judgeLevels } from '../../../lib/summary/judge.ts';
import type { K6SummaryData } from '../../../lib/summary/from-summary.ts';
import { budgetSlo, generativeBudgetExprs, type TokenBudget } from '../../../lib/genai/budget.ts';
import { EMPTY_FINAL_PARAMETER, readDecoupledResponse } from '../../../lib/genai/decoupled.ts';
import {
  conversationLines,
  generativeLevels,
  generativeLines,
  type TokenSources,
  tokenLines,
} from '../../../lib/genai/level-summary.ts';
import { type PromptInput, promptInputs } from '../../../lib/genai/length-controls.ts';
import { drawLength, type GenerativeSettings } from '../../../lib/genai/settings.ts';
import { fixedLength } from '../../../lib/settings/kinds.ts';
import { createRandom } from '../../../lib/random/random.ts';
import { type GenerationRecord, meetsSlo, requestMetrics, type Slo } from '../../../lib/genai/metrics.ts';
import {
  GENAI_METRICS,
  GENAI_RECORD,
  PER_TURN_METRICS,
  TURN_TAG,
  turnMetricKey,
} from '../../../lib/genai/names.ts';
import {
  type ConversationWorkload,
  isConversationWorkload,
  parseConversationWorkload,
} from '../../../lib/genai/conversation.ts';
import type { ModelEntry } from '../../../models/types.ts';
import {
  GENAI_METRIC_DEFS,
  type GenaiMetricDef,
  RECORDED_GENAI_METRICS,
  type RecordedGenaiMetricKey,
} from '../../../lib/genai/metric-defs.ts';
import { LATE_SEND_MS, scheduleLines } from '../../../lib/genai/open-loop.ts';
import { failRecord, newRecord, recordDecoupled } from '../../../lib/genai/record.ts';
import { loadSseModule, type SseProtocol, sseRequest, streamSse } from './sse-stream.ts';
import { parseWorkload, type TokenSource } from '../../../lib/genai/workload.ts';
import { endpointHint, type Settings, type StreamProtocol } from '../settings.ts';
import {
  runSalt,
  type SaltKey,
  SALT_HEAD_WORDS,
  SALT_WORDS,
  type SaltSlots,
  saltedPrompt,
  slotsAt,
  wordAlphabet,
} from '../../../lib/genai/salt.ts';
import { type CancelPicker, cancelPicker, cancelTimeout, wasCancelled } from './cancel.ts';
import type { LevelResult } from '../../../lib/summary/types.ts';

/** The generative scenario's exports. */
export interface GenerativeTest {
  options: Options;
  run: RunPlan;
  setup(): Promise<SetupData>;
  warmup(data?: SetupData): void;
  infer(data?: SetupData): void | Promise<void>;
  stats(): Promise<void>;
  handleSummary(data: Record<string, unknown>): Record<string, string>;
  /** The level results and the lines the summary prints about them (a model mix prints each model's). */
  levelLines(data: Record<string, unknown>): { results: LevelResult[]; lines: string[] };
}

/** What setup() hands every VU: the run's prompt salt (null when PROMPT_SALT=off), drawn once. */
export interface SetupData {
  salt: number | null;
}

/** One request's lengths; for a repeat model also the delays it asks for (whole ms, as the backend's DELAY is). */
export interface Workload {
  inputTokens: number;
  outputTokens: number;
  firstDelay_ms?: number;
  tokenDelay_ms?: number;
}

/**
 * The lengths of the run's requests: one request when INPUT_TOKENS and OUTPUT_TOKENS are fixed, else
 * PROMPT_COUNT requests with lengths drawn from them (mean,stddev or min:max), seeded by PROMPT_SEED.
 */
export function workloads(g: GenerativeSettings): Workload[] {
  const delays = {
    ...(g.firstDelay_ms !== undefined ? { firstDelay_ms: g.firstDelay_ms } : {}),
    ...(g.tokenDelay_ms !== undefined ? { tokenDelay_ms: g.tokenDelay_ms } : {}),
  };
  const input = fixedLength(g.inputTokens);
  const output = fixedLength(g.outputTokens);
  if (input !== undefined && output !== undefined)
    return [{ inputTokens: input, outputTokens: output, ...delays }];
  const rng = createRandom(g.promptSeed);
  return Array.from({ length: g.promptCount }, () => ({
    inputTokens: drawLength(g.inputTokens, rng),
    outputTokens: drawLength(g.outputTokens, rng),
    ...delays,
  }));
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
  /** A prompt model's prompt and its salt slots (lib/genai/salt.ts), when it can be salted. */
  prompt?: string;
  salt?: SaltSlots;
  /** A multi-turn run: its samples' tags, the turn in its session from 1 (`turn`), made once. */
  tags?: Record<string, string>;
}

/** A multi-turn session: its turns as indexes into the planned requests, and the think time before each. */
export interface PlannedSession {
  requests: number[];
  delays_ms: number[];
}

/** The requests a run sends in turn, and where their input lengths came from. */
export interface PlannedRequests {
  requests: PlannedRequest[];
  inputSource: TokenSource;
  /** The words salts are spelled in, when the requests have salt slots. */
  saltAlphabet?: string[];
  /** A conversation workload's sessions (lib/genai/conversation.ts): each iteration then plays one. */
  sessions?: PlannedSession[];
}

/** The most turns whose figures are reported one by one; later turns count in the level's totals only. */
export const REPORTED_TURNS = 20;

/**
 * The run's requests. A repeat model gets `outputTokens` values to send back with the requested delays. A
 * prompt model sends the workload file `payload` names (payloads/prompt-workload.ts; the bench makes one), each
 * request with its output length pinned as LLM_BACKEND takes it; without one, prompts of INPUT_TOKENS words
 * asking for OUTPUT_TOKENS (their input length an estimate: whitespace words).
 */
export function plannedRequests(
  entry: GenerativeModelEntry,
  modelName: string,
  generative: GenerativeSettings,
  payload: string,
  readText: (path: string) => string,
): PlannedRequests {
  if (entry.backend === 'repeat') {
    return {
      requests: workloads(generative).map((s) => {
        const inputs: PromptInput[] = [
          { name: 'IN', datatype: 'INT32', values: Array.from({ length: s.outputTokens }, (_, i) => i) },
          { name: 'DELAY', datatype: 'UINT32', values: requestedDelays(s) },
          { name: 'WAIT', datatype: 'UINT32', values: [0] },
        ];
        return {
          body: requestBody(modelName, inputs),
          inputs,
          inputTokens: s.inputTokens,
          outputTokens: s.outputTokens,
        };
      }),
      inputSource: 'estimate',
    };
  }
  const plan = (
    prompt: string,
    inputTokens: number,
    outputTokens: number,
    salt?: SaltSlots,
  ): PlannedRequest => {
    const inputs = promptInputs(generative.backend, prompt, outputTokens);
    return {
      body: requestBody(modelName, inputs),
      inputs,
      inputTokens,
      outputTokens,
      prompt,
      ...(salt ? { salt } : {}),
    };
  };
  if (payload) {
    const text = readText(payload);
    if (isConversationWorkload(text)) {
      const conversations = parseConversationWorkload(text, payload);
      const requests: PlannedRequest[] = [];
      const sessions = conversations.conversations.map((c) => ({
        delays_ms: c.turns.map((t) => t.delay_ms),
        requests: c.turns.map(
          (t, k) =>
            requests.push({
              ...plan(t.prompt, t.inputTokens, t.outputTokens, t.salt),
              tags: { [TURN_TAG]: String(k + 1) },
            }) - 1,
        ),
      }));
      return {
        requests,
        inputSource: conversations.inputTokenSource,
        sessions,
        ...(conversations.saltAlphabet ? { saltAlphabet: conversations.saltAlphabet } : {}),
      };
    }
    const workload = parseWorkload(text, payload);
    return {
      requests: workload.requests.map((r) => plan(r.prompt, r.inputTokens, r.outputTokens, r.salt)),
      inputSource: workload.inputTokenSource,
      ...(workload.saltAlphabet ? { saltAlphabet: workload.saltAlphabet } : {}),
    };
  }
  // Whitespace words: any word is one token of the estimate, so the salt slots are the first words.
  return {
    requests: workloads(generative).map((s) => {
      const prompt = Array.from({ length: s.inputTokens }, (_, i) => `w${i}`).join(' ');
      const salt = s.inputTokens > SALT_WORDS ? slotsAt(prompt, 0, SALT_HEAD_WORDS) : undefined;
      return plan(prompt, s.inputTokens, s.outputTokens, salt);
    }),
    inputSource: 'estimate',
    saltAlphabet: wordAlphabet(),
  };
}

/** Whether a VU records a metric: the open loop's only in an open loop, the sessions' only in a multi-turn run. */
function recorded(def: GenaiMetricDef, openLoop: boolean, turns: number): boolean {
  return (def.needs !== 'open loop' || openLoop) && (def.needs !== 'conversation' || turns > 0);
}

/**
 * The per-level thresholds: the budget where it applies, probes for everything the summary reads (in a
 * multi-turn run, `turns` > 0, per turn too).
 */
function thresholds(run: RunPlan, tokens: TokenBudget, turns: number): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const openLoop = run.load.mode === 'request-rate';
  const probes: Record<string, string> = openLoop ? { [SCHEDULED_LATENCY_METRIC]: 'max>=0' } : {};
  for (const key of RECORDED_GENAI_METRICS) {
    const def: GenaiMetricDef = GENAI_METRIC_DEFS[key];
    if (def.probe && recorded(def, openLoop, turns)) probes[def.name!] = def.probe;
  }
  for (const { name } of run.plan.levels)
    for (let turn = 1; turn <= Math.min(turns, REPORTED_TURNS); turn++)
      for (const key of PER_TURN_METRICS) out[turnMetricKey(GENAI_METRICS[key], name, turn)] = ['max>=0'];
  probes['dropped_iterations'] = 'count>=0';
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

/**
 * The most VUs each measurement scenario may use (a paced level's VUs, an arrival-rate level's maxVUs); a
 * ramp's window has the ramp scenario's.
 */
function vusOf(options: Options): (level: string) => number | undefined {
  return (level) => {
    const scenario = (options.scenarios?.[level] ?? options.scenarios?.[RAMP_SCENARIO]) as
      | { vus?: number; maxVUs?: number }
      | undefined;
    return scenario?.maxVUs ?? scenario?.vus;
  };
}

/** A k6 metric a stream request is scored into. */
interface StreamMetric {
  add(value: number | boolean, tags?: Record<string, string>): void;
}

/** The metrics a VU records, made from their definitions (metric-defs.ts), as recorded() says. */
function streamMetrics(openLoop: boolean, turns: number) {
  const made = {} as Record<RecordedGenaiMetricKey, StreamMetric>;
  for (const key of RECORDED_GENAI_METRICS) {
    const def: GenaiMetricDef = GENAI_METRIC_DEFS[key];
    if (!recorded(def, openLoop, turns)) continue;
    const name = def.name!;
    made[key] =
      def.type === 'counter'
        ? new Counter(name)
        : def.type === 'rate'
          ? new Rate(name)
          : new Trend(name, def.time === true);
  }
  return { ...made, record: new Counter(GENAI_RECORD.metric) };
}

/**
 * What one VU's stream requests share, built once in the init context: the requests, where they go, the
 * metrics they are scored into, the gRPC client and the pacer that sends them. The functions below read it.
 */
interface StreamState {
  settings: Settings;
  protocol: StreamProtocol;
  requests: PlannedRequest[];
  /** A multi-turn run's sessions; each iteration plays one. */
  sessions?: PlannedSession[];
  /** Over SSE: the extension's module and each planned request's URL and body; over gRPC, undefined. */
  sse?: ReturnType<typeof loadSseModule>;
  sseRequests?: ReturnType<typeof sseRequest>[];
  /** Where requests go, for the warning line. */
  target: string;
  client: grpc.Client;
  connected: boolean;
  /** A level's failure was logged (once per VU). */
  warned: boolean;
  metrics: ReturnType<typeof streamMetrics>;
  slo: Slo;
  /** Request rate: the scheduled-start latency is recorded when each stream ends. */
  open: boolean;
  pacer: Pacer<undefined>;
  entry: GenerativeModelEntry;
  generative: GenerativeSettings;
  /** The words salts are spelled in; undefined when the requests cannot be salted. */
  saltAlphabet?: string[];
  /** The run's salt from setup(); undefined until the first request, or when salting is off. */
  salt?: number;
  /** Prompts this VU salted so far (the salt's send count). */
  sends: number;
  cancel: CancelPicker;
  /** A ramp (lib/load/ramp.ts): its windows' clock, and the window this VU's requests are tagged with. */
  ramp?: RampWindows;
}

/** Which window of a ramp a VU's request starts in. */
interface RampWindows {
  clock: WindowClock;
  /** The window the VU's `scenario` tag names now; undefined before its first request of the ramp. */
  window?: string;
}

/**
 * Before a ramp's request is sent: its window becomes the VU's `scenario` tag, as a level's own scenario
 * would be (real k6 lets exec.vu.metrics.tags replace it, and so does the Node runtime). A VU has one stream
 * in flight and scores it before its next iteration, so every sample of the request, TTFT to the last token,
 * counts in the window the request STARTED in, even when its stream ends in a later one.
 */
function tagRampWindow(ramp: RampWindows): void {
  ramp.clock.index(Date.now());
  const window = ramp.clock.segment;
  if (window === undefined || window === ramp.window) return;
  ramp.window = window;
  exec.vu.metrics.tags[SCENARIO_TAG] = window;
}

/** The level a request is judged in: a ramp's window (tagRampWindow), else the VU's scenario. */
function levelOf(state: StreamState): string {
  const scenario = exec.scenario.name;
  return scenario === RAMP_SCENARIO ? (state.ramp?.window ?? scenario) : scenario;
}

const STREAM_METHOD = grpcMethod('ModelStreamInfer');

function connect(state: StreamState): void {
  if (state.connected) return;
  state.client.connect(state.settings.grpcUrl, { plaintext: true, timeout: '60s' });
  state.connected = true;
}

/**
 * Hands a measured request's raw record (of `level`) to the outputs (--out json), for `k6-triton rescore`; a
 * session's turn carries its index (`turn`, from 1, as its samples' tag).
 */
function keep(
  state: StreamState,
  record: GenerationRecord,
  level: string,
  tags?: Record<string, string>,
): void {
  if (!parseLevelName(level)) return;
  const metadata = exec.vu.metrics.metadata as Record<string, string>;
  const turn = tags?.[TURN_TAG];
  metadata[GENAI_RECORD.metadata] = JSON.stringify(
    turn === undefined ? record : { ...record, [TURN_TAG]: Number(turn) },
  );
  state.metrics.record.add(1);
  delete metadata[GENAI_RECORD.metadata];
}

/** What became of a request: answered, failed, or cancelled on purpose. */
type Outcome = 'ok' | 'failed' | 'cancelled';

/**
 * The stream kind's scorer: a finished request into the k6 metrics (a session's turn tagged with `tags`); a
 * failure counted and, once per VU, logged; a request cancelled on purpose only counted as cancelled (its record
 * is not kept for rescoring either). Returns what became of it.
 */
function score(
  state: StreamState,
  record: GenerationRecord,
  asked: PlannedRequest,
  cancelled: boolean,
  tags?: Record<string, string>,
): Outcome {
  const { metrics } = state;
  if (cancelled && wasCancelled(record)) {
    metrics.cancelled.add(1, tags);
    return 'cancelled';
  }
  const level = levelOf(state);
  keep(state, record, level, tags);
  const m = requestMetrics(record);
  metrics.failed.add(!m.ok, tags);
  metrics.good.add(meetsSlo(m, state.slo), tags);
  if (!m.ok) {
    // Warm-up requests cut at the window's start end this way by design: only a level's failures are news.
    if (!state.warned && parseLevelName(level))
      console.warn(`${state.settings.modelName} on ${state.target}: ${m.error}`);
    if (parseLevelName(level)) state.warned = true;
    return 'failed';
  }
  metrics.ttft.add(m.ttft_ms!, tags);
  metrics.latency.add(m.latency_ms!, tags);
  if (m.itl_ms !== undefined) metrics.itl.add(m.itl_ms, tags);
  for (const gap of m.gaps_ms) metrics.chunkGap.add(gap, tags);
  metrics.outputTokens.add(m.outputTokens ?? 0, tags);
  metrics.osl.add(m.outputTokens, tags);
  metrics.isl.add(m.inputTokens, tags);
  metrics.requestedOsl.add(asked.outputTokens, tags);
  if (m.outputTokens !== asked.outputTokens) metrics.oslMismatch.add(1, tags);
  return 'ok';
}

/** One request on its own gRPC stream; `finish` scores it when the stream ends. */
function grpcOne(
  state: StreamState,
  asked: PlannedRequest,
  body: Record<string, unknown>,
  timeout: string,
  finish: (record: GenerationRecord) => void,
): void {
  connect(state);
  const stream = new grpc.Stream(state.client, STREAM_METHOD, { timeout });
  // The send time is stamped at the write, as perf_analyzer stamps a streamed request's: setting up the stream
  // object is the client's work, not the request's time.
  const record = newRecord(0, asked.inputTokens);
  stream.on('data', (message: unknown) => {
    const at = now();
    recordDecoupled(record, readDecoupledResponse(message), at);
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
  stream.write(body);
  // Half-closed at once: the server still sends every response, then ends the stream. Never from a 'data'
  // handler: k6's task queue can run a response after the stream has closed, and end() then blocks the VU
  // for good (k6 v2.2.0, grpc stream.go: the write loop it sends to has gone).
  stream.end();
}

/** This VU's next salt key (lib/genai/salt.ts): the run's salt, the VU and its send count, counted. */
function nextSaltKey(state: StreamState): SaltKey | undefined {
  if (state.salt === undefined || !state.saltAlphabet) return undefined;
  const key = { run: state.salt, vu: exec.vu.idInTest, send: state.sends };
  state.sends += 1;
  return key;
}

/**
 * The request's prompt salted for this send with `key` (a session's, the same for all its turns), else with
 * the VU's next key; undefined when salting is off or impossible.
 */
function saltedFor(state: StreamState, asked: PlannedRequest, key?: SaltKey): string | undefined {
  if (!asked.salt || !asked.prompt || !state.saltAlphabet) return undefined;
  const k = key ?? nextSaltKey(state);
  return k && saltedPrompt(asked.prompt, asked.salt, state.saltAlphabet, k);
}

/**
 * Request `i` of the planned ones (round robin) over gRPC or SSE; the iteration lasts until its stream ends.
 * `due_ms`: its scheduled send, in an open loop, for the scheduled-start latency when the stream ends.
 */
function streamOne(state: StreamState, i: number, due_ms?: number): void {
  streamRequest(
    state,
    i % state.requests.length,
    due_ms === undefined ? undefined : () => state.pacer.ended(due_ms),
  );
}

/**
 * Planned request `i` over gRPC or SSE, salted (with a session's `saltKey` when given) and cancelled as the run
 * asks; when its stream ends it is scored (its samples tagged with `tags`), then `ended` hears what became of it.
 */
function streamRequest(
  state: StreamState,
  i: number,
  ended?: (outcome: Outcome) => void,
  tags?: Record<string, string>,
  saltKey?: SaltKey,
): void {
  const asked = state.requests[i]!;
  const cancel = state.cancel.next();
  // A cancelled request's stream times out at its delay: k6's one per-stream cancel (cancel.ts).
  const timeout = cancel ? cancelTimeout(state.generative.cancelDelay_ms) : '120s';
  const done = (record: GenerationRecord) => {
    const outcome = score(state, record, asked, cancel, tags);
    ended?.(outcome);
  };
  const prompt = saltedFor(state, asked, saltKey);
  const inputs = prompt ? promptInputs(state.generative.backend, prompt, asked.outputTokens) : undefined;
  if (!state.sseRequests) {
    grpcOne(state, asked, inputs ? requestBody(state.settings.modelName, inputs) : asked.body, timeout, done);
    return;
  }
  const request = inputs
    ? sseRequest(
        state.protocol as SseProtocol,
        state.settings.url,
        state.settings.modelName,
        Object.fromEntries(inputs.map((t) => [t.name, t.values])),
        state.entry,
      )
    : state.sseRequests[i % state.sseRequests.length]!;
  streamSse({
    protocol: state.protocol as SseProtocol,
    sse: state.sse!,
    request,
    headers: state.settings.headers,
    inputTokens: asked.inputTokens,
    timeout,
    now,
    score: done,
  });
}

/**
 * Session `i` of the planned ones (round robin) on this VU and its connection: each turn sent when the one
 * before has ended and its think time passed; a failed turn ends the session (its answer is missing from the
 * next turn's history). The promise resolves when the session is over, so the iteration lasts as long under
 * both runtimes. `due_ms`: the session's scheduled start, in an open loop; its first turn's end closes it.
 */
function streamSession(state: StreamState, i: number, due_ms?: number): Promise<void> {
  const sessions = state.sessions!;
  const session = sessions[i % sessions.length]!;
  const { metrics } = state;
  const start = now();
  // The level the session belongs to: a session its level's end cut sends no more turns (under the Node
  // runtime a cut iteration's timers could otherwise fire into the next scenario; real k6 drops them).
  const level = exec.scenario.name;
  // One salt for the whole session: its turns differ from every other session's, and each turn's history is
  // the next turn's prefix as sent, so the server's prefix cache serves the session.
  const saltKey = nextSaltKey(state);
  return new Promise((resolve) => {
    // Only a session's turns carry their index: a warm-up's single requests would count in no session.
    const turn = (k: number): void =>
      streamRequest(
        state,
        session.requests[k]!,
        ended(k),
        state.requests[session.requests[k]!]!.tags,
        saltKey,
      );
    const ended = (k: number) => (outcome: Outcome) => {
      if (k === 0 && due_ms !== undefined) state.pacer.ended(due_ms);
      // A cancelled turn is a user leaving: the session ends, counted in genai_cancelled only.
      if (outcome === 'cancelled') resolve();
      else if (outcome === 'failed') {
        metrics.sessionsFailed.add(1);
        resolve();
      } else if (k + 1 === session.requests.length) {
        metrics.sessionDuration.add(now() - start);
        metrics.sessions.add(1);
        resolve();
      } else {
        const delay = session.delays_ms[k + 1]!;
        const next = () => (exec.scenario.name === level ? turn(k + 1) : resolve());
        // No timer for no think time: the next turn leaves as the answer ends.
        if (delay > 0) setTimeout(next, delay);
        else next();
      }
    };
    turn(0);
  });
}

/** Takes the run's salt from setup()'s data, once per VU. */
function takeSalt(state: StreamState, data: SetupData | undefined): void {
  if (state.salt === undefined && typeof data?.salt === 'number') state.salt = data.salt;
}

/**
 * The stream kind's send, called by the pacer when the request is due: a recorded schedule (a trace) names
 * the request each send makes; otherwise send n makes request n.
 */
function sendStream(state: StreamState): void | Promise<void> {
  const { pacer } = state;
  if (state.sessions)
    return state.open ? streamSession(state, pacer.slot(), pacer.due()) : streamSession(state, pacer.slot());
  if (state.open) streamOne(state, pacer.named() ?? pacer.slot(), pacer.due());
  else streamOne(state, pacer.slot());
}

/** setup(): over gRPC, the server answers and the model is ready; else one readable line. */
async function checkReady(state: StreamState): Promise<void> {
  const { settings, client } = state;
  // Over SSE a server that does not answer fails every request with its error instead.
  if (state.sseRequests) return;
  // One readable line when nothing answers or the model is not there.
  try {
    connect(state);
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
}

/** The level results, a line per level, token and schedule lines and the verdict. */
function levelLines(
  data: Record<string, unknown>,
  run: RunPlan,
  context: { slo: Slo; sources: TokenSources; env: Record<string, string | undefined> },
): { results: LevelResult[]; lines: string[] } {
  const results = generativeLevels(data as K6SummaryData, run.plan.levels, {
    slo: context.slo,
    vus: vusOf(run.options),
    capped: maxVusFromEnv(context.env) !== undefined,
    sources: context.sources,
  });
  const missed = missedBudgetLines(results);
  const lines = [
    ...generativeLines(results),
    ...conversationLines(results),
    ...tokenLines(results),
    ...scheduleLines(results),
    ...missed,
  ];
  const { verdict, reasons } = judgeLevels(
    results,
    run.plan.levels.map((l) => l.name),
  );
  lines.push(runVerdictLine(verdict, reasons));
  return { results, lines };
}

/** The end-of-test summary: a line per level, token and schedule lines, the verdict; the JSON files asked for. */
function summary(
  data: Record<string, unknown>,
  run: RunPlan,
  context: { slo: Slo; sources: TokenSources; env: Record<string, string | undefined> },
): Record<string, string> {
  const { env } = context;
  const { results, lines } = levelLines(data, run, context);
  const out: Record<string, string> = { stdout: `${lines.join('\n')}\n` };
  if (env.SUMMARY_JSON) out[env.SUMMARY_JSON] = JSON.stringify(data);
  if (env.LEVELS_JSON) out[env.LEVELS_JSON] = JSON.stringify(results);
  return out;
}

/**
 * The entry a multi-turn run plans with: an iteration lasts a session, its average turns of the calibrated
 * stream and its average think time, so an open-loop level starts with VUs for the sessions it keeps in flight.
 */
export function sessionEntry(model: ModelEntry, workload: ConversationWorkload): ModelEntry {
  const request_s = model.load.request_s;
  if (request_s === undefined) return model;
  let turns = 0;
  let think_ms = 0;
  for (const c of workload.conversations)
    for (const t of c.turns) {
      turns++;
      think_ms += t.delay_ms;
    }
  const sessions = workload.conversations.length;
  const session_s = (turns / sessions) * request_s + think_ms / sessions / 1000;
  return { ...model, load: { ...model.load, request_s: session_s } };
}

/**
 * Builds the generative scenario; call at the top level (init context) with the text of its budget file (and,
 * in a model mix, the model's own settings with its MIX_SLOT).
 */
export function generativeTest(
  entry: GenerativeModelEntry,
  budgetJson: string,
  budgetPath: string,
  env: Record<string, string | undefined> = __ENV,
): GenerativeTest {
  // The workload is read once though both the plan (a session's length) and the requests need it.
  const texts: Record<string, string> = {};
  const readText = (path: string): string => {
    texts[path] ??= open(path);
    return texts[path]!;
  };
  // The same resolver as the bench's (measure/core/target.ts): both sides agree on levels, windows, budget;
  // a multi-turn run's iteration is a session, so its open-loop levels get VUs for sessions in flight.
  const model = generativeModelEntry(entry);
  const payloadText = env.PAYLOAD ? readText(env.PAYLOAD) : '';
  const scaled = isConversationWorkload(payloadText)
    ? sessionEntry(model, parseConversationWorkload(payloadText, env.PAYLOAD!))
    : model;
  const run = resolveRunPlan(scaled, env, budgetJson, budgetPath, readText);
  const { settings } = run;
  const protocol = settings.protocol as StreamProtocol;
  const { requests, inputSource, saltAlphabet, sessions } = plannedRequests(
    entry,
    settings.modelName,
    run.generative!,
    settings.payload,
    readText,
  );
  // OpenAI streams end with usage, the server's own counts (record.ts takes them); elsewhere output lengths come
  // from the stream's responses, one token each as the LLM backends stream: an estimate.
  const fromServer = protocol === 'openai-chat' || protocol === 'openai-completions';
  const sources: TokenSources = fromServer
    ? { input: 'server', output: 'server' }
    : { input: inputSource, output: 'estimate' };
  const { tokens } = run;
  const slo = budgetSlo(tokens, run.limits.p95_ms);
  // A multi-turn run: the most turns of a session, whose figures are reported turn by turn.
  const turns = sessions?.reduce((most, x) => Math.max(most, x.requests.length), 0) ?? 0;
  const options: Options = {
    ...run.options,
    // genai-perf's exports have p1, p5, p10, p25 and p75 as well (lib/genai/genai-perf-csv.ts, -json.ts).
    summaryTrendStats: [...(run.options.summaryTrendStats ?? []), 'p(1)', 'p(5)', 'p(10)', 'p(25)', 'p(75)'],
    thresholds: thresholds(run, tokens, turns),
  };
  const windowRecord = createWindowRecord(env);
  const overGrpc = protocol === 'grpc';
  // Over SSE: the extension's module (or one line naming it) and each planned request's URL and body, built
  // once; over gRPC its proto.
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
  const client = new grpc.Client();
  if (overGrpc) client.load(['../proto'], 'grpc_service.proto');
  const blocking = blockingCallsAllowed();
  // Open loop: when each measured request was due, and how late it left and ended against that (the pacer).
  const openLoop = run.load.mode === 'request-rate';
  const metrics = streamMetrics(openLoop, turns);
  // A ramp is one scenario cut into windows, each judged as a level (lib/load/ramp.ts).
  const ramp = run.load.ramp;
  const rampWindows = ramp
    ? {
        clock: new WindowClock(
          run.load.window_s,
          () => exec.scenario.startTime,
          1,
          run.plan.levels.map((l) => l.name),
        ),
      }
    : undefined;
  const state: StreamState = {
    settings,
    protocol,
    requests,
    ...(sessions ? { sessions } : {}),
    ...(overGrpc ? {} : { sse: loadSseModule(protocol), sseRequests }),
    target: sseRequests?.[0]?.url ?? settings.grpcUrl,
    client,
    connected: false,
    warned: false,
    metrics,
    slo,
    open: openLoop,
    entry,
    generative: run.generative!,
    ...(saltAlphabet ? { saltAlphabet } : {}),
    sends: 0,
    cancel: cancelPicker(run.generative!.cancelShare),
    ...(rampWindows ? { ramp: rampWindows } : {}),
    pacer: createPacer<undefined>({
      exec,
      blocking,
      send: () => sendStream(state),
      ...(openLoop
        ? {
            open: {
              scheduledLatency: createScheduledLatency(),
              ...(run.load.pacing ? { schedule: run.levelSchedule } : {}),
              sleep: sleepFor(blocking),
              sendLag: { lag: metrics.sendLag, late: metrics.lateSends, lateAfter_ms: LATE_SEND_MS },
              endsLater: true,
              ...(ramp ? { rampDue_ms: (slot: number) => rampDue_ms(ramp, slot) } : {}),
            },
          }
        : {}),
    }),
  };

  return {
    options,
    run,
    async setup(): Promise<SetupData> {
      await checkReady(state);
      return { salt: runSalt(run.generative!.promptSalt) ?? null };
    },
    warmup(data) {
      takeSalt(state, data);
      streamOne(state, exec.scenario.iterationInTest);
    },
    infer(data) {
      takeSalt(state, data);
      // Before the pacer: an open loop's send lag is recorded as the request leaves, in its window.
      if (state.ramp) tagRampWindow(state.ramp);
      return state.pacer.iteration(undefined);
    },
    async stats(): Promise<void> {
      windowRecord.add(Date.now(), run.load.window_s);
      await new Promise((resolve) => setTimeout(resolve, run.load.window_s * 1000));
    },
    handleSummary: (data) => summary(data, run, { slo, sources, env }),
    levelLines: (data) => levelLines(data, run, { slo, sources, env }),
  };
}
