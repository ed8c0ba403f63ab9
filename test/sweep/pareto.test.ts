/** The sweep's Pareto front (throughput vs p95): which points are on it, and the plot and table it writes. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../measure/capacity/search.ts';
import { rankConfigs } from '../../measure/sweep/rank.ts';
import { paretoTable, type SweepRecord, sweepPoints, writeSweep } from '../../measure/sweep/sweep-report.ts';
import { type ParetoPoint, paretoFront, paretoSpec } from '../../report/pareto.ts';

const BUDGET = { p95_ms: 20, p99_ms: 50, error_rate: 0.01 };

const point = (label: string, throughput_infer_s: number, p95_ms: number, level = 1): ParetoPoint => ({
  label,
  level,
  throughput_infer_s,
  p95_ms,
});

function m(level: number, throughput_infer_s: number, p95_ms: number): Measurement {
  return { level, throughput_infer_s, p95_ms, p99_ms: p95_ms * 2, error_rate: 0, generator_bound: false };
}

describe('paretoFront', () => {
  it('keeps the points no other point beats on both throughput and p95, ordered by p95', () => {
    const points = [
      point('a', 1000, 2), // front: lowest p95
      point('b', 900, 3), // dominated by a
      point('c', 2000, 5), // front
      point('d', 2000, 6), // dominated by c (same throughput, more p95)
      point('e', 1500, 5), // dominated by c (same p95, less throughput)
      point('f', 3000, 30), // front: highest throughput, whatever its p95
      point('g', 0, Number.POSITIVE_INFINITY), // no request completed: never on it
    ];
    expect(paretoFront(points)).toEqual([0, 2, 5]);
  });

  it('keeps equal points both, and handles none or one', () => {
    expect(paretoFront([point('a', 10, 1), point('b', 10, 1), point('c', 5, 2)])).toEqual([0, 1]);
    expect(paretoFront([])).toEqual([]);
    expect(paretoFront([point('a', 10, 1)])).toEqual([0]);
  });

  it('marks the front in the spec and draws the budget as a vertical rule', () => {
    const spec = JSON.stringify(paretoSpec([point('a', 1000, 2), point('b', 900, 3)], { p95_budget_ms: 20 }));
    expect(spec).toContain('"front":"on the front"');
    expect(spec).toContain('"front":"dominated"');
    // p95s of 2 and 3 ms: the axis ends near them and the 20 ms budget is drawn at its right edge.
    expect(spec).toContain('"domain":[0,3.3');
    expect(spec).toContain('"label":"p95 budget 20 ms (beyond the chart) →"');
    const near = JSON.stringify(
      paretoSpec([point('a', 1000, 12), point('b', 900, 15)], { p95_budget_ms: 20 }),
    );
    expect(near).toContain('"label":"p95 budget 20 ms"');
    expect(near).toContain('"y_ms":20');
    // Each point named by its level.
    expect(spec).toContain('"name":"c1"');
  });
});

describe('the sweep report', () => {
  const record: SweepRecord = {
    model: 'mnist',
    served_model: 'onnx-mnist-cpu',
    target: 'embedded',
    batch: 1,
    budget: BUDGET,
    concurrency: [1, 2, 4],
    original: {
      instances: 5,
      max_queue_delay_us: 150,
      preferred_batch_size: [],
      max_batch_size: 8,
      kind: 'KIND_CPU',
    },
    restored: true,
    ranking: rankConfigs(
      [
        {
          config: { instances: 1, max_queue_delay_us: 0 },
          levels: [m(1, 500, 1), m(2, 900, 4), m(4, 1000, 25)],
        },
        {
          config: { instances: 2, max_queue_delay_us: 150 },
          levels: [m(1, 450, 1.5), m(2, 1100, 3), m(4, 1300, 12)],
        },
      ],
      BUDGET,
    ),
    applied: [],
  };

  it('lists the front in a table with each point judged against the budget', () => {
    expect(sweepPoints(record)).toHaveLength(6);
    const table = paretoTable(record).split('\n');
    expect(table.slice(2)).toEqual([
      '| 1 instance, delay 0 us | 1 | 500 | 1 | yes |',
      '| 2 instances, delay 150 us | 2 | 1,100 | 3 | yes |',
      '| 2 instances, delay 150 us | 4 | 1,300 | 12 | yes |',
    ]);
  });

  it('writes pareto.svg and embeds it in report.md beside the table', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sweep-pareto-'));
    expect(await writeSweep(dir, record)).toEqual([]);
    const svg = readFileSync(join(dir, 'pareto.svg'), 'utf8');
    expect(svg).toMatch(/^<svg/);
    expect(svg).toContain('p95 budget 20 ms');
    expect(svg).toContain('2 instances, delay 150 us');
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(md).toContain('](pareto.svg)');
    expect(md).toContain('## Pareto front (throughput vs p95)');
  });
});
