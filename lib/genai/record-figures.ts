/**
 * Adds to a generative run's level results what only the raw records give (slices.ts): each level's
 * prefill throughput per user and, with a slice duration, its time slices. Pure.
 */
import type { LevelResult } from '../summary/types.ts';
import type { LeveledRecord } from './rescore.ts';
import { levelSlices, prefillThroughput } from './slices.ts';

/** Options of the record figures. */
export interface RecordFigureOptions {
  /** AIPerf's --slice-duration, seconds; no slices when absent. */
  slice_s?: number;
}

/** `levels` with their records' figures added to their `genai`; a level without records is left as it is. */
export function withRecordFigures(
  levels: readonly LevelResult[],
  records: readonly LeveledRecord[],
  options: RecordFigureOptions = {},
): LevelResult[] {
  return levels.map((level) => {
    const own = records.filter((r) => r.level === level.name);
    if (!level.genai || own.length === 0) return level;
    const prefill = prefillThroughput(own);
    const slices = options.slice_s === undefined ? [] : levelSlices(own, level.window_s, options.slice_s);
    return {
      ...level,
      genai: {
        ...level.genai,
        ...(prefill ? { prefill_tokens_per_s: prefill } : {}),
        ...(slices.length > 0 ? { slices } : {}),
      },
    };
  });
}
