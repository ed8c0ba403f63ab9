import { describe, expect, it } from 'vitest';
import { getModel } from '../../models/index.ts';
import { generateSet } from '../../payloads/generate.ts';

describe('MNIST payloads', () => {
  it('holds real labelled digits as the served model expects them', () => {
    const set = generateSet(getModel('mnist'), { count: 20, seed: 2 });
    expect(set.batch).toBe(1);
    const labels = set.samples.map((s) => s.label);
    for (const label of labels) expect(Number.isInteger(label) && label! >= 0 && label! <= 9).toBe(true);
    expect(new Set(labels).size).toBeGreaterThan(4);
    const t = set.samples[0]!.tensors[0]!;
    expect(t).toMatchObject({ name: 'input.1', datatype: 'FP32', shape: [1, 1, 28, 28] });
    const values = [...(t.values as Float32Array)];
    // The served model (models/mnist) takes the package's [0, 1] pixels as they are:
    // mostly background 0 with some bright strokes.
    expect(values.filter((v) => v === 0).length).toBeGreaterThan(400);
    expect(Math.min(...values)).toBe(0);
    expect(Math.max(...values)).toBeGreaterThan(0.9);
    expect(Math.max(...values)).toBeLessThanOrEqual(1);
  });

  it('is deterministic per seed', () => {
    const a = generateSet(getModel('mnist'), { count: 5, seed: 3 });
    const b = generateSet(getModel('mnist'), { count: 5, seed: 3 });
    expect(a.samples).toEqual(b.samples);
    expect(generateSet(getModel('mnist'), { count: 5, seed: 4 }).samples).not.toEqual(a.samples);
  });

  it('refuses a batch for a model without a batch dimension', () => {
    expect(() => generateSet(getModel('mnist'), { batch: 4, count: 1, seed: 1 })).toThrow(
      'model mnist has no batch dimension (max_batch_size 0)',
    );
  });
});
