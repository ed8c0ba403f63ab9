/**
 * Ranking: each config's best level is its highest throughput among the levels within the budget (p95, p99,
 * error rate, judged as the capacity search judges them); configs rank by that throughput. Pure.
 */
import { type Measurement, type Miss, misses, type SearchBudget } from '../capacity/search.ts';
import type { SweepConfig } from './grid.ts';

/** What was measured for one config: its levels, or why it could not be measured. */
export interface ConfigOutcome {
  config: SweepConfig;
  levels: Measurement[];
  /** Set when the config could not be loaded or its bench run failed. */
  error?: string;
}

/** A config's place in the ranking. */
export interface RankedConfig extends ConfigOutcome {
  /** 1-based; configs with no level within budget come last, unranked (null). */
  rank: number | null;
  /** Its best level within budget. */
  best?: Measurement;
  /** Each measured level's budget misses, by level. */
  verdicts: { level: number; misses: Miss[] }[];
}

/** Ranks outcomes by best throughput within budget; ties go to the lower p95, then the grid's order. */
export function rankConfigs(outcomes: readonly ConfigOutcome[], budget: SearchBudget): RankedConfig[] {
  const judged = outcomes.map((outcome, index) => {
    const verdicts = outcome.levels.map((m) => ({ level: m.level, misses: misses(m, budget) }));
    const within = outcome.levels.filter((_, i) => verdicts[i]?.misses.length === 0);
    const best = within.reduce<Measurement | undefined>(
      (a, m) =>
        !a ||
        m.throughput_infer_s > a.throughput_infer_s ||
        (m.throughput_infer_s === a.throughput_infer_s && m.p95_ms < a.p95_ms)
          ? m
          : a,
      undefined,
    );
    return { ...outcome, verdicts, index, ...(best ? { best } : {}) };
  });
  const order = [...judged].sort((a, b) => {
    if (a.best && b.best)
      return (
        b.best.throughput_infer_s - a.best.throughput_infer_s ||
        a.best.p95_ms - b.best.p95_ms ||
        a.index - b.index
      );
    if (a.best || b.best) return a.best ? -1 : 1;
    return a.index - b.index;
  });
  return order.map(({ index: _index, ...r }, i) => ({ ...r, rank: r.best ? i + 1 : null }));
}
