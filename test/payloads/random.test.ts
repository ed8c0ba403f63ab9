import { describe, expect, it } from 'vitest';
import { createRandom, createZipf } from '../../lib/random/random.ts';

const draw = (seed: number, n: number) => {
  const rng = createRandom(seed);
  return Array.from({ length: n }, () => rng.uint32());
};

describe('seeded random stream', () => {
  it('repeats the same sequence for the same seed and differs for another', () => {
    expect(draw(7, 50)).toEqual(draw(7, 50));
    expect(draw(7, 50)).not.toEqual(draw(8, 50));
  });

  it('forks independent but reproducible streams', () => {
    const a = createRandom(3).fork('pixels');
    const b = createRandom(3).fork('pixels');
    const c = createRandom(3).fork('order');
    const seq = (r: ReturnType<typeof createRandom>) => Array.from({ length: 10 }, () => r.uint32());
    const first = seq(a);
    expect(first).toEqual(seq(b));
    expect(first).not.toEqual(seq(c));
  });

  it('keeps floats in [0, 1) and integers in [0, n)', () => {
    const rng = createRandom(1);
    for (let i = 0; i < 10_000; i++) {
      const f = rng.float();
      expect(f >= 0 && f < 1).toBe(true);
      const k = rng.int(13);
      expect(Number.isInteger(k) && k >= 0 && k < 13).toBe(true);
    }
  });

  it('draws standard normal deviates (mean near 0, variance near 1)', () => {
    const rng = createRandom(11);
    const xs = Array.from({ length: 20_000 }, () => rng.normal());
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length;
    expect(Math.abs(mean)).toBeLessThan(0.05);
    expect(Math.abs(variance - 1)).toBeLessThan(0.05);
  });

  it('rejects a negative or fractional seed', () => {
    expect(() => createRandom(-1)).toThrow(/invalid seed -1/);
    expect(() => createRandom(1.5)).toThrow(/invalid seed 1.5/);
  });
});

describe('Zipf sampler', () => {
  it('stays within 1..n and puts most weight on rank 1', () => {
    const n = 1_000_000;
    const sample = createZipf(n, 1.05);
    const rng = createRandom(5);
    const counts = new Map<number, number>();
    for (let i = 0; i < 20_000; i++) {
      const k = sample(rng);
      expect(k >= 1 && k <= n).toBe(true);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    const top = [...counts.entries()].sort((a, b) => b[1] - a[1]);
    expect(top[0]![0]).toBe(1);
    // P(1) = 1 / sum k^-1.05 ≈ 0.094 for n = 1e6; uniform would give 1e-6.
    expect(top[0]![1] / 20_000).toBeGreaterThan(0.07);
    expect(top[0]![1] / 20_000).toBeLessThan(0.12);
    // P(1)/P(2) = 2^1.05 ≈ 2.07.
    const ratio = counts.get(1)! / counts.get(2)!;
    expect(ratio).toBeGreaterThan(1.7);
    expect(ratio).toBeLessThan(2.5);
  });

  it('handles tiny tables and rejects a non-positive exponent', () => {
    const sample = createZipf(3, 1.2);
    const rng = createRandom(2);
    const seen = new Set(Array.from({ length: 2000 }, () => sample(rng)));
    expect([...seen].sort()).toEqual([1, 2, 3]);
    expect(() => createZipf(10, 0)).toThrow(/invalid Zipf exponent 0/);
  });
});
