import { describe, expect, it } from 'vitest';
import { RAMP_SCENARIO, rampDue_ms, rampWindowLevels } from '../../lib/load/ramp.ts';
import { buildRampPlan } from '../../lib/load/scenarios.ts';
import { loadPlanFromEnv, rampFromEnv } from '../../lib/load/shapes.ts';
import { WindowClock } from '../../lib/load/windows.ts';

const SHAPE = { concurrency: [1, 2], window_s: 5, warmup_s: 2, note: '' };

describe('rampWindowLevels', () => {
  it("averages k6's stepwise VU count over each window, rising or falling", () => {
    // 1 -> 4 over 8 s: a VU added at 2.67 s and 5.33 s (the fourth only at the end).
    expect(rampWindowLevels({ mode: 'concurrency', from: 1, to: 4, duration_s: 8 }, 2)).toEqual([
      1, 1.67, 2.33, 3,
    ]);
    // 4 -> 2 over 4 s: one VU removed at 2 s, the second only at the end.
    expect(rampWindowLevels({ mode: 'concurrency', from: 4, to: 2, duration_s: 4 }, 2)).toEqual([4, 3]);
  });

  it('refuses a duration that is not a whole number of windows, or windows with one average', () => {
    expect(() => rampWindowLevels({ mode: 'concurrency', from: 1, to: 4, duration_s: 7 }, 5)).toThrow(
      'RAMP_DURATION=7s is not a whole number of 5s windows (STEP_DURATION); make it 5s',
    );
    expect(() => rampWindowLevels({ mode: 'concurrency', from: 1, to: 2, duration_s: 1000 }, 1)).toThrow(
      'two windows the same average',
    );
  });
});

describe('buildRampPlan', () => {
  const plan = buildRampPlan(
    { mode: 'concurrency', levels: [], warmup_s: 1, window_s: 2, exec: 'infer', statsExec: 'stats' },
    { mode: 'concurrency', from: 1, to: 4, duration_s: 8 },
  );

  it('runs a warm-up at the first count, one ramping-vus scenario and a stats probe per window', () => {
    expect(Object.keys(plan.scenarios)).toEqual([
      'ramp_warmup',
      RAMP_SCENARIO,
      'c1_stats',
      'c1_67_stats',
      'c2_33_stats',
      'c3_stats',
    ]);
    expect(plan.scenarios[RAMP_SCENARIO]).toMatchObject({
      executor: 'ramping-vus',
      startVUs: 1,
      stages: [{ duration: '8s', target: 4 }],
      startTime: '1s',
      exec: 'infer',
    });
    expect(plan.scenarios['ramp_warmup']).toMatchObject({ executor: 'constant-vus', vus: 1, duration: '1s' });
    expect(plan.scenarios['c2_33_stats']).toMatchObject({ startTime: '5s', env: { LEVEL: 'c2_33' } });
  });

  it('lists the windows as consecutive levels', () => {
    expect(plan.levels.map((l) => [l.name, l.level, l.start_s])).toEqual([
      ['c1', 1, 1],
      ['c1_67', 1.67, 3],
      ['c2_33', 2.33, 5],
      ['c3', 3, 7],
    ]);
    expect(plan.total_s).toBe(10);
  });

  it("starts an open-loop ramp of long requests with VUs for the top rate's streams in flight", () => {
    const ramp = { mode: 'request-rate', from: 2, to: 8, duration_s: 8 } as const;
    const base = { mode: 'request-rate', levels: [], warmup_s: 1, window_s: 2, exec: 'infer' } as const;
    expect(buildRampPlan(base, ramp).scenarios[RAMP_SCENARIO]).toMatchObject({ preAllocatedVUs: 1 });
    const long = buildRampPlan({ ...base, windowPreAllocatedVUs: (rate) => rate + 2 }, ramp);
    expect(long.scenarios[RAMP_SCENARIO]).toMatchObject({
      executor: 'ramping-arrival-rate',
      preAllocatedVUs: 10,
    });
  });
});

