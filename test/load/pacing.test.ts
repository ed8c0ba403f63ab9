import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { arrivalOffsets_ms } from '../../lib/load/arrivals.ts';
import { pacingFromEnv } from '../../lib/load/pacing.ts';
import { buildPlan } from '../../lib/load/scenarios.ts';
import { loadPlanFromEnv } from '../../lib/load/shapes.ts';
import { resolveRunPlan } from '../../scenarios/kit/run-plan.ts';
import { getModel } from '../../models/index.ts';
import { thrown } from './thrown.ts';

const mnist = getModel('mnist');
const BUDGET = readFileSync('thresholds/mnist.json', 'utf8');
const FILES: Record<string, string> = {
  'rec.jsonl': '{"at_ms": 100, "model": "mnist", "payload": 1}\n{"at_ms": 300}\n{"at_ms": 599}\n',
  'gaps.txt': '100000\n200000\n500000\n',
};
const read = (path: string) => FILES[path] ?? '';

describe('pacing settings', () => {
  it('leaves constant arrivals to k6 and paces Poisson and gamma levels', () => {
    expect(pacingFromEnv({ REQUEST_RATE: '10', ARRIVALS: 'constant' })).toBeUndefined();
    expect(pacingFromEnv({ REQUEST_RATE: '10', ARRIVALS: 'gamma:0.5', ARRIVALS_SEED: '7' })).toEqual({
      kind: 'arrivals',
      arrivals: { kind: 'gamma', shape: 0.5 },
      seed: 7,
    });
  });

  it('gives a schedule one level at its mean rate over its own span, and an interval file its mean rate', () => {
    const schedule = loadPlanFromEnv({ SCHEDULE: 'rec.jsonl', SCHEDULE_SPEED: '2' }, mnist.load, read, [
      'mnist',
    ]);
    // 3 sends over 499 ms / 2 + 1 ms.
    expect(schedule).toMatchObject({ mode: 'request-rate', levels: [11.98], window_s: 0.2505 });
    const intervals = loadPlanFromEnv(
      { REQUEST_INTERVALS: 'gaps.txt', STEP_DURATION: '3s' },
      mnist.load,
      read,
    );
    expect(intervals).toMatchObject({ mode: 'request-rate', levels: [3.75], window_s: 3 });
  });

  it.each([
    [{ ARRIVALS: 'poisson' }, 'ARRIVALS="poisson" needs an open loop; set REQUEST_RATE'],
    [{ CONCURRENCY: '4', ARRIVALS: 'poisson' }, 'ARRIVALS="poisson" needs an open loop'],
    [{ SCHEDULE: 'rec.jsonl', REQUEST_RATE: '5' }, 'SCHEDULE and REQUEST_RATE are all set; set only one'],
    [{ SCHEDULE: 'rec.jsonl', ARRIVALS: 'poisson' }, "does not apply to a file's send times"],
    [{ SCHEDULE_SPEED: '2' }, 'SCHEDULE_SPEED="2" is set without SCHEDULE'],
    [{ SCHEDULE: 'rec.jsonl', SCHEDULE_SPEED: 'fast' }, 'SCHEDULE_SPEED="fast" is invalid'],
    [{ SCHEDULE: 'rec.jsonl', STEP_DURATION: '5s' }, "a schedule's window is its own span"],
    [{ REQUEST_RATE: '5', ARRIVALS: 'poisson', ARRIVALS_SEED: '-1' }, 'invalid ARRIVALS_SEED="-1"'],
  ])('refuses %j in one line', (env, message) => {
    const error = thrown(() => loadPlanFromEnv(env, mnist.load, read, ['mnist']));
    expect(error).toContain(message);
    expect(error).not.toContain('\n');
  });
});

describe('paced plan', () => {
  it('runs each paced level as shared-iterations with one iteration per planned send; warm-ups stay k6-paced', () => {
    const plan = buildPlan({
      mode: 'request-rate',
      levels: [50],
      warmup_s: 1,
      window_s: 2,
      exec: 'infer',
      paced: () => ({ iterations: 97, vus: 50 }),
    });
    expect(plan.scenarios['r50']).toMatchObject({
      executor: 'shared-iterations',
      iterations: 97,
      vus: 50,
      maxDuration: '2s',
      startTime: '1s',
    });
    expect(plan.scenarios['r50_warmup']).toMatchObject({ executor: 'constant-arrival-rate', rate: 50 });
    expect(plan.levels[0]).toMatchObject({ name: 'r50', paced: true });
  });

  it('sizes a Poisson level from the seeded schedule every VU looks up, MAX_VUS bounding its VUs', () => {
    const env = { REQUEST_RATE: '40,80', ARRIVALS: 'poisson', STEP_DURATION: '2s', MAX_VUS: '8' };
    const run = resolveRunPlan(mnist, env, BUDGET, 'budget.json');
    for (const rate of [40, 80]) {
      const planned = arrivalOffsets_ms({ arrivals: { kind: 'poisson' }, rate, duration_s: 2 });
      expect(run.plan.scenarios[`r${rate}`]).toMatchObject({ iterations: planned.length, vus: 8 });
      expect(run.levelSchedule(`r${rate}`)?.offsets_ms).toEqual(planned);
    }
    expect(run.levelSchedule('nope')).toBeUndefined();
  });
});
