/**
 * Differences two readings of Triton's statistics extension (GET /v2/models/<m>/stats, or gRPC
 * ModelStatistics as JSON) into per-window totals, as perf_analyzer does around each measurement.
 * Pure; runs inside k6 and on Node. Times come in ns and leave in us (the report's unit).
 */
import { type ModelStats, normalizeStatistics } from '../kserve/stats.ts';
import type { ServerCounterField } from './names.ts';
import { ns_to_us } from '../units.ts';

/** Per-window server totals; field names match SERVER_COUNTERS. */
export type ServerStatsDelta = Record<ServerCounterField, number>;

/**
 * What a statistics reading may be: the HTTP body (`{model_stats: [...]}`, snake_case), k6's gRPC
 * ModelStatisticsResponse (camelCase, uint64 as strings), or lib/kserve's normalised ModelStats[].
 */
export type StatsReading = unknown;

/** lib/kserve's normaliser reads both protocols; arrays are already normalised. */
function modelStats(reading: StatsReading): ModelStats[] {
  return Array.isArray(reading) ? (reading as ModelStats[]) : normalizeStatistics(reading);
}

function totals(reading: StatsReading, model: string, version: string | undefined): ServerStatsDelta {
  const sum: ServerStatsDelta = {
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
  for (const entry of modelStats(reading)) {
    if (entry.name !== '' && entry.name !== model) continue;
    if (version && entry.version !== '' && entry.version !== version) continue;
    const stage = entry.inference;
    sum.request_count += stage.success.count;
    sum.inference_count += entry.inferenceCount;
    sum.execution_count += entry.executionCount;
    sum.queue_count += stage.queue.count;
    sum.queue_us += ns_to_us(stage.queue.ns);
    // perf_analyzer requires the three compute counts to agree and divides by compute_input's.
    sum.compute_count += stage.computeInput.count;
    sum.compute_input_us += ns_to_us(stage.computeInput.ns);
    sum.compute_infer_us += ns_to_us(stage.computeInfer.ns);
    sum.compute_output_us += ns_to_us(stage.computeOutput.ns);
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
  before: StatsReading,
  after: StatsReading,
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
