/**
 * Differences two readings of Triton's statistics extension (GET /v2/models/<m>/stats, or gRPC
 * ModelStatistics as JSON) into per-window totals, as perf_analyzer does around each measurement.
 * Pure; runs inside k6 and on Node. Times come in ns and leave in us (the report's unit).
 */
import type { ServerCounterField } from './names.ts';

/** Per-window server totals; field names match SERVER_COUNTERS. */
export type ServerStatsDelta = Record<ServerCounterField, number>;

/**
 * What a statistics reading may be: the HTTP body (`{model_stats: [...]}`, snake_case), k6's gRPC
 * ModelStatisticsResponse (camelCase, uint64 as strings), or lib/kserve's normalised ModelStats[]
 * (`inference.computeInput`, `inferenceCount`). All three are read structurally.
 */
export type StatsReading = unknown;

type Loose = Record<string, unknown> | undefined;

/** A field by its proto (snake_case) name or its lowerCamelCase JSON name. */
function pick(object: Loose, protoName: string): unknown {
  if (!object || typeof object !== 'object') return undefined;
  if (protoName in object) return object[protoName];
  return object[protoName.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())];
}

function num(value: unknown): number {
  const n = typeof value === 'string' ? Number(value) : typeof value === 'number' ? value : 0;
  return Number.isFinite(n) ? n : 0;
}

function entries(reading: StatsReading): Loose[] {
  if (Array.isArray(reading)) return reading as Loose[];
  const list = pick(reading as Loose, 'model_stats');
  return Array.isArray(list) ? (list as Loose[]) : [];
}

type Totals = Record<ServerCounterField, number>;

function totals(reading: StatsReading, model: string, version: string | undefined): Totals {
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
  for (const entry of entries(reading)) {
    const name = pick(entry, 'name');
    const entryVersion = pick(entry, 'version');
    if (name !== undefined && name !== '' && name !== model) continue;
    if (version && entryVersion !== undefined && entryVersion !== '' && entryVersion !== version) continue;
    const stats = (pick(entry, 'inference_stats') ?? pick(entry, 'inference')) as Loose;
    const part = (stage: string) => pick(stats, stage) as Loose;
    sum.request_count += num(pick(part('success'), 'count'));
    sum.inference_count += num(pick(entry, 'inference_count'));
    sum.execution_count += num(pick(entry, 'execution_count'));
    sum.queue_count += num(pick(part('queue'), 'count'));
    sum.queue_us += num(pick(part('queue'), 'ns')) / 1000;
    // perf_analyzer requires the three compute counts to agree and divides by compute_input's.
    sum.compute_count += num(pick(part('compute_input'), 'count'));
    sum.compute_input_us += num(pick(part('compute_input'), 'ns')) / 1000;
    sum.compute_infer_us += num(pick(part('compute_infer'), 'ns')) / 1000;
    sum.compute_output_us += num(pick(part('compute_output'), 'ns')) / 1000;
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
