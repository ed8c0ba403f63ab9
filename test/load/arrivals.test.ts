import { describe, expect, it } from 'vitest';
import { arrivalOffsets_ms, formatArrivals, parseArrivals } from '../../lib/load/arrivals.ts';
import { exponentialCdf, gammaCdf, ksCritical001, ksStatistic } from './ks.ts';

/** Gaps between consecutive send times, seconds. */
function gaps_s(offsets_ms: readonly number[]): number[] {
  return offsets_ms.slice(1).map((t, i) => (t - offsets_ms[i]!) / 1000);
}

const RATE = 200;
const DURATION_S = 150; // 30 000 arrivals at 200/s: D's critical value at 0.001 is about 0.011

describe('parseArrivals', () => {
  it('reads the three processes and spells them back', () => {
    expect(parseArrivals('constant')).toEqual({ kind: 'constant' });
    expect(parseArrivals(' Poisson ')).toEqual({ kind: 'poisson' });
    expect(parseArrivals('gamma:0.5')).toEqual({ kind: 'gamma', shape: 0.5 });
    expect(formatArrivals(parseArrivals('gamma:2'))).toBe('gamma:2');
  });

  it.each([
    ['uniform', 'unknown arrival process'],
    ['gamma', 'unknown arrival process'],
    ['gamma:0', 'the shape must be greater than 0'],
    ['gamma:-1', 'unknown arrival process'],
  ])('rejects ARRIVALS=%j in one line with the fix', (text, reason) => {
    expect(() => parseArrivals(text)).toThrowError(
      new RegExp(`^ARRIVALS="${text}" is invalid: ${reason}; use constant, poisson or gamma:<k>[^\\n]*$`),
    );
  });
});

describe('arrival schedules (Kolmogorov–Smirnov, fixed seed, significance 0.001)', () => {
  it('Poisson gaps follow the exponential distribution with mean 1 / rate', () => {
    const gaps = gaps_s(
      arrivalOffsets_ms({ arrivals: { kind: 'poisson' }, rate: RATE, duration_s: DURATION_S }),
    );
    expect(gaps.length).toBeGreaterThan(25_000);
    expect(ksStatistic(gaps, exponentialCdf(1 / RATE))).toBeLessThan(ksCritical001(gaps.length));
  });

  it.each([0.25, 0.5, 1, 4])('gamma:%d gaps follow the gamma distribution with mean 1 / rate', (shape) => {
    const gaps = gaps_s(
      arrivalOffsets_ms({ arrivals: { kind: 'gamma', shape }, rate: RATE, duration_s: DURATION_S }),
    );
    expect(ksStatistic(gaps, gammaCdf(shape, 1 / (shape * RATE)))).toBeLessThan(ksCritical001(gaps.length));
  });

  it('the test can fail: evenly spaced gaps and the wrong burstiness are rejected', () => {
    const even = gaps_s(
      arrivalOffsets_ms({ arrivals: { kind: 'constant' }, rate: RATE, duration_s: DURATION_S }),
    );
    expect(ksStatistic(even, exponentialCdf(1 / RATE))).toBeGreaterThan(ksCritical001(even.length));
    const bursty = gaps_s(
      arrivalOffsets_ms({ arrivals: { kind: 'gamma', shape: 0.5 }, rate: RATE, duration_s: DURATION_S }),
    );
    expect(ksStatistic(bursty, exponentialCdf(1 / RATE))).toBeGreaterThan(ksCritical001(bursty.length));
    const poisson = gaps_s(
      arrivalOffsets_ms({ arrivals: { kind: 'poisson' }, rate: RATE, duration_s: DURATION_S }),
    );
    expect(ksStatistic(poisson, exponentialCdf(2 / RATE))).toBeGreaterThan(ksCritical001(poisson.length));
  });

  it('constant spacing is k6 constant-arrival-rate schedule: i / rate, first at 0', () => {
    expect(arrivalOffsets_ms({ arrivals: { kind: 'constant' }, rate: 4, duration_s: 1 })).toEqual([
      0, 250, 500, 750,
    ]);
  });

  it('a seed gives one schedule; another seed or rate another', () => {
    const at = (seed: number, rate = 50) =>
      arrivalOffsets_ms({ arrivals: { kind: 'poisson' }, rate, duration_s: 2, seed });
    expect(at(7)).toEqual(at(7));
    expect(at(8)).not.toEqual(at(7));
    expect(at(7, 51)).not.toEqual(at(7));
    for (const t of at(7)) expect(t).toBeLessThan(2000);
  });
});
