/**
 * The generative scenario's level results, read from k6's end-of-test summary data: per level, requests/s,
 * output tokens/s and the TTFT, ITL, latency and token-gap distributions recorded under their own names
 * (names.ts), as the LevelResult the bench's reports read, with the token figures under `genai`. Pure.
 */
import { DEFAULT_STABILITY_PCT } from '../load/shapes.ts';
import type { PlannedLevel } from '../load/scenarios.ts';
import { SCHEDULED_LATENCY_METRIC, subMetricKey } from '../load/names.ts';
import { type K6SummaryData, latencyStats_us, normalize, verdicts } from '../summary/from-summary.ts';
import type {
  GenaiPerfStats,
  GenerativeConversation,
  GenerativeGoodput,
  GenerativeLevel,
  GenerativeSchedule,
  LevelResult,
  TimeStats_ms,
} from '../summary/types.ts';
import { ms_to_us } from '../units.ts';
import type { Slo } from './metrics.ts';
import { GENAI_METRICS, turnMetricKey } from './names.ts';

/** What the summary alone does not say: the SLOs goodput was judged on, and each level's VU cap. */
export interface LevelContext {
  slo?: Pick<Slo, 'ttft_ms' | 'itl_ms' | 'latency_ms'>;
  /** The most VUs a level's scenario could use, by its name. */
  vus?: (level: string) => number | undefined;
  /** The user bounded the VUs (MAX_VUS). */
  capped?: boolean;
  /** Where ISL and OSL came from. */
  sources?: TokenSources;
}

/** Where a run's ISL and OSL came from (lib/genai/workload.ts TokenSource). */
export type TokenSources = NonNullable<GenerativeLevel['token_sources']>;

function values(data: K6SummaryData, metric: string, level: string): Record<string, number> {
  return normalize(data.metrics[subMetricKey(metric, level)])?.values ?? {};
}

function timeStats(v: Record<string, number>): TimeStats_ms {
  return {
    avg: v['avg'] ?? 0,
    p50: v['p(50)'] ?? v['med'] ?? 0,
    p95: v['p(95)'] ?? 0,
    p99: v['p(99)'] ?? 0,
    min: v['min'] ?? 0,
    max: v['max'] ?? 0,
  };
}

function genaiPerfStats(v: Record<string, number>): GenaiPerfStats {
  return {
    avg: v['avg'] ?? 0,
    p1: v['p(1)'] ?? 0,
    p5: v['p(5)'] ?? 0,
    p10: v['p(10)'] ?? 0,
    min: v['min'] ?? 0,
    max: v['max'] ?? 0,
    p99: v['p(99)'] ?? 0,
    p95: v['p(95)'] ?? 0,
    p90: v['p(90)'] ?? 0,
    p75: v['p(75)'] ?? 0,
    p50: v['p(50)'] ?? v['med'] ?? 0,
    p25: v['p(25)'] ?? 0,
  };
}

/** A level's goodput from the genai_good Rate; undefined when no SLO was set or nothing was recorded. */
function goodput(
  data: K6SummaryData,
  ref: PlannedLevel,
  slo: LevelContext['slo'],
): GenerativeGoodput | undefined {
  if (!slo || Object.values(slo).every((bound) => bound === undefined)) return undefined;
  const good = values(data, GENAI_METRICS.good, ref.name);
  const passes = good['passes'];
  if (passes === undefined) return undefined;
  const all = passes + (good['fails'] ?? 0);
  return {
    slo,
    good_requests: passes,
    good_fraction: all > 0 ? passes / all : 0,
    requests_per_s: passes / ref.window_s,
  };
}

/** An open-loop level's send lag; undefined in closed loop or when no send was recorded. */
function schedule(
  data: K6SummaryData,
  ref: PlannedLevel,
  context: LevelContext,
): GenerativeSchedule | undefined {
  if (ref.mode !== 'request-rate') return undefined;
  const lag = values(data, GENAI_METRICS.sendLag, ref.name);
  const sends = lag['count'];
  if (sends === undefined || sends === 0) return undefined;
  const vus = context.vus?.(ref.name);
  return {
    sends,
    late_sends: values(data, GENAI_METRICS.lateSends, ref.name)['count'] ?? 0,
    send_lag_ms: timeStats(lag),
    ...(vus !== undefined ? { vus } : {}),
    ...(context.capped ? { capped: true } : {}),
  };
}

