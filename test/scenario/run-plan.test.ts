import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WindowClock } from '../../lib/load/windows.ts';
import { resolveRunPlan, validateEveryFromEnv } from '../../scenarios/kit/run-plan.ts';
import { levelSummary } from '../../scenarios/kit/summary.ts';
import type { LevelResult } from '../../lib/summary/types.ts';
import { getModel } from '../../models/index.ts';

const MNIST = getModel('mnist');
const BUDGET_PATH = new URL('../../thresholds/mnist.json', import.meta.url);
const BUDGET = readFileSync(BUDGET_PATH, 'utf8');

/** A k6 summary for level c1 whose three sub-windows differ by about 2% in count. */
function summary(): Record<string, unknown> {
  const trend = (avg: number, count: number) => ({ values: { avg, 'p(95)': avg, 'p(99)': avg, count } });
  return {
    metrics: {
      'http_req_duration{scenario:c1}': trend(1, 3030),
      'http_req_duration{scenario:c1,window:0}': trend(1, 1000),
      'http_req_duration{scenario:c1,window:1}': trend(1, 1010),
      'http_req_duration{scenario:c1,window:2}': trend(1, 1020),
      'iteration_duration{scenario:c1}': trend(1.05, 3030),
    },
  };
}

describe('resolveRunPlan', () => {
  it('resolves levels, windows and the exec functions once from the entry and the environment', () => {
    const run = resolveRunPlan(MNIST, { CONCURRENCY: '1,2', STEP_DURATION: '3s' }, BUDGET, 'mnist.json');
    expect(run.plan.levels.map((l) => l.name)).toEqual(['c1', 'c2']);
    expect(run.plan.scenarios['c1_warmup']?.exec).toBe('warmup');
    expect(run.plan.scenarios['c1']?.exec).toBe('infer');
    expect(run.plan.scenarios['c1_stats']?.exec).toBe('stats');
    expect(run.metric).toBe('http_req_duration');
    expect(run.options.thresholds?.['iteration_duration{scenario:c2}']).toEqual(['max>=0']);
    expect(run.validateEvery).toBe(1000);
  });

  it('passes STABILITY to the level verdicts computed in handleSummary', () => {
    const judge = (stability: string) => {
      const run = resolveRunPlan(
        MNIST,
        { CONCURRENCY: '1', STEP_DURATION: '3s', STABILITY: stability },
        BUDGET,
        'b',
      );
      const out = levelSummary(summary(), run, { LEVELS_JSON: 'levels.json' });
      return (JSON.parse(out['levels.json']!) as LevelResult[])[0]!;
    };
    expect(judge('10').stable).toBe(true);
    expect(judge('0.001').stable).toBe(false);
    expect(judge('10').generator?.bound).toBe(false);
  });

  it('refuses a bad VALIDATE_EVERY with a line naming it', () => {
    expect(validateEveryFromEnv({ VALIDATE_EVERY: '1' })).toBe(1);
    expect(validateEveryFromEnv({ VALIDATE_EVERY: '0' })).toBe(0);
    expect(() => validateEveryFromEnv({ VALIDATE_EVERY: '-2' })).toThrow(/invalid VALIDATE_EVERY="-2"/);
  });
});

describe('WindowClock', () => {
  it('reads the scenario start once per window and indexes thirds', () => {
    let reads = 0;
    let start = 10_000;
    const clock = new WindowClock(3, () => {
      reads++;
      return start;
    });
    expect([10_000, 10_999, 11_000, 12_999].map((t) => clock.index(t))).toEqual([0, 0, 1, 2]);
    expect(reads).toBe(1);
    expect(clock.nextChange_ms(10_500)).toBe(11_000);
    expect(clock.nextChange_ms(12_500)).toBe(13_000);
    // Past the window's end the VU is in its next scenario: the start is read again.
    start = 20_000;
    expect(clock.index(20_500)).toBe(0);
    expect(reads).toBe(2);
  });
});

describe('handleSummary after a run that ended early', () => {
  it('names the levels it never measured instead of saying all budgets were met', () => {
    const run = resolveRunPlan(MNIST, { CONCURRENCY: '1,2', STEP_DURATION: '3s' }, BUDGET, 'b');
    const stdout = levelSummary(summary(), run, {})['stdout']!;
    expect(stdout).toContain('not measured: c2');
    expect(stdout).not.toContain('all budgets met');
  });

  it('says which stat is missing when the trend stats leave out count', () => {
    const run = resolveRunPlan(MNIST, { CONCURRENCY: '1', STEP_DURATION: '3s' }, BUDGET, 'b');
    const data = summary() as { metrics: Record<string, { values: Record<string, number> }> };
    for (const metric of Object.values(data.metrics)) delete metric.values['count'];
    const stdout = levelSummary(data, run, {})['stdout']!;
    expect(stdout).toContain(
      "not measured: c1 (the summary's http_req_duration has no count; keep count in --summary-trend-stats",
    );
    expect(stdout).not.toContain('the run ended before');
  });
});

describe('resolveRunPlan with a ramp of a generative model', () => {
  const GPT2 = getModel('gpt2');
  const GPT2_BUDGET = readFileSync(new URL('../../thresholds/gpt2.json', import.meta.url), 'utf8');
  const env = { RAMP_RATE: '2:8', RAMP_DURATION: '8s', STEP_DURATION: '2s', MODEL: 'gpt2' };

  it("plans the ramp's windows as levels, its streams' VUs allocated before it starts", () => {
    const run = resolveRunPlan(GPT2, env, GPT2_BUDGET, 'gpt2.json');
    expect(run.plan.levels.map((l) => l.name)).toEqual(['r2_75', 'r4_25', 'r5_75', 'r7_25']);
    const ramp = run.options.scenarios?.['ramp'] as { preAllocatedVUs: number };
    // More than the one VU a fast tensor model's ramp to 8 req/s starts with (ceil(8 / 10)).
    expect(ramp.preAllocatedVUs).toBeGreaterThan(1);
  });

  it('refuses a conversation workload in one line', () => {
    const payload = JSON.stringify({ format: 'k6-triton-conversations/1' });
    expect(() =>
      resolveRunPlan(GPT2, { ...env, PAYLOAD: 'sessions.json' }, GPT2_BUDGET, 'gpt2.json', () => payload),
    ).toThrow('RAMP_RATE (--ramp-rate) is not supported with conversations (multi-turn sessions)');
  });
});
