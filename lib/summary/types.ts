/**
 * Plain records between the measuring side and the report writers (perf_analyzer's PerfStatus, our way):
 * from-summary.ts builds them from k6 summary data; csv/markdown/stdout/plot/junit only read them.
 * Latencies are microseconds here, as in perf_analyzer's CSV.
 */
import type { LoadMode } from '../load/shapes.ts';

/** Client latency of a level, microseconds. */
export interface LatencyStats_us {
  avg: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
}

/** Server statistics per request over the window (Triton statistics extension, differenced), microseconds. */
export interface ServerBreakdown {
  request_count: number;
  queue_us: number;
  compute_input_us: number;
  compute_infer_us: number;
  compute_output_us: number;
}

/** A generative level's token figures (lib/genai/level-summary.ts), ms and tokens. */
export interface GenerativeLevel {
  requests_per_s: number;
  output_tokens: number;
  output_tokens_per_s: number;
  ttft_ms: TimeStats_ms;
  itl_ms: TimeStats_ms;
  latency_ms: TimeStats_ms;
  /** Pooled gaps between consecutive tokens (vLLM's ITL). */
  chunk_gap_ms: TimeStats_ms;
  /** genai-perf's statistics of each request metric, for its exports (lib/genai/genai-perf-csv.ts, -json.ts). */
  genai_perf?: Record<'ttft_ms' | 'itl_ms' | 'latency_ms' | 'osl' | 'isl', GenaiPerfStats>;
  /**
   * Requests meeting every SLO of the budget (TTFT p95, ITL p95 and latency p95 bounds, each per request);
   * absent when the budget sets none.
   */
  goodput?: GenerativeGoodput;
  /** Open loop: how far sends lagged their schedule (lib/genai/open-loop.ts). */
  schedule?: GenerativeSchedule;
  /** Output tokens asked for, per request (set against genai_perf.osl). */
  requested_osl?: GenaiPerfStats;
  /** Successful requests whose output length differs from the one asked for. */
  osl_mismatches?: number;
  /** Requests cancelled on purpose (REQUEST_CANCELLATION_RATE), left out of every other figure. */
  cancelled_requests?: number;
  /** Where ISL and OSL came from: the server's count, the model's tokenizer, or an estimate. */
  token_sources?: { input: 'server' | 'tokenizer' | 'estimate'; output: 'server' | 'tokenizer' | 'estimate' };
  /** Input tokens of successful requests per second of the window. Absent in results written before it. */
  input_tokens_per_s?: number;
  /** AIPerf's prefill throughput per user: each successful request's ISL / TTFT, tokens/s (from the records). */
  prefill_tokens_per_s?: RateStats;
  /** The level cut into slices of --slice-duration (AIPerf's time slices), when one was given. */
  slices?: GenerativeSlice[];
  /** A multi-turn run's sessions and per-turn figures (lib/genai/conversation.ts). */
  conversation?: GenerativeConversation;
}

/** A distribution of a rate (tokens/s): the fields of TimeStats_ms, in the rate's unit. */
export type RateStats = TimeStats_ms;

/** One time slice of a level: the requests that completed in it (lib/genai/slices.ts). */
export interface GenerativeSlice {
  /** Seconds since the level's first measured send: the slice's start and end. */
  start_s: number;
  end_s: number;
  /** Successful requests that completed in the slice, and failed ones. */
  requests: number;
  errors: number;
  requests_per_s: number;
  input_tokens_per_s: number;
  output_tokens_per_s: number;
  /** Of the slice's successful requests; absent when it had none. */
  ttft_ms?: { p50: number; p99: number };
  itl_ms?: { p50: number; p99: number };
}

/** A level's multi-turn sessions: how many ended, how long they took, and each turn's figures. */
export interface GenerativeConversation {
  /** Sessions whose every turn succeeded. */
  sessions: number;
  /** Sessions stopped at a failed turn. */
  failed_sessions: number;
  /** Completed sessions' first send to last stream end, think times included. */
  session_duration_ms: TimeStats_ms;
  /** By turn index (from 1), the turns that succeeded. */
  turns: GenerativeTurn[];
}

/** One turn index's figures over a level's sessions. */
export interface GenerativeTurn {
  turn: number;
  requests: number;
  ttft_ms: TimeStats_ms;
  latency_ms: TimeStats_ms;
  /** Input tokens (history plus message), average. */
  isl_avg: number;
}

