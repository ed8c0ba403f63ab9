/**
 * bfloat16 (the top 16 bits of a float32) <-> float32 conversion with
 * round-to-nearest-even, keeping infinities and quieting NaNs.
 */

const scratchF32 = new Float32Array(1);
const scratchU32 = new Uint32Array(scratchF32.buffer);

/** BF16 bit pattern (0..0xffff) of a number, rounded to float32 first, then to nearest-even bfloat16. */
export function float32ToBf16(value: number): number {
  scratchF32[0] = value;
  const bits = scratchU32[0]!;
  if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x7fffff) !== 0) {
    // Truncating a NaN could clear every mantissa bit left and make it infinity: force the quiet bit.
    return (bits >>> 16) | 0x40;
  }
  // Adding 0x7fff plus the lowest kept bit rounds half to even; the sum stays below 2^32 for non-NaN input.
  const rounded = bits + 0x7fff + ((bits >>> 16) & 1);
  return Math.floor(rounded / 0x10000) & 0xffff;
}

/** The number a BF16 bit pattern stands for (exact). */
export function bf16ToFloat32(bits: number): number {
  scratchU32[0] = (bits & 0xffff) * 0x10000;
  return scratchF32[0]!;
}

/** Converts numbers to BF16 bit patterns. */
export function float32ArrayToBf16(values: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = float32ToBf16(values[i]!);
  return out;
}

/** Converts BF16 bit patterns to float32 values. */
export function bf16ArrayToFloat32(bits: ArrayLike<number>): Float32Array {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = bf16ToFloat32(bits[i]!);
  return out;
}
