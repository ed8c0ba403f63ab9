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

/**
 * Tag of a multi-turn run's request samples: the turn's index in its session, from 1. The summary reads
 * `genai_ttft{scenario:c2,turn:3}` (tags in alphabetical order, as lib/load/names.ts subWindowKey's).
 */
export const TURN_TAG = 'turn';

/** A per-turn sub-metric key of a level. */
export function turnMetricKey(metric: string, scenario: string, turn: number): string {
  return `${metric}{scenario:${scenario},${TURN_TAG}:${turn}}`;
}

/** The metrics recorded per turn (tagged `turn`) whose per-turn sub-metrics the summary reads. */
export const PER_TURN_METRICS = ['ttft', 'latency', 'isl'] as const;
