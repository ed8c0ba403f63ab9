/**
 * Builds LevelResult records from k6 summary data: handleSummary's `data` object (real k6 and the Node
 * runtime) or a `--summary-export` file. Pure: plain data in, records out. Milliseconds become
 * microseconds through lib/units.ts.
 */
import {
  HTTP_FAILED_METRIC,
  INFER_CHECKED_METRIC,
  errorMetricFor,
  INFER_INVALID_METRIC,
  parseLevelName,
  type RequestMetric,
  SCHEDULED_LATENCY_METRIC,
  SERVER_COUNTERS,
  type ServerCounterField,
  statsName,
  subMetricKey,
  subWindowKey,
} from '../load/names.ts';
import type { LoadMode } from '../load/shapes.ts';
import { serverAverages_us, type ServerStatsDelta } from '../load/server-stats.ts';
import { judgeStability, type WindowRecord } from '../load/stability.ts';
import { isProbeExpr } from '../budget.ts';
import { parseThresholdExpr, thresholdPasses } from '../load/threshold-expr.ts';
import { firstErrors, firstInvalid, levelFailure } from './failure.ts';
import { judgeLevels, judgeVerdict, runVerdict } from './judge.ts';
import { DEFAULT_STABILITY_PCT } from '../load/shapes.ts';
import { cutAfter_s, windowStart_ms } from './partial.ts';
import type {
  BudgetVerdict,
  GeneratorCost,
  LatencyStats_us,
  LevelFailure,
  LevelResult,
  RunReport,
  ServerBreakdown,
} from './types.ts';
import { ms_to_us } from '../units.ts';

/** Above this share of an iteration spent outside the request, a level is load-generator bound. */
export const GENERATOR_OVERHEAD_LIMIT_PCT = 10;
/** At or above this CPU share (percent of one core), the generator is saturated. */
export const GENERATOR_CPU_LIMIT_PCT = 90;

/**
 * The generator's cost per request from the average iteration and request times (ms, as k6 reports).
 * `notJudged`: why the level's requests make its cost meaningless (generatorNotJudged); such a level is
 * never bound.
 */
export function generatorCost(
  iteration_avg_ms: number,
  request_avg_ms: number,
  cpu_pct?: number,
  notJudged?: string,
): GeneratorCost {
  const iteration_avg_us = ms_to_us(iteration_avg_ms);
  const overhead_us = Math.max(0, iteration_avg_us - ms_to_us(request_avg_ms));
  const overhead_pct = iteration_avg_us > 0 ? (overhead_us / iteration_avg_us) * 100 : 0;
  const bound =
    notJudged === undefined &&
    (overhead_pct > GENERATOR_OVERHEAD_LIMIT_PCT ||
      (cpu_pct !== undefined && cpu_pct >= GENERATOR_CPU_LIMIT_PCT));
  return {
    iteration_avg_us,
    overhead_us,
    overhead_pct,
    ...(cpu_pct !== undefined ? { cpu_pct } : {}),
    bound,
    ...(notJudged !== undefined ? { not_judged: notJudged } : {}),
  };
}

/**
 * Why a level's generator cost says nothing of the generator, or undefined when it does. A failed request
 * returns at once, so a level whose requests mostly failed is mostly generator time; and after a request
 * the server never answered (a reset or refused connection) the client reconnects outside any request's
 * timing, so even a few such failures count the reconnects as the generator's work.
 */
export function generatorNotJudged(
  requests: number,
  errors: number,
  failure: LevelFailure | undefined,
  first?: { noResponse: boolean },
): string | undefined {
  if (failure) return 'most requests failed';
  if (errors > 0 && requests > 0 && first?.noResponse) {
    const failed_pct = (errors / requests) * 100;
    return `${failed_pct < 1 ? failed_pct.toFixed(2) : failed_pct.toFixed(0)}% of requests got no answer (reconnects count as its time)`;
  }
  return undefined;
}

/** Requests an iteration sends: 1, or a sequence model's whole sequence (its generator cost is per request). */
function requestsPerIteration(requests: number, iterations: number | undefined): number {
  return iterations ? Math.max(1, Math.round(requests / iterations)) : 1;
}

/** One metric as k6 hands it over (handleSummary: `values` + `thresholds: {expr: {ok}}`). */
export interface K6SummaryMetric {
  type?: string;
  contains?: string;
  values?: Record<string, number>;
  thresholds?: Record<string, { ok: boolean } | boolean>;
  [field: string]: unknown;
}

/** k6 summary data: `{ metrics: { 'http_req_duration{scenario:c8}': {...} } }` plus other fields. */
export interface K6SummaryData {
  metrics: Record<string, K6SummaryMetric>;
  [field: string]: unknown;
}

