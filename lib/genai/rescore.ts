/**
 * Re-scoring a run offline: its raw per-request records (records.jsonl), grouped by level in run order and
 * scored again by metrics.ts with the caller's choices (first-token rule, SLOs, window), so a definition can
 * change after the run without running it again. Pure.
 */
import {
  type GenerationRecord,
  type LevelMetricOptions,
  type LevelMetrics,
  levelMetrics,
} from './metrics.ts';

/** One level's records, as records.jsonl holds them (the level is its scenario's name, e.g. c4 or r2). */
export interface LeveledRecord extends GenerationRecord {
  level: string;
  /** A conversation turn's index in its session, from 1 (as the per-turn figures' `turn` tag). */
  turn?: number;
}

/** One level scored again. */
export interface RescoredLevel {
  level: string;
  metrics: LevelMetrics;
}

/** Scores each level's records with `opts`; levels come in the order their first record does. */
export function rescoreLevels(
  records: readonly LeveledRecord[],
  opts: LevelMetricOptions = {},
): RescoredLevel[] {
  const byLevel = new Map<string, GenerationRecord[]>();
  for (const r of records) {
    const list = byLevel.get(r.level) ?? [];
    if (list.length === 0) byLevel.set(r.level, list);
    list.push(r);
  }
  return [...byLevel].map(([level, list]) => ({ level, metrics: levelMetrics(list, opts) }));
}
