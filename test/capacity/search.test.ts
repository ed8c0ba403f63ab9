/** The capacity search on synthetic measurements: what it answers, how many levels it measures, and why. */
import { describe, expect, it } from 'vitest';
import {
  type Measurement,
  misses,
  nextStep,
  noiseWords,
  type SearchConfig,
  type Step,
  type Trial,
} from '../../measure/capacity/search.ts';

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

/**
 * A server whose p95 rises 0.7 ms per concurrent request (19.7 ms at 23, 20.4 ms at 24: the boundary), plus a
 * scripted noise per level: the n-th measurement of `level` adds noise[level][n - 1] ms (0 past the script).
 */
function noisy(noise: Record<number, number[]>): (level: number) => Measurement {
  const seen = new Map<number, number>();
  return (level) => {
    const n = (seen.get(level) ?? 0) + 1;
    seen.set(level, n);
    const p95 = 0.7 * level + 3.6 + (noise[level]?.[n - 1] ?? 0);
    return linear(level, { p95_ms: p95, p99_ms: p95 + 2 });
  };
}

/** The request-rate search: from 100 req/s, bisecting to 5%. */
function rateConfig(): SearchConfig {
  return config({
    mode: 'request-rate',
    start: 100,
    max: 100_000,
    resolution: { absolute: 1, relative: 0.05 },
  });
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
    expect(answer.noise).toEqual({ levels: [], band: null });
    expect(answer.limit).toBe('budget');
    expect(answer.limit_detail).toBe('the latency budget at 14 (missed twice): p95 21.00 ms (budget 20 ms)');
    // 1,2,4,8,16 then 12,14,13, the confirmation of 13 and the second look at 14: 10 levels, against 14 for 1..14.
    expect(trials.map((t) => t.measurement.level)).toEqual([1, 2, 4, 8, 16, 12, 14, 13, 13, 14]);
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
      'confirm',
    ]);
    expect(trials[9]!.reason).toBe('14 missed once; measure it again to tell noise from the limit');
  });

  it('reports the confirmation measurement of the answer', () => {
    const { answer } = run(config(), (level, i) => linear(level, { throughput_infer_s: 100 + i }));
    expect(answer.measurement?.throughput_infer_s).toBe(108);
  });

  it('moves down when the confirmation misses the budget, confirms the new boundary, and calls 13 noise', () => {
    let seen13 = 0;
    const { answer, trials } = run(config(), (level) =>
      level === 13 && ++seen13 === 2 ? linear(13, { p99_ms: 40 }) : linear(level),
    );
    expect(answer.level).toBe(12);
    // 13 was within budget once and missed once: ambiguous. 14 missed twice: outside.
    expect(answer.noise).toEqual({ levels: [13], band: { from: 13, to: 13 } });
    expect(answer.above?.level).toBe(14);
    expect(answer.above?.misses).toEqual(['p95']);
    expect(trials.slice(-4).map((t) => [t.measurement.level, t.purpose])).toEqual([
      [13, 'bisect'],
      [13, 'confirm'],
      [12, 'confirm'],
      [14, 'confirm'],
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

  it('answers null when the first level misses the budget twice', () => {
    const { answer, trials } = run(config({ start: 16 }), (level) => linear(level));
    expect(trials.map((t) => [t.measurement.level, t.purpose])).toEqual([
      [16, 'explore'],
      [16, 'confirm'],
    ]);
    expect(answer.level).toBeNull();
    expect(answer.limit).toBe('budget');
    expect(answer.noise.band).toBeNull();
    expect(answer.limit_detail).toMatch(/^the first level, 16, missed it twice/);
  });

  it('calls a first level that misses once and then holds noise, and finds the level outside above it', () => {
    // p95 = 0.7 * level + 3.6: 1 is 4.3 ms; noise pushes 1's first measurement and both of 2's over 20 ms.
    const { answer, trials } = run(config({ start: 1 }), noisy({ 1: [16], 2: [16, 16] }));
    expect(trials.map((t) => t.measurement.level)).toEqual([1, 1, 2, 2]);
    expect(answer.level).toBeNull();
    expect(answer.noise).toEqual({ levels: [1], band: { from: 1, to: 1 } });
    expect(answer.above?.level).toBe(2);
    expect(answer.limit_detail).toMatch(/^the latency budget at 2 \(missed twice\)/);
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
    const cfg = rateConfig();
    const { answer, trials } = run(cfg, (rate) => linear(rate, { p95_ms: rate / 50, p99_ms: rate / 50 }));
    expect(answer.level).not.toBeNull();
    expect(answer.level!).toBeLessThan(1000);
    expect(answer.level!).toBeGreaterThanOrEqual(950);
    expect(answer.above!.level - answer.level!).toBeLessThanOrEqual(0.05 * answer.level!);
    expect(trials.filter((t) => t.measurement.level === answer.above!.level)).toHaveLength(2);
    expect(trials.length).toBeLessThanOrEqual(12);
  });

  it('answers with what it has when the measurements run out', () => {
    const { answer, trials } = run(config({ maxTrials: 6 }), (level) => linear(level));
    expect(trials).toHaveLength(6);
    expect(answer.limit).toBe('trials');
    expect(answer.level).toBe(12);
  });

  it('re-measures only the level above the answer on a clean boundary', () => {
    const { answer, trials } = run(config(), (level) => linear(level));
    // Every level but the answer and the one above it is measured once: no walk above the boundary.
    const counts = new Map<number, number>();
    for (const t of trials) counts.set(t.measurement.level, (counts.get(t.measurement.level) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n > 1)).toEqual([
      [14, 2],
      [13, 2],
    ]);
    expect(answer.noise.levels).toEqual([]);
  });

  it('steps above a level that misses only sometimes to a level that misses twice, keeping the answer below', () => {
    // MNIST-like: p95 rises 0.7 ms per request (within 20 ms up to 23), and a run is sometimes 1.5 ms fast.
    const { answer, trials } = run(config(), noisy({ 24: [0, -1.5] }));
    expect(trials.map((t) => [t.measurement.level, t.purpose])).toEqual([
      [1, 'explore'],
      [2, 'explore'],
      [4, 'explore'],
      [8, 'explore'],
      [16, 'explore'],
      [32, 'explore'],
      [24, 'bisect'],
      [20, 'bisect'],
      [22, 'bisect'],
      [23, 'bisect'],
      [23, 'confirm'],
      // 24 missed once and holds the second time: within noise of the budget.
      [24, 'confirm'],
      // A step of 10% above it; 26 misses, and misses again.
      [26, 'explore'],
      [26, 'confirm'],
    ]);
    expect(trials[12]!.reason).toBe(
      '24 was within budget in 1 of 2 measurements: within noise of the budget; step up to 26 for a level outside it',
    );
    expect(answer.level).toBe(23);
    expect(answer.measurement?.p95_ms).toBeCloseTo(19.7);
    expect(answer.noise).toEqual({ levels: [24], band: { from: 24, to: 25 } });
    expect(answer.above?.level).toBe(26);
    expect(answer.limit).toBe('budget');
    expect(answer.limit_detail).toBe('the latency budget at 26 (missed twice): p95 21.80 ms (budget 20 ms)');
    expect(noiseWords(answer.noise)).toBe('24-25 within noise of the budget');
    // Still fewer levels than the linear sweep 1..26.
    expect(trials.length).toBeLessThan(26);
  });

  it('does not raise the answer for a level within budget above a noisy one; the step doubles', () => {
    // 24 holds on its second look, 26 on its first; 31 (two steps up: 2.6 × 2) misses twice.
    const { answer, trials } = run(config(), noisy({ 24: [0, -1.5], 26: [-2.5] }));
    expect(
      trials.slice(11).map((t) => [t.measurement.level, t.purpose, misses(t.measurement, BUDGET)]),
    ).toEqual([
      [24, 'confirm', []],
      [26, 'explore', []],
      [31, 'explore', ['p95']],
      [31, 'confirm', ['p95']],
    ]);
    expect(answer.level).toBe(23);
    expect(answer.noise).toEqual({ levels: [24, 26], band: { from: 24, to: 30 } });
    expect(answer.above?.level).toBe(31);
  });

  it('re-measures a level that missed while exploring once the steps above the noise reach it', () => {
    // 24 and 26 each miss once and hold once, 31 holds; the next step (3.1 × 8) passes 32, measured while
    // exploring: it missed once there and misses again.
    const cfg = config({ max: 64 });
    const { answer, trials } = run(cfg, noisy({ 24: [0, -1.5], 26: [0, -2.5], 31: [-6] }));
    expect(trials.slice(11).map((t) => [t.measurement.level, t.purpose])).toEqual([
      [24, 'confirm'],
      [26, 'explore'],
      [26, 'confirm'],
      [31, 'explore'],
      [32, 'confirm'],
    ]);
    expect(answer.level).toBe(23);
    expect(answer.noise.levels).toEqual([24, 26, 31]);
    expect(answer.above?.level).toBe(32);
  });

  it('names the ceiling when the noise reaches it', () => {
    // Every level from 24 up holds on its second look: nothing above the answer misses twice.
    const { answer, trials } = run(config({ max: 26 }), noisy({ 24: [0, -3], 26: [0, -3] }));
    expect(trials.slice(-3).map((t) => [t.measurement.level, t.purpose])).toEqual([
      [23, 'confirm'],
      [24, 'confirm'],
      [26, 'confirm'],
    ]);
    expect(answer.level).toBe(23);
    expect(answer.noise).toEqual({ levels: [24, 26], band: { from: 24, to: 26 } });
    expect(answer.above).toBeNull();
    expect(answer.limit).toBe('ceiling');
  });

  it('respects maxTrials in the walk above the answer', () => {
    const { answer, trials } = run(config({ maxTrials: 13 }), noisy({ 24: [0, -1.5], 26: [-2.5] }));
    expect(trials).toHaveLength(13);
    expect(answer.limit).toBe('trials');
    expect(answer.level).toBe(23);
    expect(answer.noise.levels).toEqual([24, 26]);
    // What it has: the level that missed once while exploring stands for the limit, unconfirmed.
    expect(answer.above?.level).toBe(32);
    expect(nextStep(config({ maxTrials: 13 }), trials)).toMatchObject({ kind: 'done' });
    expect(nextStep(config({ maxTrials: 14 }), trials)).toMatchObject({ kind: 'measure', level: 31 });
  });

  it('steps up over request rates by 10% of the noisy rate', () => {
    // p95 = rate / 50 ms: within 20 ms below 1,000 req/s; the second look at the first rate that missed holds.
    const cfg = rateConfig();
    const seen = new Map<number, number>();
    const { answer, trials } = run(cfg, (rate) => {
      const n = (seen.get(rate) ?? 0) + 1;
      seen.set(rate, n);
      const p95 = rate >= 1000 && rate < 1100 && n === 2 ? 19 : rate / 50;
      return linear(rate, { p95_ms: p95, p99_ms: p95 });
    });
    // Bisection ends at 975 within and 1,000 missed; 1,000 holds on its second look; 10% up, 1,100 misses twice.
    expect(trials.slice(-4).map((t) => [t.measurement.level, t.purpose])).toEqual([
      [975, 'confirm'],
      [1000, 'confirm'],
      [1100, 'explore'],
      [1100, 'confirm'],
    ]);
    expect(answer.level).toBe(975);
    expect(answer.noise).toEqual({ levels: [1000], band: { from: 1000, to: 1000 } });
    expect(answer.above?.level).toBe(1100);
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

describe('a generative level against its SLOs', () => {
  const budget = { ...BUDGET, ttft_p95_ms: 150, itl_p95_ms: 10 };
  const genai = (ttft: number, itl: number, good: number) => ({
    ttft_p95_ms: ttft,
    itl_p95_ms: itl,
    output_tokens_per_s: 1000,
    good_fraction: good,
    goodput_per_s: 10 * good,
  });

  it('holds when TTFT and ITL p95 are under their bounds and 95% of requests met every SLO', () => {
    expect(misses(linear(2, { genai: genai(149, 9.9, 0.95) }), budget)).toEqual([]);
  });

  it('names TTFT, ITL and goodput when each misses', () => {
    expect(misses(linear(2, { genai: genai(150, 10, 0.94) }), budget)).toEqual(['ttft', 'itl', 'goodput']);
  });

  it('searches to the highest level whose goodput holds and says the SLOs limit it', () => {
    // Goodput falls under 95% above concurrency 6; latency and TTFT stay within budget throughout.
    const at = (level: number) => linear(level, { genai: genai(100, 5, level <= 6 ? 1 : 0.8) });
    const trials: Trial[] = [];
    let step = nextStep(config({ budget }), trials);
    while (step.kind === 'measure') {
      trials.push({ purpose: step.purpose, reason: step.reason, measurement: at(step.level) });
      step = nextStep(config({ budget }), trials);
    }
    expect(step.answer.level).toBe(6);
    expect(step.answer.limit_detail).toBe(
      'the SLOs at 7 (missed twice): goodput: 80.0% of requests met every SLO (needs 95%)',
    );
  });
});
