import { describe, expect, it } from 'vitest';
import {
  float32ArrayToFp16,
  float32ToFp16,
  fp16ArrayToFloat32,
  fp16ToFloat32,
} from '../../lib/tensor/index.ts';

const hex = (bits: number) => `0x${bits.toString(16).padStart(4, '0')}`;

describe('float32ToFp16', () => {
  it.each([
    [1, 0x3c00],
    [-2, 0xc000],
    [0.5, 0x3800],
    [65504, 0x7bff],
    [2 ** -14, 0x0400],
    [1023 * 2 ** -24, 0x03ff],
    [2 ** -24, 0x0001],
    [0, 0x0000],
    [-0, 0x8000],
    [Number.POSITIVE_INFINITY, 0x7c00],
    [Number.NEGATIVE_INFINITY, 0xfc00],
    [0.1, 0x2e66],
    [1 / 3, 0x3555],
  ])('encodes %s as the known pattern %#', (value, bits) => {
    expect(hex(float32ToFp16(value))).toBe(hex(bits));
  });

  it('rounds ties to even in the normal range', () => {
    // 1 + 2^-11 sits halfway between 0x3c00 (even) and 0x3c01.
    expect(hex(float32ToFp16(1 + 2 ** -11))).toBe('0x3c00');
    // 1 + 3*2^-11 sits halfway between 0x3c01 and 0x3c02 (even).
    expect(hex(float32ToFp16(1 + 3 * 2 ** -11))).toBe('0x3c02');
    // Just above the halfway point rounds up.
    expect(hex(float32ToFp16(1 + 2 ** -11 + 2 ** -20))).toBe('0x3c01');
  });

  it('rounds ties to even among subnormals and underflows to signed zero', () => {
    expect(hex(float32ToFp16(2 ** -25))).toBe('0x0000');
    expect(hex(float32ToFp16(3 * 2 ** -25))).toBe('0x0002');
    expect(hex(float32ToFp16(2 ** -25 * 1.5))).toBe('0x0001');
    expect(hex(float32ToFp16(2 ** -30))).toBe('0x0000');
    expect(hex(float32ToFp16(-(2 ** -30)))).toBe('0x8000');
    // The largest subnormal plus half a step carries into the smallest normal.
    expect(hex(float32ToFp16(1023.5 * 2 ** -24))).toBe('0x0400');
  });

  it('overflows to infinity past the largest finite half', () => {
    expect(hex(float32ToFp16(65519))).toBe('0x7bff');
    // 65520 is halfway between 65504 and 65536; the even neighbour is infinity.
    expect(hex(float32ToFp16(65520))).toBe('0x7c00');
    expect(hex(float32ToFp16(1e6))).toBe('0x7c00');
    expect(hex(float32ToFp16(-1e6))).toBe('0xfc00');
  });

  it('keeps NaN a NaN', () => {
    const bits = float32ToFp16(Number.NaN);
    expect(bits & 0x7c00).toBe(0x7c00);
    expect(bits & 0x03ff).not.toBe(0);
  });
});

describe('fp16ToFloat32', () => {
  it.each([
    [0x3c00, 1],
    [0x7bff, 65504],
    [0x0001, 2 ** -24],
    [0x03ff, 1023 * 2 ** -24],
    [0x0400, 2 ** -14],
    [0xc000, -2],
    [0x7c00, Number.POSITIVE_INFINITY],
    [0xfc00, Number.NEGATIVE_INFINITY],
  ])('decodes 0x%s to the known value', (bits, value) => {
    expect(fp16ToFloat32(bits)).toBe(value);
  });

  it('decodes signed zero and NaN', () => {
    expect(Object.is(fp16ToFloat32(0x8000), -0)).toBe(true);
    expect(fp16ToFloat32(0x7e00)).toBeNaN();
    expect(fp16ToFloat32(0xfc01)).toBeNaN();
  });

  it('round-trips every one of the 65536 bit patterns (NaNs stay NaN)', () => {
    const all = new Uint16Array(65536).map((_, i) => i);
    const back = float32ArrayToFp16(fp16ArrayToFloat32(all));
    let mismatches = 0;
    for (let i = 0; i < 65536; i++) {
      const isNanPattern = (i & 0x7c00) === 0x7c00 && (i & 0x3ff) !== 0;
      if (isNanPattern ? !Number.isNaN(fp16ToFloat32(back[i]!)) : back[i] !== i) mismatches++;
    }
    expect(mismatches).toBe(0);
  });
});

describe('float32ToFp16 against a brute-force nearest-even reference', () => {
  /** Nearest half to a positive finite value by search over all finite halves, ties to the even pattern. */
  function referenceFp16(value: number): number {
    const max = 65504;
    // Values at or past max + half an ulp (65520) round to infinity.
    if (value >= 65520) return 0x7c00;
    let lo = 0;
    let hi = 0x7bff;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (fp16ToFloat32(mid) <= value) lo = mid;
      else hi = mid;
    }
    if (value >= max) return 0x7bff;
    const below = fp16ToFloat32(lo);
    const above = fp16ToFloat32(hi);
    if (value - below < above - value) return lo;
    if (value - below > above - value) return hi;
    return lo % 2 === 0 ? lo : hi;
  }

  it('agrees on 20000 pseudo-random float32 values across the half range', () => {
    let state = 12345;
    const next = () => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state;
    };
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    let mismatches = 0;
    for (let i = 0; i < 20000; i++) {
      // Exponents from 2^-27 to 2^16 cover underflow, subnormals, normals and overflow.
      const exponent = 100 + (next() % 44);
      u32[0] = (exponent << 23) | (next() & 0x7fffff);
      const value = f32[0]!;
      if (float32ToFp16(value) !== referenceFp16(value)) mismatches++;
      if (float32ToFp16(-value) !== (referenceFp16(value) | 0x8000)) mismatches++;
    }
    expect(mismatches).toBe(0);
  });
});
