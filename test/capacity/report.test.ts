/** The capacity answer in words: the sentence, the row and the planning projection. */
import { describe, expect, it } from 'vitest';
import { planningBasis, project } from '../../measure/capacity/projection.ts';
import {
  type CapacityRecord,
  capacityMarkdown,
  capacityRow,
  capacitySentence,
  measurementText,
  noProjectionSentence,
  projectionSentence,
} from '../../measure/capacity/capacity-report.ts';
import { type Measurement, nextStep, type Trial } from '../../measure/capacity/search.ts';

const m: Measurement = {
  level: 8,
  throughput_infer_s: 1_054_310,
  p95_ms: 18.71,
  p99_ms: 26.2,
  error_rate: 0,
  stable: true,
  generator_bound: false,
};

function record(overrides: Partial<CapacityRecord> = {}): CapacityRecord {
  return {
    model: 'dlrm',
    mode: 'concurrency',
    batch: 4096,
    budget: { p95_ms: 20, p99_ms: 30, error_rate: 0.01 },
    answer: {
      level: 8,
      measurement: m,
      above: null,
      noise: { levels: [], band: null },
      limit: 'budget',
      limit_detail: 'the latency budget at 9: p95 21.30 ms (budget 20 ms)',
      trials: 7,
    },
    path: [],
    ...overrides,
  };
}

describe('capacity report', () => {
  it('says the answer in the seeds’ sentence', () => {
    expect(capacitySentence(record())).toBe(
      'dlrm: 8 concurrent requests of 4096, 1,054,310 inferences/s, p95 18.7 ms (budget 20 ms), ' +
        'p99 26.2 ms (budget 30 ms); limited by the latency budget at 9: p95 21.30 ms (budget 20 ms)',
    );
    expect(capacityRow(record())).toBe('| dlrm | 8 | 1,054,310 | 18.7 | 26.2 | 0.00% | budget |');
  });

  it('names the levels within noise of the budget between the answer and the level outside it', () => {
    const noisy = record({
      model: 'mnist',
      batch: 1,
      answer: {
        ...record().answer,
        level: 23,
        measurement: { ...m, level: 23, throughput_infer_s: 2291, p95_ms: 16.6, p99_ms: 19.1 },
        above: { level: 26, misses: ['p95'], measurement: { ...m, level: 26, p95_ms: 22 } },
        noise: { levels: [24], band: { from: 24, to: 25 } },
        limit_detail: 'the latency budget at 26 (missed twice): p95 22.00 ms (budget 20 ms)',
      },
    });
    expect(capacitySentence(noisy)).toBe(
      'mnist: 23 concurrent requests of 1, 2,291 inferences/s, p95 16.6 ms (budget 20 ms), ' +
        'p99 19.1 ms (budget 30 ms); 24-25 within noise of the budget; ' +
        'limited by the latency budget at 26 (missed twice): p95 22.00 ms (budget 20 ms)',
    );
    expect(capacityMarkdown(noisy)).toContain('; 24-25 within noise of the budget; ');
  });

  it('says when the answer never stabilised and when nothing was within budget', () => {
    const unstable = record();
    unstable.answer.measurement = { ...m, stable: false };
    expect(capacitySentence(unstable)).toMatch(/did not stabilise/);
    const none = record({
      answer: {
        ...record().answer,
        level: null,
        measurement: null,
        limit_detail: 'the first level, 1, missed it twice: p95 21.00 ms (budget 20 ms)',
      },
    });
    expect(capacitySentence(none)).toBe(
      'dlrm: no concurrency within budget (p95 20 ms, p99 30 ms); the first level, 1, missed it twice: p95 21.00 ms (budget 20 ms)',
    );
    expect(capacityRow(none)).toContain('| none |');
  });

  it('reads as English when the search runs out of measurements', () => {
    const config = {
      mode: 'concurrency' as const,
      budget: record().budget,
      start: 1,
      max: 256,
      resolution: { absolute: 1, relative: 0 },
      maxTrials: 2,
    };
    const trials: Trial[] = [];
    let step = nextStep(config, trials);
    while (step.kind === 'measure') {
      trials.push({ purpose: step.purpose, reason: step.reason, measurement: { ...m, level: step.level } });
      step = nextStep(config, trials);
    }
    expect(step.answer.limit).toBe('trials');
    expect(capacitySentence(record({ answer: step.answer }))).toMatch(
      /; limited by the number of measurements: all 2 were used \(raise --max-levels to search on\)$/,
    );
  });

  it('says whether a measurement was stable in its console line', () => {
    const budget = record().budget;
    expect(measurementText(m, budget)).toBe(
      '1,054,310 infer/s, p95 18.7 ms, p99 26.2 ms, errors 0.00%, stable → within budget',
    );
    expect(measurementText({ ...m, stable: false, passes: 3, p95_ms: 21 }, budget)).toBe(
      '1,054,310 infer/s, p95 21.0 ms, p99 26.2 ms, errors 0.00%, unstable after 3 passes → missed p95',
    );
  });

  it('plans servers from stable measurements only, and says so when none is stable', () => {
    const budget = record().budget;
    const path: Measurement[] = [
      { ...m, level: 4, throughput_infer_s: 500 },
      { ...m, level: 6, throughput_infer_s: 700 },
      { ...m, level: 6, throughput_infer_s: 900, stable: false },
      { ...m, level: 9, throughput_infer_s: 950, p95_ms: 25 },
      { ...m, level: 8, throughput_infer_s: 1000, stable: false },
    ];
    const unstable = { level: 8, measurement: path[4]! };
    // The answer (8) never stabilised: the plan rests on 6's stable measurement, not on 8's 1,000/s.
    expect(planningBasis(path, unstable, budget)).toBe(path[1]);
    expect(planningBasis(path, { level: 8, measurement: path[1]! }, budget)).toBe(path[1]);
    expect(planningBasis(path.slice(2), unstable, budget)).toBeUndefined();
    expect(planningBasis(path, { level: null, measurement: null }, budget)).toBeUndefined();
    const p = { ...project(2000, 700), level: 6 };
    expect(projectionSentence(p)).toMatch(/; from the stable measurement of 6 within budget$/);
    expect(noProjectionSentence(record())).toMatch(
      /^no stable measurement within budget, so no server count/,
    );
  });

  it('projects servers for a target rate with the headroom', () => {
    const p = project(5000, 2000);
    expect(p.servers).toBe(3);
    expect(p.headroom_pct).toBeCloseTo(20);
    expect(p.utilisation_pct).toBeCloseTo(83.33, 1);
    expect(projectionSentence(p)).toBe(
      '5,000 inferences/s needs 3 servers at 2,000 inferences/s each (6,000 in all): headroom 20%, each server at 83% of its measured capacity',
    );
    expect(project(2000, 2000).servers).toBe(1);
    expect(() => project(0, 2000)).toThrow(/--target-rate must be a positive number/);
    expect(() => project(100, 0)).toThrow(/no capacity was measured within budget/);
  });
});
