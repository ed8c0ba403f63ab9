import { describe, expect, it } from 'vitest';
import {
  bf16ArrayToFloat32,
  bf16ToFloat32,
  float32ArrayToBf16,
  float32ToBf16,
} from '../../lib/tensor/index.ts';

const hex = (bits: number) => `0x${bits.toString(16).padStart(4, '0')}`;

/** The float32 whose bit pattern is `bits`. */
function f32(bits: number): number {
  return new Float32Array(new Uint32Array([bits]).buffer)[0]!;
}

describe('float32ToBf16', () => {
  it.each([
    [1, 0x3f80],
    [-2, 0xc000],
    [Math.PI, 0x4049],
    [0, 0x0000],
    [-0, 0x8000],
    [Number.POSITIVE_INFINITY, 0x7f80],
    [Number.NEGATIVE_INFINITY, 0xff80],
  ])('encodes %s as the known pattern %#', (value, bits) => {
    expect(hex(float32ToBf16(value))).toBe(hex(bits));
  });

  it('rounds ties to even', () => {
    expect(hex(float32ToBf16(f32(0x3f808000)))).toBe('0x3f80');
    expect(hex(float32ToBf16(f32(0x3f818000)))).toBe('0x3f82');
    expect(hex(float32ToBf16(f32(0x3f808001)))).toBe('0x3f81');
    expect(hex(float32ToBf16(f32(0x3f807fff)))).toBe('0x3f80');
  });

  it('keeps subnormals and rounds them to even', () => {
    expect(hex(float32ToBf16(f32(0x00010000)))).toBe('0x0001');
    expect(hex(float32ToBf16(f32(0x00008000)))).toBe('0x0000');
    expect(hex(float32ToBf16(f32(0x00018000)))).toBe('0x0002');
  });

  it('overflows the largest float32 to infinity and keeps NaN a NaN', () => {
    expect(hex(float32ToBf16(f32(0x7f7fffff)))).toBe('0x7f80');
    expect(hex(float32ToBf16(f32(0x7f7f7fff)))).toBe('0x7f7f');
    // A NaN whose payload lives only in the low 16 bits must not truncate to infinity.
    const bits = float32ToBf16(f32(0x7f800001));
    expect(bits & 0x7f80).toBe(0x7f80);
    expect(bits & 0x007f).not.toBe(0);
  });
});

describe('bf16ToFloat32', () => {
  it('decodes known patterns', () => {
    expect(bf16ToFloat32(0x3f80)).toBe(1);
    expect(bf16ToFloat32(0x4049)).toBe(3.140625);
    expect(bf16ToFloat32(0x7f7f)).toBe(3.3895313892515355e38);
    expect(bf16ToFloat32(0x0001)).toBe(2 ** -133);
    expect(bf16ToFloat32(0xff80)).toBe(Number.NEGATIVE_INFINITY);
    expect(bf16ToFloat32(0x7fc0)).toBeNaN();
    expect(Object.is(bf16ToFloat32(0x8000), -0)).toBe(true);
  });

  it('round-trips every one of the 65536 bit patterns (NaNs stay NaN)', () => {
    const all = new Uint16Array(65536).map((_, i) => i);
    const back = float32ArrayToBf16(bf16ArrayToFloat32(all));
    let mismatches = 0;
    for (let i = 0; i < 65536; i++) {
      const isNanPattern = (i & 0x7f80) === 0x7f80 && (i & 0x7f) !== 0;
      if (isNanPattern ? !Number.isNaN(bf16ToFloat32(back[i]!)) : back[i] !== i) mismatches++;
    }
    expect(mismatches).toBe(0);
  });
});