/** A level the reader should look for (the scenario builder's PlannedLevel fits). */
export interface LevelRef {
  name: string;
  mode: LoadMode;
  level: number;
  window_s: number;
  /** A paced open loop: its iterations wait for their send times, so they say nothing of the generator's cost. */
  paced?: boolean;
}

/** Input of levelsFromSummary. */
export interface FromSummaryInput {
  summary: K6SummaryData;
  /** Request batch size; inferences = requests × batch. */
  batch: number;
  /** Levels in run order; inferred from the summary's sub-metric keys when omitted (then window_s is needed). */
  levels?: readonly LevelRef[];
  /** Window per level when levels are inferred, seconds. */
  window_s?: number;
  /** Request-duration Trend. @default detected from the summary keys */
  metric?: RequestMetric;
  /** Error-rate metric. @default http_req_failed for HTTP (plus infer_invalid), infer_errors for gRPC */
  errorMetric?: string;
  /** Server deltas per level name, when the runner measured them outside k6 metrics. */
  serverStats?: Readonly<Record<string, ServerStatsDelta>>;
  /**
   * Per-window records per level name, for perf_analyzer's stability verdict. When omitted, the sub-window
   * sub-metrics `<metric>{scenario:L,window:i}` in the summary are used if present.
   */
  windows?: Readonly<Record<string, readonly WindowRecord[]>>;
  /** Stability tolerance, percent. @default 10 */
  stability_pct?: number;
  /**
   * When the run stopped (epoch ms): a level whose window (its stats probe's start Gauge) had not ended by
   * then was cut short and is left out (see partial.ts). @default Date.now(), as handleSummary runs after
   * the run, and a whole run's last window ends before its stats probe does.
   */
  stopped_ms?: number;
}

interface Normalized {
  values: Record<string, number>;
  /** expr → ok (true = passed). */
  thresholds: Record<string, boolean>;
}

/** handleSummary nests values and {ok}; --summary-export flattens values and stores `true` for a FAILED threshold. */
export function normalize(metric: K6SummaryMetric | undefined): Normalized | undefined {
  if (!metric) return undefined;
  const thresholds: Record<string, boolean> = {};
  for (const [expr, state] of Object.entries(metric.thresholds ?? {})) {
    thresholds[expr] = typeof state === 'boolean' ? !state : Boolean(state.ok);
  }
  if (metric.values) return { values: metric.values, thresholds };
  const values: Record<string, number> = {};
  for (const [key, value] of Object.entries(metric)) if (typeof value === 'number') values[key] = value;
  // The export names a Rate's fraction `value`; handleSummary names it `rate`.
  if ('passes' in values && 'value' in values && !('rate' in values)) values['rate'] = values['value']!;
  return { values, thresholds };
}

function detectMetric(summary: K6SummaryData): RequestMetric {
  return Object.keys(summary.metrics).some((key) => key.startsWith('grpc_req_duration'))
    ? 'grpc_req_duration'
    : 'http_req_duration';
}

function inferLevels(
  summary: K6SummaryData,
  metric: RequestMetric,
  window_s: number | undefined,
): LevelRef[] {
  if (!(window_s && window_s > 0)) {
    throw new Error('levelsFromSummary: give levels or window_s (seconds) to compute throughput');
  }
  const found: LevelRef[] = [];
  const prefix = `${metric}{scenario:`;
  for (const key of Object.keys(summary.metrics)) {
    if (!key.startsWith(prefix) || !key.endsWith('}')) continue;
    const name = key.slice(prefix.length, -1);
    const parsed = parseLevelName(name);
    if (parsed) found.push({ name, ...parsed, window_s });
  }
  return found.sort((a, b) => a.level - b.level);
}

function serverFromSummary(summary: K6SummaryData, level: string): ServerStatsDelta | undefined {
  const scenario = statsName(level);
  const delta = {} as ServerStatsDelta;
  let seen = false;
  for (const [field, name] of Object.entries(SERVER_COUNTERS) as [ServerCounterField, string][]) {
    const count = normalize(summary.metrics[subMetricKey(name, scenario)])?.values['count'];
    if (count !== undefined) seen = true;
    delta[field] = count ?? 0;
  }
  return seen ? delta : undefined;
}

/** Per-sub-window records of a level from `<metric>{scenario:L,window:i}` keys (none when not tagged). */
export function windowsFromSummary(
  summary: K6SummaryData,
  metric: string,
  ref: LevelRef,
  batch: number,
): WindowRecord[] {
  const found: { count: number; avg_ms: number }[] = [];
  for (let i = 0; ; i++) {
    const values = normalize(summary.metrics[subWindowKey(metric, ref.name, i)])?.values;
    if (!values) break;
    found.push({ count: values['count'] ?? 0, avg_ms: values['avg'] ?? 0 });
  }
  const part_s = ref.window_s / Math.max(1, found.length);
  return found.map((w) => ({ throughput: (w.count * batch) / part_s, avg_latency_us: ms_to_us(w.avg_ms) }));
}

