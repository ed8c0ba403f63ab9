/** The capacity search on synthetic measurements: what it answers, how many levels it measures, and why. */
import { describe, expect, it } from 'vitest';
import {
  type Measurement,
  misses,
  nextStep,
  type SearchConfig,
  type Step,
  type Trial,
} from '../../cli/capacity/search.ts';

const BUDGET = { p95_ms: 20, p99_ms: 30, error_rate: 0.01 };

function config(overrides: Partial<SearchConfig> = {}): SearchConfig {
  return {
    mode: 'concurrency',
    budget: BUDGET,
    start: 1,
    max: 256,
    resolution: { absolute: 1, relative: 0 },
    ...overrides,
  };
}

/** A server whose p95 grows 1.5 ms per concurrent request: within the 20 ms budget up to 13. */
function linear(level: number, extra: Partial<Measurement> = {}): Measurement {
  return {
    level,
    throughput_infer_s: 1000 * Math.min(level, 8),
    p95_ms: 1.5 * level,
    p99_ms: 1.5 * level + 2,
    error_rate: 0,
    stable: true,
    generator_bound: false,
    ...extra,
  };
}

/** Runs the search to its answer, measuring with `measure`; at most 100 steps. */
function run(cfg: SearchConfig, measure: (level: number, trial: number) => Measurement) {
  const trials: Trial[] = [];
  for (let i = 0; i < 100; i++) {
    const step: Step = nextStep(cfg, trials);
    if (step.kind === 'done') return { answer: step.answer, trials };
    trials.push({ purpose: step.purpose, reason: step.reason, measurement: measure(step.level, i) });
  }
  throw new Error('the search did not end in 100 steps');
}

describe('capacity search', () => {
  it('finds the highest concurrency within budget in fewer levels than a linear sweep', () => {
    const { answer, trials } = run(config(), (level) => linear(level));
    expect(answer.level).toBe(13);
    expect(answer.above?.level).toBe(14);
    expect(answer.above?.misses).toEqual(['p95']);
    expect(answer.limit).toBe('budget');
    expect(answer.limit_detail).toContain('p95 21.00 ms (budget 20 ms)');
    // 1,2,4,8,16 then 12,14,13 then the confirmation of 13: 9 levels, against 14 for 1..14.
    expect(trials.map((t) => t.measurement.level)).toEqual([1, 2, 4, 8, 16, 12, 14, 13, 13]);
    expect(trials.map((t) => t.purpose)).toEqual([
      'explore',
      'explore',
      'explore',
      'explore',
      'explore',
      'bisect',
      'bisect',
      'bisect',
      'confirm',
    ]);
  });

  it('reports the confirmation measurement of the answer', () => {
    const { answer } = run(config(), (level, i) => linear(level, { throughput_infer_s: 100 + i }));
    expect(answer.measurement?.throughput_infer_s).toBe(108);
  });

  it('moves down when the confirmation misses the budget, and confirms the new boundary', () => {
    let seen13 = 0;
    const { answer, trials } = run(config(), (level) =>
      level === 13 && ++seen13 === 2 ? linear(13, { p99_ms: 40 }) : linear(level),
    );
    expect(answer.level).toBe(12);
    expect(answer.above?.level).toBe(13);
    expect(answer.above?.misses).toEqual(['p99']);
    expect(trials.slice(-3).map((t) => [t.measurement.level, t.purpose])).toEqual([
      [13, 'bisect'],
      [13, 'confirm'],
      [12, 'confirm'],
    ]);
  });

  it('measures an unstable level again, at most `attempts` times, and judges the last', () => {
    const { answer, trials } = run(config({ max: 4, attempts: 3 }), (level) =>
      level === 2 ? linear(2, { stable: false }) : linear(level),
    );
    const at2 = trials.filter((t) => t.measurement.level === 2);
    expect(at2.map((t) => t.purpose)).toEqual(['explore', 'retry', 'retry']);
    expect(answer.level).toBe(4);
  });

  it('stops retrying once the level is stable', () => {
    let calls = 0;
    const { trials } = run(config({ max: 2 }), (level) =>
      level === 2 && ++calls === 1 ? linear(2, { stable: false }) : linear(level),
    );
    expect(trials.map((t) => [t.measurement.level, t.purpose])).toEqual([
      [1, 'explore'],
      [2, 'explore'],
      [2, 'retry'],
      [2, 'confirm'],
    ]);
  });

  it('answers null when the first level misses the budget', () => {
    const { answer, trials } = run(config({ start: 16 }), (level) => linear(level));
    expect(trials).toHaveLength(1);
    expect(answer.level).toBeNull();
    expect(answer.limit).toBe('budget');
    expect(answer.limit_detail).toMatch(/^no level within budget; the first, 16, missed it/);
  });

  it('names the ceiling when every level up to --max is within budget', () => {
    const { answer, trials } = run(config({ max: 6 }), (level) => linear(level));
    expect(trials.map((t) => t.measurement.level)).toEqual([1, 2, 4, 6, 6]);
    expect(answer.level).toBe(6);
    expect(answer.limit).toBe('ceiling');
    expect(answer.above).toBeNull();
  });

  it('names errors when the level above missed only the error budget', () => {
    const { answer } = run(config(), (level) =>
      linear(level, { p95_ms: 1, p99_ms: 2, error_rate: level > 5 ? 0.05 : 0 }),
    );
    expect(answer.level).toBe(5);
    expect(answer.limit).toBe('errors');
    expect(answer.limit_detail).toContain('errors 5.00%');
  });

  it('names the generator when the answer or the level above was generator bound', () => {
    const { answer } = run(config(), (level) => linear(level, { generator_bound: level >= 14 }));
    expect(answer.level).toBe(13);
    expect(answer.limit).toBe('generator');
    expect(answer.limit_detail).toContain('bound at 14');
  });

  it('searches request rates to a relative resolution', () => {
    // p95 = rate / 50 ms: within 20 ms below 1,000 req/s.
    const cfg = config({
      mode: 'request-rate',
      start: 100,
      max: 100_000,
      resolution: { absolute: 1, relative: 0.05 },
    });
    const { answer, trials } = run(cfg, (rate) => linear(rate, { p95_ms: rate / 50, p99_ms: rate / 50 }));
    expect(answer.level).not.toBeNull();
    expect(answer.level!).toBeLessThan(1000);
    expect(answer.level!).toBeGreaterThanOrEqual(950);
    expect(answer.above!.level - answer.level!).toBeLessThanOrEqual(0.05 * answer.level!);
    expect(trials.length).toBeLessThan(12);
  });

  it('answers with what it has when the measurements run out', () => {
    const { answer, trials } = run(config({ maxTrials: 6 }), (level) => linear(level));
    expect(trials).toHaveLength(6);
    expect(answer.limit).toBe('trials');
    expect(answer.level).toBe(12);
  });

  it('judges the budget strictly, as k6 thresholds do', () => {
    expect(misses(linear(1, { p95_ms: 20 }), BUDGET)).toEqual(['p95']);
    expect(misses(linear(1, { error_rate: 0.01 }), BUDGET)).toEqual(['errors']);
    expect(misses(linear(1, { error_rate: 0.001 }), { ...BUDGET, error_rate: 0 })).toEqual(['errors']);
    expect(misses(linear(1, { p95_ms: Number.POSITIVE_INFINITY }), BUDGET)).toContain('p95');
    expect(misses(linear(1), BUDGET)).toEqual([]);
  });

  it('rejects a start above the ceiling', () => {
    expect(() => nextStep(config({ start: 8, max: 4 }), [])).toThrow(/start 8 must be > 0 and at most max 4/);
  });
});
