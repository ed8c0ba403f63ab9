/**
 * Trend percentiles as k6 computes them (TrendSink.P: every value, linear between the closest ranks) while a
 * trend keeps its values, and the histogram's beyond EXACT_VALUES; worker merges keep the exact rule.
 */
import { describe, expect, it } from 'vitest';
import { percentileOfSorted } from '@k6-triton/lib/genai/stats.ts';
import { EXACT_VALUES, TrendHistogram } from '../src/metrics/histogram.ts';
import { absorbSink, sinkData } from '../src/workers/merge.ts';

const squares = Array.from({ length: 10 }, (_, i) => (i + 1) ** 2);

describe('trend percentiles', () => {
  it("are k6's on few values: 1, 4, ..., 100 gives p50 30.5 and p99 98.29 (real k6 v2.2.0's figures)", () => {
    const t = new TrendHistogram();
    for (const v of [...squares].reverse()) t.add(v);
    expect(t.percentile(50)).toBe(30.5);
    expect(t.percentile(99)).toBeCloseTo(98.29, 10);
    expect(t.percentile(0)).toBe(1);
    expect(t.percentile(100)).toBe(100);
  });

  it('answer for one value and none as k6 does', () => {
    const t = new TrendHistogram();
    expect(t.percentile(95)).toBe(0);
    t.add(7.25);
    expect(t.percentile(95)).toBe(7.25);
  });

  it('stay exact when values arrive after a percentile was read (re-sorted)', () => {
    const t = new TrendHistogram();
    for (const v of [5, 1, 3]) t.add(v);
    expect(t.percentile(50)).toBe(3);
    t.add(0);
    expect(t.percentile(50)).toBe(2);
  });

  it("fall back to the histogram past EXACT_VALUES, within its 3 significant digits of k6's rule", () => {
    const t = new TrendHistogram();
    const n = EXACT_VALUES + 10;
    for (let i = 0; i < n; i++) t.add(1 + (i % 1000) / 10);
    expect(t.exactValues()).toBeNull();
    const sorted = Array.from({ length: n }, (_, i) => 1 + (i % 1000) / 10).sort((a, b) => a - b);
    const exact = percentileOfSorted(sorted, 99);
    expect(Math.abs(t.percentile(99) - exact) / exact).toBeLessThan(0.002);
  });

  it("merged across workers, keep k6's rule over the pooled values", () => {
    const a = new TrendHistogram();
    const b = new TrendHistogram();
    for (const v of squares.slice(0, 5)) a.add(v);
    for (const v of squares.slice(5)) b.add(v);
    const pooled = new TrendHistogram();
    absorbSink(pooled, sinkData(a), 'm');
    absorbSink(pooled, sinkData(b), 'm');
    expect(pooled.count).toBe(10);
    expect(pooled.percentile(50)).toBe(30.5);
    const merged = new TrendHistogram();
    merged.merge(a);
    merged.merge(b);
    expect(merged.percentile(99)).toBeCloseTo(98.29, 10);
  });
});