/** What a level's verdicts are judged with besides k6's own (judge.ts). */
export interface LevelJudging {
  succeeded: number;
  /**
   * The level's failed share where k6's error metric missed some failures (HTTP's invalid answers with
   * status 200): its error-rate budget is judged on this instead of k6's value.
   */
  errorRate?: { metric: string; rate: number };
  stable?: boolean;
  stability_spread_pct?: number | null;
  stability_pct: number;
}

/**
 * The budget verdicts of one level: k6's met or missed for each threshold on the level's sub-metrics, then
 * what the samples allow it to claim (judge.ts): not measured, inconclusive, met or missed.
 */
export function verdicts(summary: K6SummaryData, level: string, judging?: LevelJudging): BudgetVerdict[] {
  const suffix = `{scenario:${level}}`;
  const out: BudgetVerdict[] = [];
  for (const [key, raw] of Object.entries(summary.metrics)) {
    if (!key.endsWith(suffix)) continue;
    const metric = normalize(raw)!;
    for (const [expr, k6Ok] of Object.entries(metric.thresholds)) {
      if (isProbeExpr(expr)) continue;
      const parsed = parseThresholdExpr(expr, key);
      // k6's own verdict decides met or missed; the measured value is for the reader. HTTP's error rate
      // also counts the invalid answers k6's http_req_failed did not see.
      const rate = judging?.errorRate;
      const base =
        rate && parsed.aggregation === 'rate' && key.startsWith(`${rate.metric}{`)
          ? { metric: key, expr, ok: thresholdPasses(parsed, rate.rate), measured: rate.rate }
          : { metric: key, expr, ok: k6Ok, measured: metric.values[parsed.aggregation] ?? null };
      out.push(
        judging
          ? judgeVerdict(base, parsed, {
              values: metric.values,
              trend: !['rate', 'count', 'value'].includes(parsed.aggregation),
              ...judging,
            })
          : base,
      );
    }
  }
  return out;
}

/** A Trend's summary values (ms) as latency statistics in microseconds. */
export function latencyStats_us(values: Record<string, number>): LatencyStats_us {
  const us = (key: string, fallback?: string) =>
    ms_to_us(values[key] ?? (fallback === undefined ? undefined : values[fallback]) ?? 0);
  return {
    avg: us('avg'),
    p50: us('p(50)', 'med'),
    p90: us('p(90)'),
    p95: us('p(95)'),
    p99: us('p(99)'),
    min: us('min'),
    max: us('max'),
  };
}

/** Whether a level's trend is in the summary with values but without the count that measures the level. */
export function uncountedTrend(summary: K6SummaryData, metric: string, level: string): boolean {
  const values = normalize(summary.metrics?.[subMetricKey(metric, level)])?.values;
  return values !== undefined && Object.keys(values).length > 0 && values['count'] === undefined;
}

