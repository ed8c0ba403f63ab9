/**
 * Generative-model metrics from raw per-request records (send time, every response's arrival time and token
 * count, error). Pure; runs inside k6 and on Node. docs/generative-metrics.md gives the same definitions for users.
 *
 * Per request (successful requests only; times in ms on one clock):
 * - counted chunks: with `firstToken: 'non-empty'` (the default, genai-perf's choice on OpenAI endpoints)
 *   responses carrying no token (a role-only first chunk, a finish-only or empty final response) are
 *   dropped; with 'any' (vLLM's `vllm bench serve`) every response counts.
 * - TTFT = first counted chunk's arrival - send.
 * - time to second token = second counted chunk's arrival - first's (genai-perf's definition: measured from
 *   the first token, not from the send); none with fewer than two chunks.
 * - latency = last counted chunk's arrival - send.
 * - OSL = the server's output token count when the record has one (OpenAI usage), else the sum of the
 *   chunks' token counts. ISL = the record's input token count.
 * - ITL = (latency - TTFT) / (OSL - 1), only when OSL > 1 (genai-perf's inter_token_latency, vLLM's TPOT;
 *   genai-perf rounds it to whole ns, this does not).
 * - chunk gaps = arrival differences of consecutive counted chunks, pooled over requests (vLLM's ITL;
 *   genai-perf divides each gap by the tokens of the later chunk, this does not).
 * - tokens/s per user = OSL / latency (genai-perf's output token throughput per user).
 * A request fails when its record has an error (an error event mid-stream included: the tokens before it
 * do not count) or when no chunk is counted ("no token received"); failures count as errors only.
 *
 * Per level, over a window (default: first send to last arrival of any request, genai-perf's span; vLLM uses
 * its run's wall time, which the caller passes as `window`):
 * - request throughput = successful requests / window (vLLM; genai-perf divides all requests).
 * - output token throughput = sum of successful requests' OSL / window.
 * - goodput = requests meeting every SLO given / window; a time SLO holds when value <= bound (a request with
 *   OSL <= 1 has no ITL and passes the ITL SLO, vLLM's rule), a tokens/s-per-user SLO when value >= bound.
 * Consistency: latency = TTFT + (OSL - 1) x ITL per request; at concurrency 1 with requests back to back and
 * one OSL, output token throughput = request throughput x OSL.
 */
import { type Stats, summarize } from './stats.ts';

/** One response (chunk) of a streamed request as the client saw it. */
export interface ChunkRecord {
  /** Arrival time, ms (same clock as the send). */
  at_ms: number;
  /**
   * Output tokens the response carried: 0 for a role-only, finish-only or empty final response; where a
   * response's tokens are not counted, 1 for one with content (the record's outputTokens then gives the total).
   */
  tokens: number;
}

/** One request as recorded: what the metrics are computed from, so a run can be re-scored offline. */
export interface GenerationRecord {
  /** Send time, ms. */
  sent_ms: number;
  /** Every response in arrival order. */
  chunks: ChunkRecord[];
  /** Input (prompt) tokens. */
  inputTokens: number;
  /** The server's own output token count (OpenAI usage.completion_tokens), which wins over the chunks' sum. */
  outputTokens?: number;
  /** Set when the request failed, before or during the stream. */
  error?: string;
  /** When the stream ended or failed, ms (bounds the window for failed requests). */
  done_ms?: number;
}

/** Which response is the first token. */
export type FirstToken = 'non-empty' | 'any';

/** Options of the per-request metrics. */
export interface RequestMetricOptions {
  /** @default 'non-empty' */
  firstToken?: FirstToken;
}

/** One request's metrics; the timing fields are set when `ok`. */
export interface RequestMetrics {
  ok: boolean;
  error?: string;
  ttft_ms?: number;
  ttst_ms?: number;
  latency_ms?: number;
  /** (latency - TTFT) / (OSL - 1); undefined when OSL <= 1. */
  itl_ms?: number;
  /** Gaps between consecutive counted chunks. */
  gaps_ms: number[];
  inputTokens: number;
  outputTokens: number;
  /** OSL / latency, tokens/s. */
  tokensPerSecond?: number;
}

/** Metrics of one request from its record. */
export function requestMetrics(record: GenerationRecord, opts: RequestMetricOptions = {}): RequestMetrics {
  const failed = (error: string): RequestMetrics => ({
    ok: false,
    error,
    gaps_ms: [],
    inputTokens: record.inputTokens,
    outputTokens: 0,
  });
  if (record.error !== undefined) return failed(record.error);
  const firstToken = opts.firstToken ?? 'non-empty';
  const counted = firstToken === 'any' ? record.chunks : record.chunks.filter((c) => c.tokens > 0);
  if (counted.length === 0) return failed('no token received');
  const first = counted[0]!;
  const last = counted[counted.length - 1]!;
  const ttft_ms = first.at_ms - record.sent_ms;
  const latency_ms = last.at_ms - record.sent_ms;
  let chunkTokens = 0;
  for (const c of record.chunks) chunkTokens += c.tokens;
  const outputTokens = record.outputTokens ?? chunkTokens;
  const gaps_ms: number[] = [];
  for (let i = 1; i < counted.length; i++) gaps_ms.push(counted[i]!.at_ms - counted[i - 1]!.at_ms);
  return {
    ok: true,
    ttft_ms,
    ttst_ms: gaps_ms[0],
    latency_ms,
    itl_ms: outputTokens > 1 ? (latency_ms - ttft_ms) / (outputTokens - 1) : undefined,
    gaps_ms,
    inputTokens: record.inputTokens,
    outputTokens,
    tokensPerSecond: latency_ms > 0 ? outputTokens / (latency_ms / 1000) : undefined,
  };
}