/** A level's goodput: its requests that met every SLO given. */
export interface GenerativeGoodput {
  /** The per-request bounds applied, ms. */
  slo: { ttft_ms?: number; itl_ms?: number; latency_ms?: number };
  good_requests: number;
  /** Good requests over all requests (failed ones included), 0..1. */
  good_fraction: number;
  /** Good requests per second of the window. */
  requests_per_s: number;
}

/** An open-loop level's schedule as the generator kept it. */
export interface GenerativeSchedule {
  /** Measured sends. */
  sends: number;
  /** Sends that left more than LATE_SEND_MS after their due time: no VU was free. */
  late_sends: number;
  /** Send time - due time, ms. */
  send_lag_ms: TimeStats_ms;
  /** The most VUs the level could use (paced: its VUs; k6's arrival rate: maxVUs). */
  vus?: number;
  /** True when the user set that bound (--max-vus, MAX_VUS). */
  capped?: boolean;
}

/** The statistics genai-perf's exports have for a request metric. */
export interface GenaiPerfStats {
  avg: number;
  /** Population standard deviation; absent where k6's trends gave the statistics (they do not keep it). */
  std?: number;
  p1: number;
  p5: number;
  p10: number;
  min: number;
  max: number;
  p99: number;
  p95: number;
  p90: number;
  p75: number;
  p50: number;
  p25: number;
}

/** A distribution's summary, milliseconds. */
export interface TimeStats_ms {
  avg: number;
  p50: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
}

/**
 * What a budget verdict claims (judge.ts): met or missed as k6 judged it, not measured (no successful
 * request at the level), or inconclusive (too few samples beyond its percentile, or an unstable level).
 */
export type BudgetState = 'met' | 'missed' | 'not_measured' | 'inconclusive';

/** A run's verdict: missed before not measured before inconclusive before met. */
export type RunVerdict = BudgetState;

/** A confidence interval of a percentile, in the metric's unit (ms); `high` null: no sample bounds it. */
export interface PercentileInterval {
  confidence: number;
  low: number;
  high: number | null;
}

/** One k6 threshold judged at one level. */
export interface BudgetVerdict {
  /** Sub-metric key, e.g. `http_req_duration{scenario:c8}`. */
  metric: string;
  /** k6 expression, e.g. `p(95)<20`. */
  expr: string;
  /** True only when the state is met. */
  ok: boolean;
  /** The value the expression compared (ms for durations, a fraction for rates); null when missing. */
  measured: number | null;
  /** Absent in records written before states existed: read `ok` then (judge.ts stateOf). */
  state?: BudgetState;
  /** Samples the value came from (a trend's count, a rate's passes + fails). */
  samples?: number;
  /** Why the verdict is not measured or inconclusive. */
  reason?: string;
  /** A percentile's 95% interval (judge.ts percentileInterval). */
  interval?: PercentileInterval;
}

/** One measured level (perf_analyzer's PerfStatus). */
export interface LevelResult {
  mode: LoadMode;
  /** Concurrency (VUs) or request rate (req/s). */
  level: number;
  /** Measurement scenario name ('c8', 'r100'). */
  name: string;
  window_s: number;
  /** Requests completed in the window. */
  requests: number;
  /** requests × batch: perf_analyzer counts inferences, not requests. */
  inferences: number;
  throughput_infer_s: number;
  latency_us: LatencyStats_us;
  /** Client time to send the request (k6 http_req_sending); 0 where the protocol has no such split. */
  client_send_us: number;
  /** Client time to receive the response (k6 http_req_receiving). */
  client_recv_us: number;
  server?: ServerBreakdown;
  /** avg − client send − client recv − server queue − compute, floored at 0 (perf_analyzer's rule). */
  network_server_us: number;
  /** Failed requests in the window: an error status, or an invalid response (responses_invalid). */
  errors: number;
  /**
   * Responses with a success status that failed validation (content type, JSON, output names, shapes,
   * datatypes): failed requests, counted in `errors`. Absent in results written before it was counted.
   */
  responses_invalid?: number;
  /** Responses whose outputs were checked (one in VALIDATE_EVERY); every response's status and content type are. */
  responses_checked?: number;
  /** The first invalid response's cause, e.g. `body is text/html, not JSON`; set when there was one. */
  invalid_cause?: string;
  /** Open loop: iterations k6 could not start in time (coordinated omission made visible). */
  dropped_iterations: number;
  /**
   * Open loop: latency from each request's scheduled start (not its send) to its response, microseconds;
   * above latency_us when the generator fell behind its schedule. Absent in closed loop.
   */
  scheduled_latency_us?: LatencyStats_us;
  /** Measurements of this level the run made until it was stable (perf_analyzer's trials); absent: one. */
  trials?: number;
  /** perf_analyzer's stability verdict when windows were measured; undefined when not judged. */
  stable?: boolean;
  /** Largest deviation from the mean across the judged windows, percent. */
  stability_spread_pct?: number | null;
  budgets: BudgetVerdict[];
  /** The load generator's own cost at this level, when k6 reported iteration times. */
  generator?: GeneratorCost;
  /** The target's Prometheus metrics over the window, when the bench scraped them (server-metrics.ts). */
  server_metrics?: ServerMetricsStats;
  /** The LLM engine's metrics over the window (TensorRT-LLM or vLLM backend), when it served them (engine-metrics.ts). */
  engine_metrics?: EngineMetricsStats;
  /** Set when most of the level's requests failed (failure.ts): then its verdict is why, not its figures. */
  failure?: LevelFailure;
  /** A generative model's level: TTFT, ITL, token throughput (the generative scenario only). */
  genai?: GenerativeLevel;
}

