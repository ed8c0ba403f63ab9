/**
 * IEEE 754 binary16 (FP16) <-> float32 conversion with round-to-nearest-even,
 * subnormals, infinities and NaN. Values are first rounded to float32, as the
 * datatype names say; payloads come from Float32Arrays where that is a no-op.
 */

const scratchF32 = new Float32Array(1);
const scratchU32 = new Uint32Array(scratchF32.buffer);

/** FP16 bit pattern (0..0xffff) of a number, rounded to float32 first, then to nearest-even half. */
export function float32ToFp16(value: number): number {
  scratchF32[0] = value;
  const bits = scratchU32[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;

  if (exponent === 0xff) {
    if (mantissa === 0) return sign | 0x7c00;
    // Keep the payload's top bits and set the quiet bit so a NaN never turns into infinity.
    return sign | 0x7e00 | (mantissa >>> 13);
  }

  const halfExponent = exponent - 127 + 15;
  if (halfExponent >= 0x1f) return sign | 0x7c00;

  if (halfExponent <= 0) {
    // Half subnormals are m * 2^-24: m is the 24-bit significand shifted right by 14 - halfExponent.
    const shift = 14 - halfExponent;
    if (shift > 24) return sign;
    const significand = mantissa | 0x800000;
    let half = significand >>> shift;
    const remainder = significand & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (remainder > halfway || (remainder === halfway && (half & 1) === 1)) half++;
    // A carry out of the subnormal range lands exactly on the smallest normal encoding.
    return sign | half;
  }

  let half = sign | (halfExponent << 10) | (mantissa >>> 13);
  const remainder = mantissa & 0x1fff;
  // A carry propagates into the exponent, and from the largest finite value into infinity.
  if (remainder > 0x1000 || (remainder === 0x1000 && (half & 1) === 1)) half++;
  return half;
}

/** The number an FP16 bit pattern stands for (exact: every half is a float32). */
export function fp16ToFloat32(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Number.POSITIVE_INFINITY : Number.NaN;
  return sign * (mantissa + 1024) * 2 ** (exponent - 25);
}

/** Converts numbers to FP16 bit patterns. */
export function float32ArrayToFp16(values: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = float32ToFp16(values[i]!);
  return out;
}

/** Converts FP16 bit patterns to float32 values. */
export function fp16ArrayToFloat32(bits: ArrayLike<number>): Float32Array {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = fp16ToFloat32(bits[i]!);
  return out;
}