/**
 * A multi-turn level's sessions and its turns' figures, read from the per-turn sub-metrics the scenario's
 * probes made (`genai_ttft{scenario:c2,turn:1}`, ...); undefined for a single-turn run.
 */
function conversation(data: K6SummaryData, ref: PlannedLevel): GenerativeConversation | undefined {
  const sessions = values(data, GENAI_METRICS.sessions, ref.name)['count'];
  const failed = values(data, GENAI_METRICS.sessionsFailed, ref.name)['count'];
  if (sessions === undefined && failed === undefined) return undefined;
  const turns: GenerativeConversation['turns'] = [];
  for (let turn = 1; data.metrics[turnMetricKey(GENAI_METRICS.ttft, ref.name, turn)]; turn++) {
    const at = (metric: string) =>
      normalize(data.metrics[turnMetricKey(metric, ref.name, turn)])?.values ?? {};
    const latency = at(GENAI_METRICS.latency);
    const requests = latency['count'] ?? 0;
    if (requests === 0) continue;
    turns.push({
      turn,
      requests,
      ttft_ms: timeStats(at(GENAI_METRICS.ttft)),
      latency_ms: timeStats(latency),
      isl_avg: at(GENAI_METRICS.isl)['avg'] ?? 0,
    });
  }
  return {
    sessions: sessions ?? 0,
    failed_sessions: failed ?? 0,
    session_duration_ms: timeStats(values(data, GENAI_METRICS.sessionDuration, ref.name)),
    turns,
  };
}

/** One level's result; undefined when the level recorded no request (the run ended before it). */
function levelResult(data: K6SummaryData, ref: PlannedLevel, context: LevelContext): LevelResult | undefined {
  const latency = values(data, GENAI_METRICS.latency, ref.name);
  const failed = values(data, GENAI_METRICS.failed, ref.name);
  const requests = latency['count'] ?? 0;
  const errors = failed['passes'] ?? 0;
  const cancelled = values(data, GENAI_METRICS.cancelled, ref.name)['count'] ?? 0;
  if (requests + errors + cancelled === 0) return undefined;
  const tokens = values(data, GENAI_METRICS.outputTokens, ref.name)['count'] ?? 0;
  const isl = values(data, GENAI_METRICS.isl, ref.name);
  // The ISL trend holds one sample per successful request: its mean times its count is their input tokens.
  const inputTokens = (isl['avg'] ?? 0) * (isl['count'] ?? requests);
  const genai: GenerativeLevel = {
    requests_per_s: requests / ref.window_s,
    output_tokens: tokens,
    output_tokens_per_s: tokens / ref.window_s,
    input_tokens_per_s: inputTokens / ref.window_s,
    ttft_ms: timeStats(values(data, GENAI_METRICS.ttft, ref.name)),
    itl_ms: timeStats(values(data, GENAI_METRICS.itl, ref.name)),
    latency_ms: timeStats(latency),
    chunk_gap_ms: timeStats(values(data, GENAI_METRICS.chunkGap, ref.name)),
    genai_perf: {
      ttft_ms: genaiPerfStats(values(data, GENAI_METRICS.ttft, ref.name)),
      itl_ms: genaiPerfStats(values(data, GENAI_METRICS.itl, ref.name)),
      latency_ms: genaiPerfStats(latency),
      osl: genaiPerfStats(values(data, GENAI_METRICS.osl, ref.name)),
      isl: genaiPerfStats(values(data, GENAI_METRICS.isl, ref.name)),
    },
    requested_osl: genaiPerfStats(values(data, GENAI_METRICS.requestedOsl, ref.name)),
    osl_mismatches: values(data, GENAI_METRICS.oslMismatch, ref.name)['count'] ?? 0,
    ...(cancelled > 0 ? { cancelled_requests: cancelled } : {}),
    ...(context.sources ? { token_sources: context.sources } : {}),
  };
  const good = goodput(data, ref, context.slo);
  if (good) genai.goodput = good;
  const sends = schedule(data, ref, context);
  if (sends) genai.schedule = sends;
  const sessions = conversation(data, ref);
  if (sessions) genai.conversation = sessions;
  const scheduled = values(data, SCHEDULED_LATENCY_METRIC, ref.name);
  const l = genai.latency_ms;
  return {
    mode: ref.mode,
    level: ref.level,
    name: ref.name,
    window_s: ref.window_s,
    requests,
    inferences: requests,
    throughput_infer_s: genai.requests_per_s,
    latency_us: {
      avg: ms_to_us(l.avg),
      p50: ms_to_us(l.p50),
      p90: ms_to_us(latency['p(90)'] ?? 0),
      p95: ms_to_us(l.p95),
      p99: ms_to_us(l.p99),
      min: ms_to_us(l.min),
      max: ms_to_us(l.max),
    },
    client_send_us: 0,
    client_recv_us: 0,
    network_server_us: 0,
    errors,
    dropped_iterations: values(data, 'dropped_iterations', ref.name)['count'] ?? 0,
    ...((scheduled['count'] ?? 0) > 0 ? { scheduled_latency_us: latencyStats_us(scheduled) } : {}),
    // Generative levels keep no sub-windows: their verdicts are judged on samples and successes alone.
    budgets: verdicts(data, ref.name, {
      succeeded: Math.max(0, requests - errors),
      stability_pct: DEFAULT_STABILITY_PCT,
    }),
    genai,
  };
}

