import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getModel } from '../../models/index.ts';
import { dlrmGenerator, readDatasetConfig, validateCategorical } from '../../payloads/dlrm.ts';
import { generateSet } from '../../payloads/generate.ts';
import { createRandom } from '../../lib/random/random.ts';

const CARDS = [1460, 583, 10131227, 3, 24];

describe('DLRM generator', () => {
  it('keeps every categorical id within its table, uniform or Zipf, hashed or not', () => {
    for (const settings of [{}, { zipf: 1.05 }, { hashIndices: true }, { zipf: 1.2, hashIndices: true }]) {
      const make = dlrmGenerator({ numerical: 13, cardinalities: CARDS, hashIndices: false, ...settings });
      const { dense, sparse } = make(createRandom(4), 500);
      expect(dense).toHaveLength(500 * 13);
      expect(sparse).toHaveLength(500 * CARDS.length);
      sparse.forEach((id, i) => {
        expect(Number.isInteger(id) && id >= 0 && id < CARDS[i % CARDS.length]!).toBe(true);
      });
      expect(() => validateCategorical(sparse, CARDS)).not.toThrow();
    }
  });

  it('writes numerical features as log(1 + x) of non-negative counts', () => {
    const { dense } = dlrmGenerator({ numerical: 13, cardinalities: CARDS, hashIndices: false })(
      createRandom(1),
      200,
    );
    for (const v of dense) {
      expect(v).toBeGreaterThanOrEqual(0);
      const count = Math.expm1(v);
      // float32 rounding of log1p: the count comes back within a relative 1e-5.
      expect(Math.abs(count - Math.round(count))).toBeLessThan(1e-5 * Math.max(1, count) + 1e-6);
    }
    expect(new Set(dense).size).toBeGreaterThan(10);
  });

  it('is deterministic per seed', () => {
    const make = dlrmGenerator({ numerical: 13, cardinalities: CARDS, zipf: 1.05, hashIndices: false });
    expect(make(createRandom(9), 50)).toEqual(make(createRandom(9), 50));
    expect(make(createRandom(9), 50).sparse).not.toEqual(make(createRandom(10), 50).sparse);
  });

  it('skews Zipf ids so the most frequent id dominates a large table', () => {
    const make = dlrmGenerator({ numerical: 1, cardinalities: [10_131_227], zipf: 1.05, hashIndices: false });
    const { sparse } = make(createRandom(3), 5000);
    const counts = new Map<number, number>();
    for (const id of sparse) counts.set(id, (counts.get(id) ?? 0) + 1);
    const [topId, topCount] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
    expect(topId).toBe(0);
    expect(topCount / 5000).toBeGreaterThan(0.05);
    // Uniform ids over ten million rows almost never repeat.
    const uniform = dlrmGenerator({ numerical: 1, cardinalities: [10_131_227], hashIndices: false })(
      createRandom(3),
      5000,
    );
    expect(new Set(uniform.sparse).size).toBeGreaterThan(4990);
  });

  it('names the table, id and cardinality of an id outside its table', () => {
    expect(() => validateCategorical([5, 583, 0, 0, 0], CARDS, 'input__1')).toThrow(
      "input__1 id 583 (row 0) is outside table 1's cardinality 583",
    );
  });

  describe('model_size.json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'k6t-dlrm-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reads the feature-name → size object the DLRM data preparation writes, in order', () => {
      const file = join(dir, 'model_size.json');
      writeFileSync(file, JSON.stringify({ _c14: 1460, _c15: 583, _c16: 7 }));
      expect(readDatasetConfig(file)).toEqual([1460, 583, 7]);
    });

    it('uses the user file for a set and rejects one whose table count does not fit the model', () => {
      const sizes = Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`_c${i + 14}`, 2 + i]));
      const file = join(dir, 'ok.json');
      writeFileSync(file, JSON.stringify(sizes));
      const set = generateSet(getModel('dlrm'), {
        batch: 64,
        count: 2,
        seed: 1,
        datasetConfig: file,
        zipf: 1.05,
      });
      const ids = set.samples[0]!.tensors[1]!.values as ArrayLike<number>;
      expect(set.samples[0]!.tensors[1]!.shape).toEqual([64, 26]);
      for (let i = 0; i < ids.length; i++) expect(ids[i]!).toBeLessThan(2 + (i % 26));
      const short = join(dir, 'short.json');
      writeFileSync(short, JSON.stringify({ a: 10, b: 20 }));
      expect(() =>
        generateSet(getModel('dlrm'), { batch: 4, count: 1, seed: 1, datasetConfig: short }),
      ).toThrow('dataset config has 2 tables but input__1 takes 26 categorical features');
      const bad = join(dir, 'bad.json');
      writeFileSync(bad, JSON.stringify({ a: -1 }));
      expect(() => readDatasetConfig(bad)).toThrow(`dataset config ${bad} must map each categorical feature`);
    });
  });

  it('follows PRECISION: FP16 numerical, INT32 categorical', () => {
    const fp16 = generateSet(getModel('dlrm'), { batch: 2, count: 1, seed: 1, precision: 'fp16' });
    expect(fp16.specs.map((s) => s.datatype)).toEqual(['FP16', 'INT64']);
    const int32 = generateSet(getModel('dlrm'), { batch: 2, count: 1, seed: 1, precision: 'INT32' });
    expect(int32.specs.map((s) => s.datatype)).toEqual(['FP32', 'INT32']);
  });
});
