import { describe, expect, it } from 'vitest';
import { LOAD_SHAPES, loadPlanFromEnv, loadShape } from '../../lib/load/shapes.ts';
import { CATALOG } from '../../models/catalog.ts';

describe('load shapes', () => {
  it('has a shape for every catalog loadShape and a generic one', () => {
    for (const entry of Object.values(CATALOG)) expect(LOAD_SHAPES).toHaveProperty(entry.loadShape);
    expect(loadShape('generic').concurrency.length).toBeGreaterThan(0);
  });

  it('follows the seeds: dlrm sweeps 1..8, mnist 1:8, resnet50 two clients', () => {
    expect(loadShape('dlrm').concurrency).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(loadShape('mnist').concurrency).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(loadShape('resnet50').concurrency).toEqual([2]);
    expect(loadShape('resnext').concurrency).toEqual([1, 2, 4, 8, 16, 32]);
  });

  it('names the known shapes when one is unknown', () => {
    expect(() => loadShape('nope')).toThrow(/unknown load shape "nope"; use one of resnext, dlrm/);
  });
});

describe('loadPlanFromEnv', () => {
  it('takes the shape defaults when nothing is set', () => {
    expect(loadPlanFromEnv({}, 'mnist')).toEqual({
      mode: 'concurrency',
      levels: [1, 2, 3, 4, 5, 6, 7, 8],
      window_s: 5,
      warmup_s: 2,
      stability_pct: 10,
    });
  });

  it('lets the environment override levels, windows and stability', () => {
    const plan = loadPlanFromEnv(
      { CONCURRENCY: '1,4', STEP_DURATION: '2s', WARMUP_DURATION: '0s', STABILITY: '5' },
      'dlrm',
    );
    expect(plan).toMatchObject({
      mode: 'concurrency',
      levels: [1, 4],
      window_s: 2,
      warmup_s: 0,
      stability_pct: 5,
    });
    expect(loadPlanFromEnv({ REQUEST_RATE: '10:30:10', CONCURRENCY: '' }, 'dlrm')).toMatchObject({
      mode: 'request-rate',
      levels: [10, 20, 30],
    });
  });

  it('refuses CONCURRENCY and REQUEST_RATE together', () => {
    expect(() => loadPlanFromEnv({ CONCURRENCY: '1', REQUEST_RATE: '10' }, 'dlrm')).toThrow(/set only one/);
  });
});
