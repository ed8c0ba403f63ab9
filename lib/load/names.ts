/**
 * Scenario and metric names shared by the scenario builder (k6 side), the budgets and the report reader.
 * One place spells them so thresholds and summary keys always agree. Runs inside k6: no Node imports.
 */
import type { LoadMode } from './shapes.ts';

/** Suffix of the warm-up scenario that precedes each measurement scenario. */
export const WARMUP_SUFFIX = '_warmup';
/** Suffix of the one-iteration scenario that reads server statistics around each window. */
export const STATS_SUFFIX = '_stats';

/** Between a model mix's model id and its level in a scenario name: `bert-base__r280`. */
export const MIX_SEPARATOR = '__';

/**
 * The measurement scenario's name for a level: `c8` (8 VUs) or `r100` (100 req/s); in a model mix the
 * model's id comes first (`dlrm__c8`), as one test runs every model's levels side by side.
 * k6 scenario names allow only letters, digits, '_' and '-', so a rate of 2.5 is `r2_5`.
 */
export function levelName(mode: LoadMode, level: number, model?: string): string {
  const name = `${mode === 'concurrency' ? 'c' : 'r'}${String(level).replace('.', '_')}`;
  return model === undefined ? name : `${model}${MIX_SEPARATOR}${name}`;
}

/** Reverses levelName; undefined when the name is not a level's measurement scenario. */
export function parseLevelName(name: string): { mode: LoadMode; level: number } | undefined {
  const match = /^(?:[\w-]+__)?([cr])(\d+)(?:_(\d+))?$/.exec(name);
  if (!match) return undefined;
  const level = Number(match[3] === undefined ? match[2] : `${match[2]}.${match[3]}`);
  return { mode: match[1] === 'c' ? 'concurrency' : 'request-rate', level };
}

/** The `phase` tag of a mix's measurement scenarios: `http_req_duration{phase:measure}` is the whole mix's. */
export const MIX_MEASURE_PHASE = 'measure';

/** The whole mix's sub-metric of a request metric: every model's measured requests. */
export function mixMeasureKey(metric: string): string {
  return `${metric}{phase:${MIX_MEASURE_PHASE}}`;
}

/** A level's name without a mix's model id (`dlrm__c8` -> `c8`), as budget files name levels. */
export function bareLevelName(name: string): string {
  const at = name.lastIndexOf(MIX_SEPARATOR);
  return at < 0 ? name : name.slice(at + MIX_SEPARATOR.length);
}

/** The warm-up scenario of a level (`c8_warmup`). */
export function warmupName(level: string): string {
  return level + WARMUP_SUFFIX;
}

/** The server-statistics probe scenario of a level (`c8_stats`). */
export function statsName(level: string): string {
  return level + STATS_SUFFIX;
}

/** A sub-metric key as k6 spells it in thresholds and summaries: `http_req_duration{scenario:c8}`. */
export function subMetricKey(metric: string, scenario: string): string {
  return `${metric}{scenario:${scenario}}`;
}

/** k6's system tag naming a sample's scenario; a ramp's measured loop sets it to the window's level name. */
export const SCENARIO_TAG = 'scenario';

/** Request tag naming the sub-window of a measurement window a request started in ('0', '1', '2'). */
export const WINDOW_TAG = 'window';
/** perf_analyzer judges stability over 3 consecutive windows. */
export const DEFAULT_SUB_WINDOWS = 3;

/** A per-sub-window sub-metric key: `http_req_duration{scenario:c8,window:0}` (tags in alphabetical order). */
export function subWindowKey(metric: string, scenario: string, index: number): string {
  return `${metric}{scenario:${scenario},${WINDOW_TAG}:${index}}`;
}

/** The request-duration Trend per protocol (k6's built-ins). */
export type RequestMetric = 'http_req_duration' | 'grpc_req_duration';

/**
 * Custom Rate metric gRPC scripts add one sample to per inference request (true = failed): k6 has no
 * failed-request metric for gRPC. HTTP keeps k6's own http_req_failed, which costs the script nothing; an
 * invalid answer with a success status is counted in INFER_INVALID_METRIC instead, and the error-rate verdict
 * counts both (lib/summary/from-summary.ts). A Rate sample per HTTP request cost real k6 15-20 us of a 60 us
 * per-request overhead (bench/figures/RESULTS.md).
 */
export const INFER_ERRORS_METRIC = 'infer_errors';

/**
 * Counter of responses that came back with a success status but failed validation (content type, JSON,
 * outputs), added to only when one does: a level's invalid responses, per level in the summary.
 */
export const INFER_INVALID_METRIC = 'infer_invalid';

/** Counter of responses whose outputs were checked (the sampled one in VALIDATE_EVERY, and warm-up checks). */
export const INFER_CHECKED_METRIC = 'infer_checked';

