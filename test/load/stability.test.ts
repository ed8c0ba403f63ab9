import { describe, expect, it } from 'vitest';
import { judgeStability } from '../../lib/load/stability.ts';

const w = (throughput: number, avg_latency_us: number) => ({ throughput, avg_latency_us });

describe('judgeStability', () => {
  it('is stable when the last three windows stay within ±10% of their mean', () => {
    const verdict = judgeStability([w(10, 9000), w(100, 1000), w(105, 1040), w(95, 980)]);
    expect(verdict.stable).toBe(true);
    expect(verdict.windows_used).toBe(3);
    expect(verdict.spread_pct).toBeCloseTo(5, 5);
  });

  it('is unstable when latency swings even though throughput holds', () => {
    const verdict = judgeStability([w(100, 1000), w(100, 1000), w(100, 1500)]);
    expect(verdict.stable).toBe(false);
    expect(verdict.spread_pct!).toBeGreaterThan(10);
  });

  it('honours a custom tolerance and window count', () => {
    const records = [w(100, 1000), w(112, 1000), w(100, 1000)];
    expect(judgeStability(records).stable).toBe(true);
    expect(judgeStability(records, { stability_pct: 5 }).stable).toBe(false);
    expect(judgeStability(records.slice(1), { windows: 2, stability_pct: 6 }).stable).toBe(true);
  });

  it('does not judge with fewer windows than needed', () => {
    expect(judgeStability([w(1, 1), w(1, 1)])).toEqual({ stable: false, spread_pct: null, windows_used: 2 });
  });
});