/** The measured levels, in run order. */
export function generativeLevels(
  data: K6SummaryData,
  levels: readonly PlannedLevel[],
  context: LevelContext = {},
): LevelResult[] {
  return levels.flatMap((ref) => levelResult(data, ref, context) ?? []);
}

/**
 * The token lines under the levels: where ISL and OSL came from, and a warning per level where requests
 * produced another output length than they asked for (a server stopping early, or counting differently).
 */
export function tokenLines(results: readonly LevelResult[]): string[] {
  const lines: string[] = [];
  const sources = results[0]?.genai?.token_sources;
  if (sources) lines.push(`token counts: ISL from ${sources.input}, OSL from ${sources.output}`);
  for (const r of results) {
    const g = r.genai!;
    if (g.cancelled_requests)
      lines.push(
        `${r.name}: ${g.cancelled_requests} requests cancelled on purpose (REQUEST_CANCELLATION_RATE), left out of TTFT, ITL, latency and errors`,
      );
    if (g.osl_mismatches)
      lines.push(
        `warning: ${r.name}: ${g.osl_mismatches} of ${r.requests} requests produced an output length other than asked ` +
          `(OSL avg ${g.genai_perf!.osl.avg.toFixed(2)}, asked avg ${g.requested_osl!.avg.toFixed(2)})`,
      );
  }
  return lines;
}

/** One line per level: what the summary's table shows, for stdout. */
export function generativeLines(results: readonly LevelResult[]): string[] {
  const f = (n: number) => n.toFixed(2);
  return results.map((r) => {
    const g = r.genai!;
    return (
      `${r.name}: ${f(g.requests_per_s)} req/s, ${f(g.output_tokens_per_s)} output tokens/s, ` +
      `TTFT p50/p95/p99 ${f(g.ttft_ms.p50)}/${f(g.ttft_ms.p95)}/${f(g.ttft_ms.p99)} ms, ` +
      `ITL p50/p95/p99 ${f(g.itl_ms.p50)}/${f(g.itl_ms.p95)}/${f(g.itl_ms.p99)} ms, ` +
      `latency avg ${f(g.latency_ms.avg)} ms, errors ${r.errors}` +
      (g.goodput
        ? `, goodput ${f(g.goodput.requests_per_s)} req/s (${(g.goodput.good_fraction * 100).toFixed(1)}% met every SLO)`
        : '')
    );
  });
}

/** A multi-turn run's lines, one per level: its sessions, their duration, and TTFT and ISL turn by turn. */
export function conversationLines(results: readonly LevelResult[]): string[] {
  const f = (n: number) => n.toFixed(2);
  return results.flatMap((r) => {
    const c = r.genai?.conversation;
    if (!c) return [];
    const d = c.session_duration_ms;
    const byTurn = c.turns.map((t) => `${t.turn}: ${f(t.ttft_ms.p50)} ms, ISL ${Math.round(t.isl_avg)}`);
    return [
      `${r.name} sessions: ${c.sessions} completed, ${c.failed_sessions} failed, duration p50/p95 ${f(d.p50)}/${f(d.p95)} ms; ` +
        `TTFT p50 by turn ${byTurn.join('; ')}`,
    ];
  });
}
