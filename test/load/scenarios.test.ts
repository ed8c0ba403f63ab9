import { describe, expect, it } from 'vitest';
import { levelName, parseLevelName, subMetricKey } from '../../lib/load/names.ts';
import { buildPlan, buildScenarios, planDuration_s } from '../../lib/load/scenarios.ts';

describe('levelName', () => {
  it('names levels as k6 scenario names and parses them back', () => {
    expect(levelName('concurrency', 8)).toBe('c8');
    expect(levelName('request-rate', 100)).toBe('r100');
    expect(levelName('request-rate', 2.5)).toBe('r2_5');
    expect(parseLevelName('r2_5')).toEqual({ mode: 'request-rate', level: 2.5 });
    expect(parseLevelName('c8')).toEqual({ mode: 'concurrency', level: 8 });
    expect(parseLevelName('c8_warmup')).toBeUndefined();
    expect(parseLevelName('c8_stats')).toBeUndefined();
    expect(subMetricKey('http_req_duration', 'c8')).toBe('http_req_duration{scenario:c8}');
  });
});

describe('buildScenarios, closed loop', () => {
  const plan = buildPlan({
    mode: 'concurrency',
    levels: [1, 2, 4],
    warmup_s: 2,
    window_s: 5,
    exec: 'infer',
    statsExec: 'serverStats',
  });

  it('gives each level a warm-up, a window and a stats probe, in order', () => {
    expect(Object.keys(plan.scenarios)).toEqual([
      'c1_warmup',
      'c1',
      'c1_stats',
      'c2_warmup',
      'c2',
      'c2_stats',
      'c4_warmup',
      'c4',
      'c4_stats',
    ]);
  });

  it('runs each level after the previous one, window after warm-up', () => {
    const s = plan.scenarios;
    expect(s['c1_warmup']).toMatchObject({
      executor: 'constant-vus',
      vus: 1,
      startTime: '0s',
      duration: '2s',
    });
    expect(s['c1']).toMatchObject({
      executor: 'constant-vus',
      vus: 1,
      startTime: '2s',
      duration: '5s',
      exec: 'infer',
    });
    expect(s['c2_warmup']).toMatchObject({ vus: 2, startTime: '7s', gracefulStop: '0s' });
    expect(s['c2']).toMatchObject({
      vus: 2,
      startTime: '9s',
      gracefulStop: '2s',
      tags: { level: '2', mode: 'concurrency' },
    });
    expect(s['c4']).toMatchObject({ vus: 4, startTime: '16s' });
    expect(plan.levels.map((l) => [l.name, l.start_s])).toEqual([
      ['c1', 2],
      ['c2', 9],
      ['c4', 16],
    ]);
    expect(plan.total_s).toBe(23);
  });

  it('starts the stats probe with the window and tells it the window', () => {
    expect(plan.scenarios['c2_stats']).toMatchObject({
      executor: 'per-vu-iterations',
      vus: 1,
      iterations: 1,
      exec: 'serverStats',
      startTime: '9s',
      env: { LEVEL: 'c2', WINDOW_S: '5' },
    });
  });

  it('leaves out warm-ups and probes when not asked for, and waits out the graceful stop', () => {
    const scenarios = buildScenarios({
      mode: 'concurrency',
      levels: [1, 2],
      warmup_s: 0,
      window_s: 3,
      exec: 'infer',
    });
    expect(Object.keys(scenarios)).toEqual(['c1', 'c2']);
    // No warm-up to absorb the 1 s graceful stop, so the next level starts after it.
    expect(scenarios['c2']).toMatchObject({ startTime: '4s' });
    expect(
      planDuration_s({ mode: 'concurrency', levels: [1, 2], warmup_s: 0, window_s: 3, exec: 'infer' }),
    ).toBe(8);
  });

  it('puts idle gaps between levels', () => {
    const scenarios = buildScenarios({
      mode: 'concurrency',
      levels: [1, 2],
      warmup_s: 1,
      window_s: 2,
      gap_s: 3,
      exec: 'x',
    });
    expect(scenarios['c2_warmup']).toMatchObject({ startTime: '6s' });
  });
});

describe('buildScenarios, open loop', () => {
  it('builds constant-arrival-rate levels with VU pools', () => {
    const scenarios = buildScenarios({
      mode: 'request-rate',
      levels: [100, 2.5],
      warmup_s: 1,
      window_s: 5,
      exec: 'infer',
      preAllocatedVUs: 4,
      maxVUs: 50,
    });
    expect(scenarios['r100']).toMatchObject({
      executor: 'constant-arrival-rate',
      rate: 100,
      timeUnit: '1s',
      preAllocatedVUs: 4,
      maxVUs: 50,
      duration: '5s',
      tags: { level: '100', mode: 'request-rate' },
    });
    // k6 arrival rates are whole numbers: 2.5/s becomes 5 per 2 s.
    expect(scenarios['r2_5']).toMatchObject({ rate: 5, timeUnit: '2s' });
  });

  it('defaults the VU pool from the rate', () => {
    const scenarios = buildScenarios({
      mode: 'request-rate',
      levels: [200],
      warmup_s: 0,
      window_s: 1,
      exec: 'x',
    });
    expect(scenarios['r200']).toMatchObject({ preAllocatedVUs: 20, maxVUs: 200 });
  });
});

describe('buildScenarios, bad input', () => {
  it('rejects empty levels, fractional VUs and empty windows', () => {
    const base = { mode: 'concurrency' as const, warmup_s: 1, window_s: 5, exec: 'x' };
    expect(() => buildScenarios({ ...base, levels: [] })).toThrow(/levels is empty/);
    expect(() => buildScenarios({ ...base, levels: [1.5] })).toThrow(/whole number/);
    expect(() => buildScenarios({ ...base, levels: [1], window_s: 0 })).toThrow(/window_s=0/);
  });
});
