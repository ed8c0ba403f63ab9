/** The --confirm-sweep pass: which levels it measures and when it confirms the search's answer. */
import { describe, expect, it } from 'vitest';
import {
  confirmationSentence,
  confirmPlan,
  judgeConfirmation,
  MAX_LINEAR_LEVELS,
} from '../../measure/capacity/confirm.ts';
import { measurementsFor } from '../../measure/capacity/measure-levels.ts';
import {
  type Answer,
  type Measurement,
  nextStep,
  type SearchConfig,
  type Trial,
} from '../../measure/capacity/search.ts';
import { level as levelResult } from '../report/fixture.ts';

const BUDGET = { p95_ms: 20, p99_ms: 30, error_rate: 0.01 };
const RANGE = { mode: 'concurrency' as const, start: 1, max: 256 };

/** A server within the 20 ms p95 budget up to concurrency 13 (p95 = 1.5 ms per request). */
function server(level: number): Measurement {
  return {
    level,
    throughput_infer_s: 1000 * Math.min(level, 8),
    p95_ms: 1.5 * level,
    p99_ms: 1.5 * level + 2,
    error_rate: 0,
    stable: true,
    generator_bound: false,
  };
}

/** The search's answer on `measure`, and how many levels it measured. */
function search(measure: (level: number) => Measurement, overrides: Partial<SearchConfig> = {}) {
  const config: SearchConfig = {
    ...RANGE,
    budget: BUDGET,
    resolution: { absolute: 1, relative: 0 },
    ...overrides,
  };
  const trials: Trial[] = [];
  for (;;) {
    const step = nextStep(config, trials);
    if (step.kind === 'done') return { answer: step.answer, trials: trials.map((t) => t.measurement.level) };
    trials.push({ purpose: step.purpose, reason: step.reason, measurement: measure(step.level) });
  }
}

