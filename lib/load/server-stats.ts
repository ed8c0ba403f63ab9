/**
 * Differences two readings of Triton's statistics extension (GET /v2/models/<m>/stats, or gRPC
 * ModelStatistics as JSON) into per-window totals, as perf_analyzer does around each measurement.
 * Pure; runs inside k6 and on Node. Times come in ns and leave in us (the report's unit).
 */
import type { ServerCounterField } from './names.ts';

/** Per-window server totals; field names match SERVER_COUNTERS. */
export type ServerStatsDelta = Record<ServerCounterField, number>;

/** A `{count, ns}` pair of Triton's inference_stats; uint64 fields may arrive as strings (gRPC JSON). */
interface Duration {
  count?: number | string;
  ns?: number | string;
}

/** The parts of one model_stats entry the delta reads. */
export interface ModelStatsEntry {
  name?: string;
  version?: string;
  inference_count?: number | string;
  execution_count?: number | string;
  inference_stats?: {
    success?: Duration;
    queue?: Duration;
    compute_input?: Duration;
    compute_infer?: Duration;
    compute_output?: Duration;
  };
}

/** The statistics response body. */
export interface ModelStatsResponse {
  model_stats?: ModelStatsEntry[];
}

function num(value: number | string | undefined): number {
  const n = typeof value === 'string' ? Number(value) : (value ?? 0);
  return Number.isFinite(n) ? n : 0;
}

type Totals = Record<ServerCounterField, number>;

function totals(response: ModelStatsResponse, model: string, version: string | undefined): Totals {
  const sum: Totals = {
    request_count: 0,
    inference_count: 0,
    execution_count: 0,
    queue_count: 0,
    queue_us: 0,
    compute_count: 0,
    compute_input_us: 0,
    compute_infer_us: 0,
    compute_output_us: 0,
  };
  for (const entry of response.model_stats ?? []) {
    if (entry.name !== undefined && entry.name !== model) continue;
    if (version && entry.version !== undefined && entry.version !== version) continue;
    const stats = entry.inference_stats ?? {};
    sum.request_count += num(stats.success?.count);
    sum.inference_count += num(entry.inference_count);
    sum.execution_count += num(entry.execution_count);
    sum.queue_count += num(stats.queue?.count);
    sum.queue_us += num(stats.queue?.ns) / 1000;
    // perf_analyzer requires the three compute counts to agree and divides by compute_input's.
    sum.compute_count += num(stats.compute_input?.count);
    sum.compute_input_us += num(stats.compute_input?.ns) / 1000;
    sum.compute_infer_us += num(stats.compute_infer?.ns) / 1000;
    sum.compute_output_us += num(stats.compute_output?.ns) / 1000;
  }
  return sum;
}

/** Options of serverStatsDelta. */
export interface StatsDeltaOptions {
  model: string;
  /** Only this version; all versions in the response when omitted or ''. */
  version?: string;
}

/** After − before for one model; a counter that went backwards (server restart) counts as 0. */
export function serverStatsDelta(
  before: ModelStatsResponse,
  after: ModelStatsResponse,
  options: StatsDeltaOptions,
): ServerStatsDelta {
  const a = totals(before, options.model, options.version);
  const b = totals(after, options.model, options.version);
  const delta = {} as ServerStatsDelta;
  for (const key of Object.keys(a) as ServerCounterField[]) delta[key] = Math.max(0, b[key] - a[key]);
  return delta;
}

/** Per-request averages (us) from a delta, each part divided by its own count as perf_analyzer does. */
export function serverAverages_us(delta: ServerStatsDelta): {
  request_count: number;
  queue_us: number;
  compute_input_us: number;
  compute_infer_us: number;
  compute_output_us: number;
} {
  const per = (total: number, count: number) => (count > 0 ? total / count : 0);
  return {
    request_count: delta.request_count,
    queue_us: per(delta.queue_us, delta.queue_count),
    compute_input_us: per(delta.compute_input_us, delta.compute_count),
    compute_infer_us: per(delta.compute_infer_us, delta.compute_count),
    compute_output_us: per(delta.compute_output_us, delta.compute_count),
  };
}