/** The error-rate metric budgets use for a request metric: infer_errors for gRPC, k6's http_req_failed for HTTP. */
export function errorMetricFor(metric: RequestMetric): string {
  return metric === 'grpc_req_duration' ? INFER_ERRORS_METRIC : HTTP_FAILED_METRIC;
}

/** k6's failed-request Rate of HTTP (error statuses and requests without an answer). */
export const HTTP_FAILED_METRIC = 'http_req_failed';

/**
 * Counters the `<level>_stats` scenario adds once per window: differences of Triton's statistics
 * extension read just before and after the window (see server-stats.ts). Times in microseconds.
 */
export const SERVER_COUNTERS = {
  request_count: 'triton_request_count',
  inference_count: 'triton_inference_count',
  execution_count: 'triton_execution_count',
  queue_count: 'triton_queue_count',
  queue_us: 'triton_queue_us',
  compute_count: 'triton_compute_count',
  compute_input_us: 'triton_compute_input_us',
  compute_infer_us: 'triton_compute_infer_us',
  compute_output_us: 'triton_compute_output_us',
} as const;

/** Gauge the `<level>_stats` scenario sets to the window's start (epoch ms): the bench lines its CPU samples up with it. */
export const WINDOW_START_METRIC = 'k6_triton_window_start_ms';

/**
 * Gauge the `<level>_stats` scenario sets to its level's window length (s), tagged with RUNTIME_TAG: what
 * `merge` divides by and labels the run with, read from the runners' own `--out json` files.
 */
export const WINDOW_LENGTH_METRIC = 'k6_triton_window_s';

/** The tag of WINDOW_LENGTH_METRIC naming the runtime that measured: `k6` or `node`. */
export const RUNTIME_TAG = 'k6_triton_runtime';

/**
 * Open loop only: a Trend (ms) from each measured request's scheduled start (the scenario's start plus
 * iterationInTest / rate) to its response, beside the request metric measured from the actual send. When
 * the generator falls behind the schedule (no free VU: dropped_iterations), this one keeps growing while
 * the send latency looks fine: coordinated omission made visible.
 */
export const SCHEDULED_LATENCY_METRIC = 'k6_triton_scheduled_latency';

/**
 * A k6 check each VU records once per measured level, failing, at its first failed request there: its name
 * carries the level, whether the server answered at all, and the error (k6 summaries carry text only in
 * names), e.g. `first error at c8 (no response): dial: connection refused`. The report words a level
 * whose requests (mostly) failed from it.
 */
const FIRST_ERROR_CHECK = /^first error at ([^ :]+)( \(no response\))?: (.*)$/s;

/** Longest error text a first-error check keeps. */
const FIRST_ERROR_MAX_CHARS = 200;

/** The first-error check's name for a level; `noResponse`: the request got no answer from the server. */
export function firstErrorCheck(level: string, error: string, noResponse: boolean): string {
  const text = error.length > FIRST_ERROR_MAX_CHARS ? `${error.slice(0, FIRST_ERROR_MAX_CHARS)}...` : error;
  return `first error at ${level}${noResponse ? ' (no response)' : ''}: ${text}`;
}

/** Reverses firstErrorCheck; undefined for any other check name. */
export function parseFirstErrorCheck(
  name: string,
): { level: string; noResponse: boolean; error: string } | undefined {
  const match = FIRST_ERROR_CHECK.exec(name);
  return match ? { level: match[1]!, noResponse: match[2] !== undefined, error: match[3]! } : undefined;
}

/** Field names of SERVER_COUNTERS. */
export type ServerCounterField = keyof typeof SERVER_COUNTERS;

/**
 * The system tags a scenario keeps (options.systemTags): `scenario` for the per-level sub-metrics,
 * `group` and `check` for the summary's checks (k6 files them by these tags), and a request's
 * outcome. k6 builds each sample's tag set tag by tag and matches it against every sub-metric of its
 * metric, so a tag nobody reads (url, method, name, proto...) costs per request.
 */
export const SYSTEM_TAGS = [
  'scenario',
  'group',
  'status',
  'expected_response',
  'check',
  'error',
  'error_code',
];

/**
 * The percentiles asked of k6 for every trend besides the budgets' own: the grid a percentile's confidence
 * interval reads its bounds from (lib/summary/judge.ts percentileInterval). k6 computes them once, at the end.
 */
export const PERCENTILE_GRID: readonly number[] = [
  50, 75, 80, 85, 90, 91, 92, 93, 94, 94.5, 95, 95.5, 96, 96.5, 97, 97.5, 98, 98.25, 98.5, 98.75, 99, 99.1,
  99.2, 99.3, 99.4, 99.5, 99.6, 99.7, 99.8, 99.9, 99.95, 99.99,
];

/** Trend statistics the report needs in k6's summary; set as options.summaryTrendStats. */
export const SUMMARY_TREND_STATS = [
  'avg',
  'min',
  'med',
  'max',
  ...PERCENTILE_GRID.map((p) => `p(${p})`),
  'count',
];
