/**
 * Triton model statistics, normalised from either protocol: HTTP returns snake_case
 * JSON with numbers, k6's gRPC returns camelCase with 64-bit integers as strings.
 * Counts and durations are cumulative since the model loaded; lib/load/server-stats.ts
 * diffs two readings into a window, as perf_analyzer does for its server-side figures.
 */

/** A cumulative count and duration (nanoseconds), as Triton's StatisticDuration. */
export interface StatDuration {
  count: number;
  ns: number;
}

/** The stages of InferStatistics. */
export const INFER_STAGES = [
  'success',
  'fail',
  'queue',
  'computeInput',
  'computeInfer',
  'computeOutput',
  'cacheHit',
  'cacheMiss',
] as const;

export type InferStage = (typeof INFER_STAGES)[number];

/** Per-batch-size execution statistics. */
export interface BatchStats {
  batchSize: number;
  computeInput: StatDuration;
  computeInfer: StatDuration;
  computeOutput: StatDuration;
}

/** One model version's statistics. */
export interface ModelStats {
  name: string;
  version: string;
  lastInference_ms: number;
  inferenceCount: number;
  executionCount: number;
  inference: Record<InferStage, StatDuration>;
  batches: BatchStats[];
}

type Loose = Record<string, unknown> | undefined;

/** Normalises GET /v2/models/M/stats JSON or a gRPC ModelStatisticsResponse message. */
export function normalizeStatistics(response: unknown): ModelStats[] {
  const root = response as Loose;
  const list = (field(root, 'model_stats') ?? []) as Loose[];
  return list.map((model) => ({
    name: String(field(model, 'name') ?? ''),
    version: String(field(model, 'version') ?? ''),
    lastInference_ms: num(field(model, 'last_inference')),
    inferenceCount: num(field(model, 'inference_count')),
    executionCount: num(field(model, 'execution_count')),
    inference: stages(field(model, 'inference_stats') as Loose),
    batches: ((field(model, 'batch_stats') ?? []) as Loose[]).map((batch) => ({
      batchSize: num(field(batch, 'batch_size')),
      computeInput: duration(field(batch, 'compute_input') as Loose),
      computeInfer: duration(field(batch, 'compute_infer') as Loose),
      computeOutput: duration(field(batch, 'compute_output') as Loose),
    })),
  }));
}

/** Reads a field by its proto name or its lowerCamelCase JSON name. */
function field(object: Loose, protoName: string): unknown {
  if (!object) return undefined;
  if (protoName in object) return object[protoName];
  const camel = protoName.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
  return object[camel];
}

function stages(stats: Loose): Record<InferStage, StatDuration> {
  const out = {} as Record<InferStage, StatDuration>;
  for (const stage of INFER_STAGES) {
    const protoName = stage.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    out[stage] = duration(field(stats, protoName) as Loose);
  }
  return out;
}

function duration(value: Loose): StatDuration {
  return { count: num(field(value, 'count')), ns: num(field(value, 'ns')) };
}

function num(value: unknown): number {
  if (value === undefined || value === null || value === '') return 0;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : 0;
}