/** Why a level's requests (mostly) failed: the level's verdict in place of its figures. */
export interface LevelFailure {
  /** Failed requests, percent of the level's requests. */
  failed_pct: number;
  /** The first failure a VU met at this level, as the scenario worded it; absent when none was recorded. */
  first_error?: string;
  /** That failure got no answer from the server (refused, reset, timed out): the server was unreachable. */
  no_response: boolean;
}

/**
 * Triton's Prometheus metrics over one level's window: nv_inference_* counter deltas between the scrapes
 * bounding it, averages per request, and gauge figures over the scrapes inside it (absent when not served).
 */
export interface ServerMetricsStats {
  /** Seconds between the two scrapes the deltas span (at least the window when scrapes bound it). */
  interval_s: number;
  /** Scrapes within that span. */
  scrapes: number;
  request_success: number;
  request_failure: number;
  inference_count?: number;
  exec_count?: number;
  /** Per request (successes and failures, as Triton counts these two), microseconds. */
  avg_request_us?: number;
  avg_queue_us?: number;
  /** Per successful request, microseconds. */
  avg_compute_input_us?: number;
  avg_compute_infer_us?: number;
  avg_compute_output_us?: number;
  /** nv_gpu_utilization averaged over scrapes and GPUs, percent. */
  gpu_utilization_avg_pct?: number;
  /** nv_gpu_memory_used_bytes summed over GPUs, highest scrape. */
  gpu_memory_used_max_bytes?: number;
  gpu_memory_total_bytes?: number;
  /** nv_gpu_power_usage summed over GPUs, averaged over scrapes, watts. */
  gpu_power_usage_avg_w?: number;
  /** nv_cpu_utilization averaged over scrapes, percent (of the whole host, as Triton reports it). */
  cpu_utilization_avg_pct?: number;
  cpu_memory_used_max_bytes?: number;
}

/** A gauge over a window's scrapes: its average and its highest value. */
export interface GaugeSummary {
  avg: number;
  max: number;
}

/**
 * An LLM engine's scheduler and KV cache over one level's window, from Triton's TensorRT-LLM backend
 * (nv_trt_llm_*) or vLLM backend (vllm:*) metrics; each figure absent when the engine did not serve it.
 */
export interface EngineMetricsStats {
  /** Whose metric names the figures came from. */
  source: 'trtllm' | 'vllm';
  /** Scrapes inside the window. */
  scrapes: number;
  /** Requests in the engine's batch (TensorRT-LLM active, vLLM num_requests_running). */
  running?: GaugeSummary;
  /** Requests queued for the batch (TensorRT-LLM waiting, vLLM num_requests_waiting). */
  waiting?: GaugeSummary;
  /** TensorRT-LLM: requests scheduled in the iteration. */
  scheduled?: GaugeSummary;
  /** KV cache in use, percent (TensorRT-LLM used / max blocks; vLLM kv_cache_usage_perc x 100). */
  kv_cache_usage_pct?: GaugeSummary;
  /** TensorRT-LLM: KV cache blocks in use, the pool's size and tokens per block. */
  kv_blocks_used?: GaugeSummary;
  kv_blocks_max?: number;
  kv_block_tokens?: number;
  /** Prefix-cache queries (tokens) over the window and the share that hit, percent. */
  prefix_cache_queries?: number;
  prefix_cache_hit_pct?: number;
}

/**
 * One interval between two consecutive Prometheus scrapes of a run: what the server did in it (for the
 * server-metrics chart over time). Averages are per request in the interval; absent when it served none.
 */