describe('RAMP settings', () => {
  it('defaults the duration to four windows and makes the windows the levels', () => {
    expect(rampFromEnv({ RAMP: '2:10' }, 5)).toEqual({
      mode: 'concurrency',
      from: 2,
      to: 10,
      duration_s: 20,
    });
    const load = loadPlanFromEnv({ RAMP: '1:4', RAMP_DURATION: '8s', STEP_DURATION: '2s' }, SHAPE);
    expect(load.ramp).toEqual({ mode: 'concurrency', from: 1, to: 4, duration_s: 8 });
    expect(load.levels).toEqual([1, 1.67, 2.33, 3]);
  });

  it('refuses a ramp beside levels, and a duration without a ramp', () => {
    expect(() => loadPlanFromEnv({ RAMP: '1:4', CONCURRENCY: '2' }, SHAPE)).toThrow(
      'RAMP and CONCURRENCY are both set',
    );
    expect(() => loadPlanFromEnv({ RAMP: '1:4', REQUEST_RATE: '20' }, SHAPE)).toThrow(
      'RAMP and REQUEST_RATE are both set',
    );
    expect(() => loadPlanFromEnv({ RAMP_DURATION: '8s' }, SHAPE)).toThrow(
      'RAMP_DURATION is set without RAMP',
    );
    expect(() => loadPlanFromEnv({ RAMP: '3:3' }, SHAPE)).toThrow('invalid RAMP="3:3"');
  });
});

describe('WindowClock with a ramp', () => {
  it("names the window a moment falls in, its sub-window counted from that window's start", () => {
    const clock = new WindowClock(2, () => 10_000, 3, ['c1', 'c2', 'c3']);
    expect(clock.index(10_100)).toBe(0);
    expect(clock.segment).toBe('c1');
    expect(clock.nextChange_ms(10_100)).toBeCloseTo(10_666.67, 1);
    expect(clock.index(12_700)).toBe(1);
    expect(clock.segment).toBe('c2');
    // Past the last window (its graceful stop): still the last window's last part.
    expect(clock.index(20_000)).toBe(2);
    expect(clock.segment).toBe('c3');
  });

  it('names no window without segments', () => {
    const clock = new WindowClock(2, () => 10_000);
    expect(clock.index(10_100)).toBe(0);
    expect(clock.segment).toBeUndefined();
  });
});

describe('open-loop ramps', () => {
  const ramp = { mode: 'request-rate', from: 100, to: 400, duration_s: 8 } as const;

  it("averages the rate over each window, and sends as real k6's ramping-arrival-rate starts", () => {
    expect(rampWindowLevels(ramp, 2)).toEqual([137.5, 212.5, 287.5, 362.5]);
    // Send n is due when n + 1 arrivals are: the first at 1/100 s, the last (the 2000th) at the end.
    expect(rampDue_ms(ramp, 0)).toBeCloseTo(10.0, 1);
    expect(rampDue_ms(ramp, 1999)).toBeCloseTo(8000, 6);
    // Halfway in time, 100 x 4 + 150 x 4 / 2 = 700 arrivals.
    expect(rampDue_ms(ramp, 699)).toBeCloseTo(4000, 6);
  });

  it('plans one ramping-arrival-rate scenario after a constant-rate warm-up', () => {
    const plan = buildRampPlan(
      { mode: 'concurrency', levels: [], warmup_s: 1, window_s: 2, exec: 'infer', maxVUs: 50 },
      ramp,
    );
    expect(plan.scenarios['ramp_warmup']).toMatchObject({ executor: 'constant-arrival-rate', rate: 100 });
    expect(plan.scenarios[RAMP_SCENARIO]).toMatchObject({
      executor: 'ramping-arrival-rate',
      startRate: 100,
      timeUnit: '1s',
      stages: [{ duration: '8s', target: 400 }],
      maxVUs: 50,
    });
    expect(plan.levels.map((l) => l.name)).toEqual(['r137_5', 'r212_5', 'r287_5', 'r362_5']);
  });

  it('reads RAMP_RATE, refusing it beside RAMP', () => {
    const load = loadPlanFromEnv({ RAMP_RATE: '100:400', RAMP_DURATION: '8s', STEP_DURATION: '2s' }, SHAPE);
    expect(load.mode).toBe('request-rate');
    expect(load.levels).toEqual([137.5, 212.5, 287.5, 362.5]);
    expect(() => loadPlanFromEnv({ RAMP: '1:4', RAMP_RATE: '10:40' }, SHAPE)).toThrow(
      'RAMP and RAMP_RATE are both set',
    );
    // Paced arrivals are refused (by the pacing's own check, before the ramp's).
    expect(() => loadPlanFromEnv({ RAMP_RATE: '10:40', ARRIVALS: 'poisson' }, SHAPE)).toThrow('ARRIVALS');
  });
});
