/**
 * A mix's models in one test: scenario names and tags per model, each model's slot of exec functions, the
 * per-model settings the bench resolves, and the budget files' level names read through the model's id.
 */
import { describe, expect, it } from 'vitest';
import { budgetApplies, parseBudget } from '../../lib/budget.ts';
import { bareLevelName, levelName, parseLevelName } from '../../lib/load/names.ts';
import { buildPlan } from '../../lib/load/scenarios.ts';
import { mixExec } from '../../scenarios/kit/run-plan.ts';
import { parseMix } from '../../measure/mix/file.ts';
import { mixTargets } from '../../measure/mix/run-mix.ts';

const MIX = parseMix(
  JSON.stringify({
    total_rate: 20,
    models: [
      { model: 'mnist', share: 50 },
      { model: 'bert-base', share: 30, p95_ms: 250 },
      { model: 'dlrm', share: 20, budget: '../thresholds/dlrm.json' },
    ],
  }),
  `${import.meta.dirname}/../../mixes/test.json`,
);

describe('level names in a mix', () => {
  it("lead with the model's id and read back as the level", () => {
    expect(levelName('request-rate', 2.5, 'bert-base')).toBe('bert-base__r2_5');
    expect(levelName('concurrency', 8)).toBe('c8');
    expect(parseLevelName('resnext101-32x4d__r2_5')).toEqual({ mode: 'request-rate', level: 2.5 });
    expect(parseLevelName('dlrm__c8')).toEqual({ mode: 'concurrency', level: 8 });
    expect(parseLevelName('dlrm__c8_warmup')).toBeUndefined();
    expect(bareLevelName('bert-base__r2_5')).toBe('r2_5');
    expect(bareLevelName('c8')).toBe('c8');
  });

  it('are judged by a budget that lists levels under their bare names', () => {
    const budget = parseBudget(
      { model: 'dlrm', p95_ms: 20, p99_ms: 30, error_rate: 0.01, levels: ['c8'], source: 'test' },
      'dlrm.json',
    );
    expect(budgetApplies(budget, 'dlrm__c8')).toBe(true);
    expect(budgetApplies(budget, 'dlrm__c4')).toBe(false);
  });

  it('tag every scenario of a model with its id', () => {
    const plan = buildPlan({
      mode: 'request-rate',
      levels: [10],
      warmup_s: 1,
      window_s: 2,
      exec: 'infer_1',
      warmupExec: 'warmup_1',
      statsExec: 'stats_1',
      model: 'dlrm',
    });
    expect(Object.keys(plan.scenarios).sort()).toEqual(['dlrm__r10', 'dlrm__r10_stats', 'dlrm__r10_warmup']);
    for (const scenario of Object.values(plan.scenarios)) expect(scenario.tags?.model).toBe('dlrm');
    // Only the measurement window joins the whole mix's sub-metric.
    expect(plan.scenarios['dlrm__r10']!.tags?.phase).toBe('measure');
    expect(plan.scenarios['dlrm__r10_warmup']!.tags?.phase).toBe('warmup');
    expect(plan.scenarios['dlrm__r10_stats']!.tags?.phase).toBe('stats');
    expect(plan.scenarios['dlrm__r10']!.exec).toBe('infer_1');
    expect(plan.scenarios['dlrm__r10_warmup']!.exec).toBe('warmup_1');
    expect(plan.scenarios['dlrm__r10_stats']!.exec).toBe('stats_1');
  });
});

describe('mixTargets', () => {
  it("gives each model its share of the rate, its slot, its budget and the mix's one window", () => {
    const targets = mixTargets(MIX, { STEP_DURATION: '3s' });
    expect(targets.map((t) => t.entry.id)).toEqual(['mnist', 'bert-base', 'dlrm']);
    expect(targets.map((t) => t.run.plan.levels.map((l) => l.name))).toEqual([
      ['mnist__r10'],
      ['bert-base__r6'],
      ['dlrm__r4'],
    ]);
    expect(Object.keys(targets[1]!.run.options.scenarios!)).toContain('bert-base__r6_warmup');
    expect(targets[2]!.run.plan.scenarios['dlrm__r4']!.exec).toBe(mixExec(2).measure);
    expect(targets[1]!.run.limits.p95_ms).toBe(250);
    expect(targets[2]!.budgetPath).toMatch(/thresholds\/dlrm\.json$/);
    for (const t of targets) expect(t.run.load.window_s).toBe(3);
    expect(new Set(targets.map((t) => t.run.plan.levels[0]!.start_s)).size).toBe(1);
  });

  it('starts each window with half a second of its sends in VUs, its warm-up with the default', () => {
    const preAllocated = (c: object) => ('preAllocatedVUs' in c ? c.preAllocatedVUs : undefined);
    const scenarios = mixTargets(MIX, {}).map((t) => t.run.plan.scenarios);
    expect(scenarios.map((s) => Object.values(s).map(preAllocated))).toEqual([
      [1, 5, undefined],
      [1, 3, undefined],
      [1, 2, undefined],
    ]);
    // MAX_VUS bounds every level's VUs: the defaults stay.
    expect(preAllocated(mixTargets(MIX, { MAX_VUS: '4' })[0]!.run.plan.scenarios['mnist__r10']!)).toBe(1);
  });

  it('scales every load by one factor', () => {
    const targets = mixTargets(MIX, {}, 250);
    expect(targets.map((t) => t.run.plan.levels[0]!.level)).toEqual([25, 15, 10]);
  });

  it('refuses a setting the mix file gives per model, naming the flag', () => {
    expect(() => mixTargets(MIX, { CONCURRENCY: '4' })).toThrow(
      /^--concurrency \(CONCURRENCY\) does not apply to a mix; the mix file gives each model's load, payload and budget$/,
    );
    expect(() => mixTargets(MIX, { PAYLOAD: 'x.json' })).toThrow(/^--payload \(PAYLOAD\) does not apply/);
  });
});