/** Service-level objectives for goodput; a request is good when every one given holds. */
export interface Slo {
  ttft_ms?: number;
  itl_ms?: number;
  latency_ms?: number;
  /** The least tokens/s per user (genai-perf's output_token_throughput_per_request SLO). */
  minTokensPerUser?: number;
}

/** Options of the level metrics. */
export interface LevelMetricOptions extends RequestMetricOptions {
  slo?: Slo;
  /** The measured window, ms; by default first send to last arrival. */
  window?: { start_ms: number; end_ms: number };
}

/** One load level's metrics. */
export interface LevelMetrics {
  requests: number;
  completed: number;
  errors: number;
  /** Error messages and how often each occurred. */
  errorCounts: Record<string, number>;
  window_s: number;
  /** Successful requests/s. */
  requestThroughput: number;
  /** Output tokens of successful requests per second. */
  outputTokenThroughput: number;
  /** Requests meeting every SLO, per second; undefined without SLOs. */
  goodput?: number;
  goodRequests?: number;
  ttft_ms?: Stats;
  ttst_ms?: Stats;
  latency_ms?: Stats;
  itl_ms?: Stats;
  /** Every gap between consecutive chunks, pooled over requests. */
  chunkGaps_ms?: Stats;
  inputTokens?: Stats;
  outputTokens?: Stats;
  tokensPerUser?: Stats;
}

/** Whether a successful request meets every SLO given (an absent ITL, OSL <= 1, passes; an absent tokens/s fails). */
export function meetsSlo(m: RequestMetrics, slo: Slo): boolean {
  if (!m.ok) return false;
  if (slo.ttft_ms !== undefined && !(m.ttft_ms! <= slo.ttft_ms)) return false;
  if (slo.latency_ms !== undefined && !(m.latency_ms! <= slo.latency_ms)) return false;
  if (slo.itl_ms !== undefined && m.itl_ms !== undefined && !(m.itl_ms <= slo.itl_ms)) return false;
  if (slo.minTokensPerUser !== undefined && !((m.tokensPerSecond ?? 0) >= slo.minTokensPerUser)) return false;
  return true;
}

/** The default window: first send to the last arrival (or failure) of any request. */
export function recordsWindow(records: readonly GenerationRecord[]): { start_ms: number; end_ms: number } {
  let start_ms = Number.POSITIVE_INFINITY;
  let end_ms = Number.NEGATIVE_INFINITY;
  for (const r of records) {
    start_ms = Math.min(start_ms, r.sent_ms);
    const last = r.chunks[r.chunks.length - 1];
    if (last) end_ms = Math.max(end_ms, last.at_ms);
    if (r.done_ms !== undefined) end_ms = Math.max(end_ms, r.done_ms);
  }
  if (!Number.isFinite(start_ms) || !Number.isFinite(end_ms)) return { start_ms: 0, end_ms: 0 };
  return { start_ms, end_ms };
}

/** Metrics of one load level from its requests' records. */
export function levelMetrics(
  records: readonly GenerationRecord[],
  opts: LevelMetricOptions = {},
): LevelMetrics {
  const per = records.map((r) => requestMetrics(r, opts));
  const ok = per.filter((m) => m.ok);
  const window = opts.window ?? recordsWindow(records);
  const window_s = (window.end_ms - window.start_ms) / 1000;
  const rate = (n: number) => (window_s > 0 ? n / window_s : 0);
  const errorCounts: Record<string, number> = {};
  for (const m of per) if (!m.ok) errorCounts[m.error!] = (errorCounts[m.error!] ?? 0) + 1;
  let outputTokens = 0;
  for (const m of ok) outputTokens += m.outputTokens;
  const goodRequests = opts.slo ? ok.filter((m) => meetsSlo(m, opts.slo!)).length : undefined;
  const defined = (values: (number | undefined)[]) => values.filter((v): v is number => v !== undefined);
  return {
    requests: records.length,
    completed: ok.length,
    errors: records.length - ok.length,
    errorCounts,
    window_s,
    requestThroughput: rate(ok.length),
    outputTokenThroughput: rate(outputTokens),
    goodput: goodRequests === undefined ? undefined : rate(goodRequests),
    goodRequests,
    ttft_ms: summarize(defined(ok.map((m) => m.ttft_ms))),
    ttst_ms: summarize(defined(ok.map((m) => m.ttst_ms))),
    latency_ms: summarize(defined(ok.map((m) => m.latency_ms))),
    itl_ms: summarize(defined(ok.map((m) => m.itl_ms))),
    chunkGaps_ms: summarize(ok.flatMap((m) => m.gaps_ms)),
    inputTokens: summarize(ok.map((m) => m.inputTokens)),
    outputTokens: summarize(ok.map((m) => m.outputTokens)),
    tokensPerUser: summarize(defined(ok.map((m) => m.tokensPerSecond))),
  };
}
