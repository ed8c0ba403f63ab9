import { describe, expect, it } from 'vitest';
import { ms_to_us, ns_to_us, us_to_ms } from '../lib/units.ts';

describe('units', () => {
  it('converts k6 milliseconds, record microseconds and Triton nanoseconds', () => {
    expect(ms_to_us(1.5)).toBe(1500);
    expect(us_to_ms(2500)).toBe(2.5);
    expect(ns_to_us(3_000_000)).toBe(3000);
  });
});