describe('capacity confirmation pass', () => {
  it('benches every level up to the one above the answer and confirms a true answer', () => {
    const { answer, trials } = search(server);
    const plan = confirmPlan(RANGE, answer);
    expect(plan).toEqual({ kind: 'linear', next: 14, levels: Array.from({ length: 14 }, (_, i) => i + 1) });
    const c = judgeConfirmation(plan, answer, plan.levels.map(server), BUDGET, trials);
    expect(c.confirms).toBe(true);
    expect(c.linear_answer).toBe(13);
    expect(c.at?.misses).toEqual([]);
    expect(c.next?.misses).toEqual(['p95']);
    // The search measured fewer levels than the linear pass that confirms it.
    expect(c.search_levels).toBe(10);
    expect(c.search_distinct_levels).toBe(8);
    expect(c.search_levels).toBeLessThan(c.levels.length);
    expect(confirmationSentence(c, BUDGET)).toBe(
      'confirmed: a linear bench over 1..14 (14 levels; the search measured 10, 8 distinct): 13 within budget ' +
        '(p95 19.50 ms, p99 21.50 ms, errors 0.00%), 14 outside it (missed p95: p95 21.00 ms, ' +
        'p99 23.00 ms, errors 0.00%; budget p95 20 ms, p99 30 ms)',
    );
  });

  it('does not confirm when the level above the answer is within budget in the pass', () => {
    const { answer, trials } = search(server);
    const plan = confirmPlan(RANGE, answer);
    // The server got faster between the search and the pass: 14 now holds.
    const faster = (level: number) => ({ ...server(level), p95_ms: level * 1.3 });
    const c = judgeConfirmation(plan, answer, plan.levels.map(faster), BUDGET, trials);
    expect(c.confirms).toBe(false);
    expect(c.linear_answer).toBe(14);
    expect(confirmationSentence(c, BUDGET)).toMatch(
      /^NOT confirmed: .*14 within budget .*; the linear bench alone would answer 14$/,
    );
  });

  it('judges the answer and the level above it; a miss below the answer is named, not a verdict', () => {
    const { answer, trials } = search(server);
    const plan = confirmPlan(RANGE, answer);
    const noisy = (level: number) => (level === 12 ? { ...server(12), p99_ms: 45 } : server(level));
    const c = judgeConfirmation(plan, answer, plan.levels.map(noisy), BUDGET, trials);
    // The rule: the answer within budget and the next level outside it.
    expect(c.confirms).toBe(true);
    // A linear sweep alone stops at its first miss, and the sentence says so.
    expect(c.linear_answer).toBe(11);
    expect(confirmationSentence(c, BUDGET)).toMatch(
      /^confirmed: .*; the linear bench alone would answer 11$/,
    );
    const missed = judgeConfirmation(
      plan,
      answer,
      plan.levels.map((l) => (l === 13 ? { ...server(13), error_rate: 0.5 } : server(l))),
      BUDGET,
      trials,
    );
    expect(missed.confirms).toBe(false);
    expect(missed.at?.misses).toEqual(['errors']);
  });

  it('judges the answer against the level the search found outside, and names the noise between unjudged', () => {
    // p95 0.7 ms per request: within 20 ms up to 23; the search's second look at 24 came out 1.5 ms fast.
    const slope = (level: number, noise = 0) => ({
      ...server(level),
      p95_ms: 0.7 * level + 3.6 + noise,
      p99_ms: 0.7 * level + 5.6 + noise,
    });
    let seen24 = 0;
    const { answer, trials } = search((level) => slope(level, level === 24 && ++seen24 === 2 ? -1.5 : 0));
    expect(answer.level).toBe(23);
    expect(answer.above?.level).toBe(26);
    const plan = confirmPlan(RANGE, answer);
    // No longer answer + 1: the pass runs to 26, the first level outside in every measurement.
    expect(plan).toEqual({ kind: 'linear', next: 26, levels: Array.from({ length: 26 }, (_, i) => i + 1) });
    // The pass sees 24 and 25 within budget: noise, not a verdict against the answer.
    const pass = plan.levels.map((l) => slope(l, l === 24 || l === 25 ? -2 : 0));
    const c = judgeConfirmation(plan, answer, pass, BUDGET, trials);
    expect(c.confirms).toBe(true);
    expect(c.next?.measurement.level).toBe(26);
    expect(c.noise.band).toEqual({ from: 24, to: 25 });
    expect(c.linear_answer).toBe(25);
    expect(confirmationSentence(c, BUDGET)).toBe(
      'confirmed: a linear bench over 1..26 (26 levels; the search measured 14, 11 distinct): 23 within budget ' +
        '(p95 19.70 ms, p99 21.70 ms, errors 0.00%), 24-25 within noise of the budget (not judged), 26 outside it ' +
        '(missed p95: p95 21.80 ms, p99 23.80 ms, errors 0.00%; budget p95 20 ms, p99 30 ms); ' +
        'the linear bench alone would answer 25',
    );
    // 26 within budget in the pass: the level the search called outside is not, so no confirmation.
    const held = judgeConfirmation(
      plan,
      answer,
      plan.levels.map((l) => slope(l, l === 26 ? -2.5 : 0)),
      BUDGET,
      trials,
    );
    expect(held.confirms).toBe(false);
    expect(confirmationSentence(held, BUDGET)).toMatch(/^NOT confirmed: .*26 within budget/);
  });

  it('checks "no level within budget" with the first level alone', () => {
    const slow = (level: number) => ({ ...server(level), p95_ms: 20.3, p99_ms: 66 });
    const { answer, trials } = search(slow);
    expect(answer.level).toBeNull();
    const plan = confirmPlan(RANGE, answer);
    expect(plan.levels).toEqual([1]);
    const c = judgeConfirmation(plan, answer, plan.levels.map(slow), BUDGET, trials);
    expect(c.confirms).toBe(true);
    expect(c.linear_answer).toBeNull();
    expect(confirmationSentence(c, BUDGET)).toMatch(
      /^confirmed: a linear bench over 1\.\.1 \(1 level; the search measured 2, 1 distinct\): no level within budget: 1 outside it \(missed p95, p99/,
    );
    const fine = judgeConfirmation(plan, answer, [server(1)], BUDGET, trials);
    expect(fine.confirms).toBe(false);
  });

  it('checks "no level within budget" against the level above when the first level was noise', () => {
    const answer: Answer = {
      level: null,
      measurement: null,
      above: { level: 2, misses: ['p95'], measurement: { ...server(2), p95_ms: 21 } },
      noise: { levels: [1], band: { from: 1, to: 1 } },
      limit: 'budget',
      limit_detail: '',
      trials: 4,
    };
    const plan = confirmPlan(RANGE, answer);
    expect(plan).toEqual({ kind: 'linear', levels: [1, 2], next: 2 });
    const outside = (level: number) => ({ ...server(level), p95_ms: 21 });
    const c = judgeConfirmation(plan, answer, [server(1), outside(2)], BUDGET, [1, 1, 2, 2]);
    expect(c.confirms).toBe(true);
    expect(confirmationSentence(c, BUDGET)).toContain(
      'no level within budget: 1 within noise of the budget (not judged), 2 outside it',
    );
    expect(judgeConfirmation(plan, answer, [outside(1), server(2)], BUDGET, [1, 1, 2, 2]).confirms).toBe(
      false,
    );
  });

  it('measures only the answer and the level found outside when the linear range is too long', () => {
    const answer: Answer = {
      level: 100,
      measurement: server(100),
      above: { level: 104, misses: ['p95'], measurement: server(104) },
      noise: { levels: [101, 102], band: { from: 101, to: 103 } },
      limit: 'budget',
      limit_detail: '',
      trials: 12,
    };
    expect(104 - RANGE.start + 1).toBeGreaterThan(MAX_LINEAR_LEVELS);
    expect(confirmPlan(RANGE, answer)).toEqual({ kind: 'around', levels: [100, 104], next: 104 });
    // At the ceiling there is no level above: the answer alone is checked.
    const top = { ...answer, level: 8, above: null, noise: { levels: [], band: null } };
    expect(confirmPlan({ ...RANGE, max: 8 }, top)).toEqual({
      kind: 'linear',
      levels: [1, 2, 3, 4, 5, 6, 7, 8],
      next: undefined,
    });
    // Request rates: the answer and the lowest rate the search saw outside the budget.
    const rate = {
      ...answer,
      level: 250,
      above: { level: 262.5, misses: ['p95' as const], measurement: server(1) },
    };
    expect(confirmPlan({ mode: 'request-rate', start: 10, max: 1000 }, rate)).toEqual({
      kind: 'around',
      levels: [250, 262.5],
      next: 262.5,
    });
  });
});

describe('measurementsFor', () => {
  it('pairs requested levels with their results and counts a finished level with no result as all errors', () => {
    const results = [
      levelResult({ level: 1, throughput_infer_s: 900 }),
      levelResult({ level: 3, throughput_infer_s: 2000, requests: 0 }),
    ];
    const measured = measurementsFor([1, 2, 3], results, true);
    expect(measured.map((m) => [m.level, m.throughput_infer_s, m.error_rate])).toEqual([
      [1, 900, 0],
      [2, 0, 1],
      [3, 0, 1],
    ]);
    expect(measured[0]?.p95_ms).toBeCloseTo(2.0005);
    // A failed run keeps only the levels it finished.
    expect(measurementsFor([1, 2, 3], results, false).map((m) => m.level)).toEqual([1, 3]);
  });
});
