import { describe, expect, it } from 'vitest';
import { getModel } from '../../models/index.ts';
import { generateSet } from '../../payloads/generate.ts';

const rowsOf = (values: ArrayLike<number>, seq: number) =>
  Array.from({ length: values.length / seq }, (_, r) =>
    Array.from(values as number[]).slice(r * seq, (r + 1) * seq),
  );

describe('BERT payload sets', () => {
  it('stacks tokenized features into [batch, seq] INT32 inputs with consistent mask and segments', () => {
    const set = generateSet(getModel('bert-base'), { batch: 4, count: 3, seed: 1 });
    const [ids, segments, mask] = set.samples[0]!.tensors;
    expect([ids!.name, segments!.name, mask!.name]).toEqual(['input_ids', 'segment_ids', 'input_mask']);
    expect(ids).toMatchObject({ datatype: 'INT32', shape: [4, 128] });
    const idRows = rowsOf(ids!.values as number[], 128);
    const maskRows = rowsOf(mask!.values as number[], 128);
    idRows.forEach((row, r) => {
      expect(row[0]).toBe(101);
      const real = maskRows[r]!.filter((m) => m === 1).length;
      expect(row[real - 1]).toBe(102);
      expect(row.slice(real).every((id) => id === 0)).toBe(true);
    });
  });

  it('makes random ids within the vocabulary when asked, deterministic per seed', () => {
    const a = generateSet(getModel('bert-large'), { batch: 2, count: 2, seed: 5, random: true });
    const b = generateSet(getModel('bert-large'), { batch: 2, count: 2, seed: 5, random: true });
    expect(a.samples).toEqual(b.samples);
    for (const s of a.samples) {
      const ids = Array.from(s.tensors[0]!.values as number[]);
      const mask = Array.from(s.tensors[2]!.values as number[]);
      expect(ids.every((id) => id >= 0 && id < 30522)).toBe(true);
      expect(ids.filter((id, i) => mask[i] === 1 && (id === 0 || id === 100)).length).toBe(0);
      expect(ids.filter((id) => id === 102).length).toBe(4);
    }
  });
});
