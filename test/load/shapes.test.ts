import { describe, expect, it } from 'vitest';
import { loadPlanFromEnv } from '../../lib/load/shapes.ts';
import { CATALOG } from '../../models/catalog.ts';
import { genericEntry } from '../../models/generic.ts';
import { getModel } from '../../models/index.ts';

const shape = (id: string) => getModel(id).load;

describe('load shapes in the catalog', () => {
  it('gives every catalog model and the generic entry a shape with levels, window and a source note', () => {
    for (const entry of [...Object.values(CATALOG), genericEntry('m')]) {
      expect(entry.load.concurrency.length).toBeGreaterThan(0);
      expect(entry.load.window_s).toBeGreaterThan(0);
      expect(entry.load.note).not.toBe('');
    }
  });

  it('follows the seeds: dlrm sweeps 1..8, mnist 1:8, resnet50 two clients', () => {
    expect(shape('dlrm').concurrency).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(shape('mnist').concurrency).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(shape('resnet50').concurrency).toEqual([2]);
    expect(shape('resnext101-32x4d').concurrency).toEqual([1, 2, 4, 8, 16, 32]);
  });
});

describe('loadPlanFromEnv', () => {
  it('takes the shape defaults when nothing is set', () => {
    expect(loadPlanFromEnv({}, shape('mnist'))).toEqual({
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
      shape('dlrm'),
    );
    expect(plan).toMatchObject({
      mode: 'concurrency',
      levels: [1, 4],
      window_s: 2,
      warmup_s: 0,
      stability_pct: 5,
    });
    expect(loadPlanFromEnv({ REQUEST_RATE: '10:30:10', CONCURRENCY: '' }, shape('dlrm'))).toMatchObject({
      mode: 'request-rate',
      levels: [10, 20, 30],
    });
  });

  it('refuses CONCURRENCY and REQUEST_RATE together', () => {
    expect(() => loadPlanFromEnv({ CONCURRENCY: '1', REQUEST_RATE: '10' }, shape('dlrm'))).toThrow(
      /set only one/,
    );
  });
});
