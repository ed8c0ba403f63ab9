/** The run plan of a sequence model: its settings checked once, warm-ups that finish their sequence, the gates. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveRunPlan } from '../../scenarios/kit/run-plan.ts';
import { SEQUENCE_METRICS } from '../../lib/sequence/names.ts';
import { getModel } from '../../models/index.ts';

const ENTRY = getModel('sequence');
const BUDGET_PATH = 'thresholds/sequence-identity.json';
const BUDGET = readFileSync(BUDGET_PATH, 'utf8');
const plan = (env: Record<string, string>) => resolveRunPlan(ENTRY, env, BUDGET, BUDGET_PATH);

describe('a sequence model run plan', () => {
  it('carries the sequence settings and gates out-of-order and orphaned sequences at zero', () => {
    const run = plan({ CONCURRENCY: '1,2', SEQUENCE_LENGTH: '7' });
    expect(run.sequence?.length).toBe(7);
    const thresholds = run.options.thresholds as Record<string, string[]>;
    expect(thresholds[SEQUENCE_METRICS.outOfOrder]).toEqual(['count==0']);
    expect(thresholds[SEQUENCE_METRICS.orphaned]).toEqual(['count==0']);
  });

  it('reports every measured response as checked, as the sequence loop checks every echoed step', () => {
    expect(plan({ CONCURRENCY: '1' }).validateEvery).toBe(1);
    expect(plan({ CONCURRENCY: '1', VALIDATE_EVERY: '1000' }).validateEvery).toBe(1);
    expect(
      resolveRunPlan(getModel('mnist'), { CONCURRENCY: '1' }, BUDGET, BUDGET_PATH).validateEvery,
    ).not.toBe(1);
  });

  it("gives each warm-up its level's graceful stop, so its last sequence ends", () => {
    const scenarios = plan({ CONCURRENCY: '1,2', WARMUP_DURATION: '1s' }).options.scenarios as Record<
      string,
      { gracefulStop?: string }
    >;
    expect(scenarios.c1_warmup?.gracefulStop).toBe(scenarios.c1?.gracefulStop);
    expect(scenarios.c2_warmup?.gracefulStop).toBe(scenarios.c2?.gracefulStop);
    expect(scenarios.c1?.gracefulStop).not.toBe('0s');
  });

  it('runs a request-rate level and its warm-up as one iteration per live sequence, for the level time', () => {
    const run = plan({
      REQUEST_RATE: '10,20',
      NUM_OF_SEQUENCES: '3',
      WARMUP_DURATION: '1s',
      STEP_DURATION: '4s',
    });
    const scenarios = run.options.scenarios as unknown as Record<string, Record<string, unknown>>;
    for (const name of ['r10', 'r10_warmup', 'r20', 'r20_warmup']) {
      expect(scenarios[name], name).toMatchObject({
        executor: 'per-vu-iterations',
        vus: 3,
        iterations: 1,
        exec: name.endsWith('_warmup') ? 'warmup' : 'infer',
      });
    }
    expect(scenarios.r10?.maxDuration).toBe('4s');
    expect(scenarios.r10_warmup?.maxDuration).toBe('1s');
    expect(scenarios.r10_warmup?.gracefulStop).toBe(scenarios.r10?.gracefulStop);
    expect(scenarios.r10_stats?.executor).toBe('per-vu-iterations');
    expect(scenarios.r10_stats?.vus).toBe(1);
    // Their iterations wait for send times, so they say nothing of the generator's cost (as a paced level).
    expect(run.plan.levels.every((l) => l.paced)).toBe(true);
    expect(plan({ REQUEST_RATE: '10' }).sequence?.sequences).toBe(4);
  });

  it('refuses more live sequences than ids, no live sequence, and an id range smaller than the VUs', () => {
    expect(() => plan({ REQUEST_RATE: '10', NUM_OF_SEQUENCES: '5', SEQUENCE_ID_RANGE: '1:5' })).toThrow(
      'invalid NUM_OF_SEQUENCES=5: more live sequences than the 4 ids of SEQUENCE_ID_RANGE; widen the range or lower NUM_OF_SEQUENCES',
    );
    expect(() => plan({ REQUEST_RATE: '10', NUM_OF_SEQUENCES: '0' })).toThrow(
      'invalid NUM_OF_SEQUENCES="0"; expected a whole number >= 1',
    );
    expect(() => plan({ CONCURRENCY: '4', SEQUENCE_ID_RANGE: '1:3' })).toThrow(
      /^invalid SEQUENCE_ID_RANGE: 2 ids for up to \d+ VUs/,
    );
    expect(() => plan({ SEQUENCE_LENGTH: 'x' })).toThrow('invalid SEQUENCE_LENGTH="x"');
  });

  it('leaves other models as they were', () => {
    const mnist = getModel('mnist');
    const run = resolveRunPlan(
      mnist,
      {},
      readFileSync('thresholds/mnist.json', 'utf8'),
      'thresholds/mnist.json',
    );
    expect(run.sequence).toBeUndefined();
    expect(run.options.thresholds).not.toHaveProperty(SEQUENCE_METRICS.orphaned);
  });
});
