/**
 * k6 metric names of the generative scenario, from their definitions (metric-defs.ts), for the scenario that
 * records them, its thresholds and the summary that reads them back. Pure.
 */
import { GENAI_METRIC_DEFS, RECORDED_GENAI_METRICS, type RecordedGenaiMetricKey } from './metric-defs.ts';

/** k6 metric names by key (ttft: 'genai_ttft', ...), read off the one table of definitions (metric-defs.ts). */
export const GENAI_METRICS = Object.fromEntries(
  RECORDED_GENAI_METRICS.map((key) => [key, GENAI_METRIC_DEFS[key].name]),
) as { readonly [K in RecordedGenaiMetricKey]: (typeof GENAI_METRIC_DEFS)[K]['name'] };

/**
 * Each measured request's raw record (metrics.ts GenerationRecord), for re-scoring offline: a Counter sample
 * whose metadata key `record` holds the record as JSON (k6's exec.vu.metrics.metadata, which --out json
 * writes and no summary indexes). Its `scenario` tag names the level.
 */
export const GENAI_RECORD = { metric: 'genai_record', metadata: 'record' } as const;
