/** Ranking synthetic sweep results: best level within budget per config, configs by that throughput. */
import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../measure/capacity/search.ts';
import { rankConfigs } from '../../measure/sweep/rank.ts';
import {
  type SweepRecord,
  sweepTable,
  winnerSentence,
  winnerSnippet,
} from '../../measure/sweep/sweep-report.ts';

const BUDGET = { p95_ms: 20, p99_ms: 50, error_rate: 0.01 };

function m(level: number, throughput_infer_s: number, p95_ms: number, error_rate = 0): Measurement {
  return { level, throughput_infer_s, p95_ms, p99_ms: p95_ms * 2, error_rate, generator_bound: false };
}

describe('rankConfigs', () => {
  const outcomes = [
    // Fastest level misses p95: its best is the level below.
    {
      config: { instances: 1, max_queue_delay_us: 0 },
      levels: [m(1, 500, 2), m(2, 900, 10), m(4, 1400, 30)],
    },
    {
      config: { instances: 2, max_queue_delay_us: 0 },
      levels: [m(1, 600, 2), m(2, 1000, 9), m(4, 1200, 19)],
    },
    // Highest throughput, but with errors above the budget's rate.
    { config: { instances: 4, max_queue_delay_us: 0 }, levels: [m(1, 2000, 2, 0.5)] },
    { config: { instances: 4, max_queue_delay_us: 150 }, levels: [], error: 'load failed' },
  ];
  const ranked = rankConfigs(outcomes, BUDGET);

  it("picks each config's best level within budget and ranks by it", () => {
    expect(
      ranked.map((r) => [r.config.instances, r.config.max_queue_delay_us, r.rank, r.best?.level]),
    ).toEqual([
      [2, 0, 1, 4],
      [1, 0, 2, 2],
      [4, 0, null, undefined],
      [4, 150, null, undefined],
    ]);
    expect(ranked[1]?.verdicts.find((v) => v.level === 4)?.misses).toEqual(['p95', 'p99']);
    expect(ranked[2]?.verdicts[0]?.misses).toEqual(['errors']);
  });

  it('breaks a throughput tie with the lower p95', () => {
    const tie = rankConfigs(
      [
        { config: { instances: 1, max_queue_delay_us: 0 }, levels: [m(2, 800, 12)] },
        { config: { instances: 2, max_queue_delay_us: 0 }, levels: [m(2, 800, 6)] },
      ],
      BUDGET,
    );
    expect(tie[0]?.config.instances).toBe(2);
  });

  it('prints the table, the winner and its snippet from the ranking', () => {
    const record: SweepRecord = {
      model: 'mnist',
      served_model: 'onnx-mnist-cpu',
      target: 'embedded',
      batch: 1,
      budget: BUDGET,
      concurrency: [1, 2, 4],
      original: {
        instances: 5,
        kind: 'KIND_CPU',
        max_queue_delay_us: 150,
        preferred_batch_size: [],
        max_batch_size: 0,
      },
      restored: true,
      ranking: ranked,
      applied: [],
    };
    const table = sweepTable(record).split('\n');
    expect(table).toHaveLength(6);
    expect(table[2]).toBe('| 1 | 2 | 0 | - | - | 4 | 1,200 | 19 | 38 | 0.00% | 3/3 levels (1, 2, 4) |');
    expect(table[5]).toContain('failed: load failed');
    expect(winnerSentence(record)).toMatch(
      /^mnist: best 2 instances, delay 0 us: 1,200 inferences\/s at concurrency 4/,
    );
    expect(winnerSnippet(record)).toContain('count: 2');
    expect(winnerSnippet({ ...record, ranking: ranked.slice(2) })).toBeUndefined();
  });
});