export interface ServerMetricsPoint {
  /** End of the interval, seconds since the run's first scrape. */
  t_s: number;
  /** The level whose measurement window holds the interval's midpoint; absent between windows. */
  level?: string;
  /** Successful requests per second over the interval. */
  requests_s: number;
  avg_queue_us?: number;
  avg_compute_infer_us?: number;
  /** nv_cpu_utilization at the interval's end, percent. */
  cpu_utilization_pct?: number;
  /** nv_gpu_utilization at the interval's end, averaged over GPUs, percent. */
  gpu_utilization_pct?: number;
}

/** A level's measurement window on the timeline of ServerMetricsPoint (seconds since the first scrape). */
export interface LevelWindow {
  level: string;
  from_s: number;
  to_s: number;
}

/** The run's server metrics over time: one point per scrape interval, and where each level's window was. */
export interface ServerTimeline {
  points: ServerMetricsPoint[];
  windows: LevelWindow[];
}

/**
 * What the load generator spent per request beyond the request itself (perf_analyzer has no such
 * figure): when it is large, the level measured the generator, not the server.
 */
export interface GeneratorCost {
  /** Average iteration time, microseconds. */
  iteration_avg_us: number;
  /** Iteration time minus request time, floored at 0, microseconds. */
  overhead_us: number;
  /** overhead_us as a percentage of the iteration. */
  overhead_pct: number;
  /** The generator process's CPU over the window, percent of one core, when the bench measured it. */
  cpu_pct?: number;
  /** True when overhead_pct > GENERATOR_OVERHEAD_LIMIT_PCT or cpu_pct >= GENERATOR_CPU_LIMIT_PCT. */
  bound: boolean;
  /** Why the level's cost was not judged (its requests failed): then `bound` is false whatever the figures. */
  not_judged?: string;
}

/**
 * A level the run stopped during its measurement window: not measured, so it has no figures, only how
 * much of its window ran (see partial.ts).
 */
export interface PartialLevel {
  mode: LoadMode;
  level: number;
  name: string;
  window_s: number;
  /** Seconds of the window that ran before the run stopped. */
  measured_s: number;
}

/** A whole run, as the writers receive it. */
export interface RunReport {
  model: string;
  protocol: string;
  runtime: 'k6' | 'node';
  batch: number;
  started_at: string;
  results: LevelResult[];
  /** One in this many measured responses was validated; absent: unknown. */
  validate_every?: number;
  /** Each VU's first this many warm-up responses were validated; absent: unknown. */
  warmup_checks?: number;
  /** True only when the verdict is met. */
  verdict_ok: boolean;
  /** The run's verdict (judge.ts runVerdict); absent in records written before it existed. */
  verdict?: RunVerdict;
  /** Why the verdict is not met, one phrase each. */
  verdict_reasons?: string[];
  /** Planned levels with no request completed in their window (not cut by a stop): named, never judged. */
  unmeasured?: string[];
  /** Inconclusive budgets do not fail the run (--allow-inconclusive). */
  allow_inconclusive?: boolean;
  /** Why the run stopped before its end ('SIGINT', 'SIGTERM', 'exit 108'); absent for a whole run. */
  interrupted?: string;
  /** Levels cut short by that stop: named as not measured, in no table, plot or CSV row. */
  partial?: PartialLevel[];
  /** The target's Prometheus metrics over time, when the bench scraped them. */
  server_timeline?: ServerTimeline;
  /** A generative run's pre-flight: the generator's own timing error on this machine and protocol. */
  error_bar?: GeneratorErrorBar;
}

/**
 * The generator's own timing error, measured before the first level against a local known-delay stream
 * (measure/core/preflight.ts) with the run's protocol, runtime and scenario at concurrency 1: what the client
 * measured above the times the server really sent each token.
 */
export interface GeneratorErrorBar {
  protocol: string;
  runtime: 'k6' | 'node';
  /** The stream the pre-flight server sent: first token after first_ms, then one each gap_ms. */
  known: { first_ms: number; gap_ms: number; tokens: number };
  /** Requests measured. */
  requests: number;
  /** True when each client record was matched to its server stream; false: percentiles were set side by side. */
  paired: boolean;
  /** Client TTFT minus the server's real first send, ms (signed). */
  ttft_error_ms: { p50: number; p99: number };
  /** |client token gap - the server's real gap|, ms. */
  gap_error_ms: { p50: number; p99: number };
  /** How late the server's own timers sent tokens (real - planned), ms: not in the error, stated beside it. */
  server_late_ms: { p50: number; p99: number };
  /** The machine's 1-minute load average when measured (the figures depend on it). */
  load_avg_1m: number;
  cores: number;
}