/** One LevelResult per level that ran its whole window with a completed request (a cut run keeps the rest). */
export function levelsFromSummary(input: FromSummaryInput): LevelResult[] {
  const { summary, batch } = input;
  const metric = input.metric ?? detectMetric(summary);
  const errorMetric = input.errorMetric ?? errorMetricFor(metric);
  // k6's http_req_failed sees statuses only: an invalid answer with status 200 is in infer_invalid alone.
  const invalidApart = errorMetric === HTTP_FAILED_METRIC;
  const levels = input.levels ?? inferLevels(summary, metric, input.window_s);
  const stopped_ms = input.stopped_ms ?? Date.now();
  const firstError = firstErrors(summary);
  const invalidCause = firstInvalid(summary);
  const results: LevelResult[] = [];
  for (const ref of levels) {
    const start_ms = windowStart_ms(summary.metrics, ref.name);
    if (start_ms !== undefined && cutAfter_s(start_ms, ref.window_s, stopped_ms) !== undefined) continue;
    const get = (name: string) => normalize(summary.metrics[subMetricKey(name, ref.name)])?.values;
    const duration = get(metric);
    // The run plan asks k6 for the trend's count (SUMMARY_TREND_STATS); it makes no per-level counters.
    const counted = duration?.['count'];
    if (!duration || counted === undefined) continue;
    const errorValues = get(errorMetric);
    // A request that failed before it was sent (a gRPC connection refused) has an error sample, no duration.
    const requests = Math.max(counted, (errorValues?.['passes'] ?? 0) + (errorValues?.['fails'] ?? 0));
    if (requests <= 0) continue;
    const latency_us = latencyStats_us(duration);
    const scheduled = get(SCHEDULED_LATENCY_METRIC);
    const client_send_us = ms_to_us(get('http_req_sending')?.['avg'] ?? 0);
    const client_recv_us = ms_to_us(get('http_req_receiving')?.['avg'] ?? 0);
    const delta = input.serverStats?.[ref.name] ?? serverFromSummary(summary, ref.name);
    const server: ServerBreakdown | undefined = delta ? serverAverages_us(delta) : undefined;
    const serverParts_us = server
      ? server.queue_us + server.compute_input_us + server.compute_infer_us + server.compute_output_us
      : 0;
    // Counters: absent from the summary when nothing was added at the level.
    const invalid = get(INFER_INVALID_METRIC)?.['count'] ?? 0;
    const checked = get(INFER_CHECKED_METRIC)?.['count'] ?? 0;
    const statusErrors = errorValues?.['passes'] ?? Math.round((errorValues?.['rate'] ?? 0) * requests);
    const errors = Math.min(requests, statusErrors + (invalidApart ? invalid : 0));
    const iteration = get('iteration_duration');
    const windows = input.windows?.[ref.name] ?? windowsFromSummary(summary, metric, ref, batch);
    const stability =
      windows.length > 0 ? judgeStability(windows, { stability_pct: input.stability_pct }) : undefined;
    const failure = levelFailure(requests, errors, firstError.get(ref.name));
    const notJudged = generatorNotJudged(requests, errors, failure, firstError.get(ref.name));
    results.push({
      mode: ref.mode,
      level: ref.level,
      name: ref.name,
      window_s: ref.window_s,
      requests,
      // As perf_analyzer: only successful requests are throughput.
      inferences: Math.max(0, requests - errors) * batch,
      throughput_infer_s: (Math.max(0, requests - errors) * batch) / ref.window_s,
      latency_us,
      client_send_us,
      client_recv_us,
      ...(server ? { server } : {}),
      network_server_us: Math.max(0, latency_us.avg - client_send_us - client_recv_us - serverParts_us),
      errors,
      responses_invalid: invalid,
      responses_checked: checked,
      ...(invalid > 0 && invalidCause.has(ref.name) ? { invalid_cause: invalidCause.get(ref.name)! } : {}),
      dropped_iterations: get('dropped_iterations')?.['count'] ?? 0,
      ...(scheduled && (scheduled['count'] ?? 0) > 0
        ? { scheduled_latency_us: latencyStats_us(scheduled) }
        : {}),
      ...(stability ? { stable: stability.stable, stability_spread_pct: stability.spread_pct } : {}),
      budgets: verdicts(summary, ref.name, {
        succeeded: Math.max(0, requests - errors),
        ...(invalidApart && invalid > 0
          ? { errorRate: { metric: errorMetric, rate: errors / requests } }
          : {}),
        ...(stability ? { stable: stability.stable, stability_spread_pct: stability.spread_pct } : {}),
        stability_pct: input.stability_pct ?? DEFAULT_STABILITY_PCT,
      }),
      ...(iteration?.['avg'] !== undefined && duration['avg'] !== undefined && !ref.paced
        ? {
            generator: generatorCost(
              iteration['avg'] / requestsPerIteration(counted, iteration['count']),
              duration['avg'],
              undefined,
              notJudged,
            ),
          }
        : {}),
      ...(failure ? { failure } : {}),
    });
  }
  return results;
}

/** What buildRunReport judges the run against besides its results. */
export interface RunJudging {
  /** The planned levels' names: a planned level neither measured nor cut by a stop is not measured. */
  planned?: readonly string[];
  /** Inconclusive budgets do not fail the run. */
  allowInconclusive?: boolean;
}

/**
 * Wraps level results into a RunReport with the run's verdict (judge.ts runVerdict): met only when a budget
 * judged a measured level and none was missed, not measured or inconclusive.
 */
export function buildRunReport(
  fields: Omit<RunReport, 'verdict_ok' | 'verdict' | 'verdict_reasons' | 'unmeasured'>,
  judging: RunJudging = {},
): RunReport {
  // A level a stop cut short is named as such (partial), not as unmeasured.
  const cut = new Set((fields.partial ?? []).map((p) => p.name));
  const planned = (judging.planned ?? []).filter((name) => !cut.has(name));
  const { unmeasured, ...judged } = judgeLevels(fields.results, planned);
  // A stopped run judges the levels it measured; one that measured none is judged as a whole.
  const { verdict, reasons } =
    fields.interrupted && fields.results.length > 0
      ? runVerdict(
          fields.results.flatMap((result) => result.budgets),
          [],
        )
      : judged;
  return {
    ...fields,
    verdict_ok: verdict === 'met',
    verdict,
    ...(reasons.length > 0 ? { verdict_reasons: reasons } : {}),
    ...(unmeasured.length > 0 ? { unmeasured } : {}),
    ...(judging.allowInconclusive ? { allow_inconclusive: true } : {}),
  };
}
