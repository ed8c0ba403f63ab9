/**
 * Tensor values <-> raw bytes as Triton lays them out: little-endian, row-major,
 * no padding; FP16/BF16 as 16-bit patterns; BYTES length-prefixed.
 */
import type { Datatype } from './datatypes.ts';
import { bf16ArrayToFloat32, float32ArrayToBf16 } from './bf16.ts';
import {
  type BytesElement,
  decodeBytesTensor,
  decodeBytesTensorAsStrings,
  encodeBytesTensor,
} from './bytes.ts';
import { DATATYPE_BYTES, elementCount, formatShape } from './datatypes.ts';
import { fp16ArrayToFloat32, float32ArrayToFp16 } from './fp16.ts';

/** One element as a caller may hand it over. */
export type TensorValue = number | bigint | boolean | string | Uint8Array;

/**
 * Decoded tensor contents: typed arrays for fixed-width numbers (FP16/BF16 widen to Float32Array),
 * number[] (or bigint[]) for INT64/UINT64, boolean[] for BOOL, string[] (or Uint8Array[]) for BYTES.
 */
export type TensorData =
  | Float32Array
  | Float64Array
  | Int8Array
  | Int16Array
  | Int32Array
  | Uint8Array
  | Uint16Array
  | Uint32Array
  | number[]
  | bigint[]
  | boolean[]
  | string[]
  | Uint8Array[];

/** How decodeTensor returns 64-bit integers and BYTES elements. */
export interface DecodeOptions {
  /** 'number' is exact up to 2^53; 'bigint' is exact always. @default 'number' */
  int64?: 'number' | 'bigint';
  /** 'string' decodes UTF-8; 'raw' returns each element's bytes. @default 'string' */
  bytes?: 'string' | 'raw';
}

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const TWO_POW_32 = 0x100000000;

const INTEGER_RANGES: Partial<Record<Datatype, [number, number]>> = {
  UINT8: [0, 0xff],
  UINT16: [0, 0xffff],
  UINT32: [0, 0xffffffff],
  INT8: [-0x80, 0x7f],
  INT16: [-0x8000, 0x7fff],
  INT32: [-0x80000000, 0x7fffffff],
};

/** Serialises values as a Triton tensor of `datatype` (little-endian, row-major). */
export function encodeTensor(datatype: Datatype, values: ArrayLike<TensorValue>): Uint8Array {
  switch (datatype) {
    case 'BYTES':
      return encodeBytesTensor(toBytesElements(values));
    case 'BOOL': {
      const out = new Uint8Array(values.length);
      for (let i = 0; i < values.length; i++) out[i] = values[i] ? 1 : 0;
      return out;
    }
    case 'FP16':
      return toLittleEndian(float32ArrayToFp16(toNumbers(values)), 2);
    case 'BF16':
      return toLittleEndian(float32ArrayToBf16(toNumbers(values)), 2);
    case 'FP32':
      return toLittleEndian(Float32Array.from(toNumbers(values)), 4);
    case 'FP64':
      return toLittleEndian(Float64Array.from(toNumbers(values)), 8);
    case 'INT64':
    case 'UINT64':
      return encodeInt64(datatype, values);
    case 'UINT8':
    case 'UINT16':
    case 'UINT32':
    case 'INT8':
    case 'INT16':
    case 'INT32':
      return encodeSmallInt(datatype, values);
    default:
      throw new Error(`unknown datatype "${datatype as string}"`);
  }
}

/**
 * Reads a Triton tensor of `datatype` from raw bytes. With `shape`, the element count must match;
 * without it, every whole element in `bytes` is returned. The result never aliases `bytes`
 * except for BYTES elements with `bytes: 'raw'`.
 */
export function decodeTensor(
  datatype: Datatype,
  bytes: Uint8Array,
  shape?: readonly number[],
  options: DecodeOptions = {},
): TensorData {
  const expectedCount = shape === undefined ? undefined : elementCount(shape);
  if (datatype === 'BYTES') {
    return options.bytes === 'raw'
      ? decodeBytesTensor(bytes, expectedCount)
      : decodeBytesTensorAsStrings(bytes, expectedCount);
  }
  const elementBytes = DATATYPE_BYTES[datatype];
  if (elementBytes === undefined) throw new Error(`unknown datatype "${datatype as string}"`);
  if (expectedCount !== undefined && bytes.length !== expectedCount * elementBytes) {
    throw new Error(
      `cannot decode ${datatype} ${formatShape(shape!)}: expected ${expectedCount * elementBytes} bytes, got ${bytes.length}`,
    );
  }
  if (bytes.length % elementBytes !== 0) {
    throw new Error(`cannot decode ${datatype}: ${bytes.length} bytes is not a multiple of ${elementBytes}`);
  }
  // A fresh, aligned copy, so typed-array views below are always legal. Not bytes.slice(): on a
  // Node Buffer slice() is a view into its shared pool, not a copy.
  const copy = new Uint8Array(bytes);
  if (!LITTLE_ENDIAN_HOST) swapBytes(copy, elementBytes);
  const buffer = copy.buffer;
  switch (datatype) {
    case 'BOOL':
      return Array.from(copy, (byte) => byte !== 0);
    case 'UINT8':
      return copy;
    case 'INT8':
      return new Int8Array(buffer);
    case 'UINT16':
      return new Uint16Array(buffer);
    case 'INT16':
      return new Int16Array(buffer);
    case 'UINT32':
      return new Uint32Array(buffer);
    case 'INT32':
      return new Int32Array(buffer);
    case 'FP32':
      return new Float32Array(buffer);
    case 'FP64':
      return new Float64Array(buffer);
    case 'FP16':
      return fp16ArrayToFloat32(new Uint16Array(buffer));
    case 'BF16':
      return bf16ArrayToFloat32(new Uint16Array(buffer));
    case 'INT64':
    case 'UINT64':
      return decodeInt64(datatype, new Uint32Array(buffer), options.int64 ?? 'number');
    default:
      throw new Error(`unknown datatype "${datatype as string}"`);
  }
}

function toNumbers(values: ArrayLike<TensorValue>): ArrayLike<number> {
  if (isNumericTypedArray(values)) return values as ArrayLike<number>;
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = toNumber(values[i]!, i);
  return out;
}

function toNumber(value: TensorValue, index: number): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    if (!Number.isNaN(parsed) || value.trim() === 'NaN') return parsed;
  }
  throw new Error(`element ${index} (${String(value)}) is not a number`);
}

function isNumericTypedArray(values: unknown): boolean {
  return ArrayBuffer.isView(values) && !(values instanceof DataView) && !isBigIntArray(values);
}

function isBigIntArray(values: unknown): boolean {
  const tag = Object.prototype.toString.call(values);
  return tag === '[object BigInt64Array]' || tag === '[object BigUint64Array]';
}

function toBytesElements(values: ArrayLike<TensorValue>): BytesElement[] {
  const out: BytesElement[] = [];
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    out.push(typeof value === 'string' || value instanceof Uint8Array ? value : String(value));
  }
  return out;
}

function encodeSmallInt(datatype: Datatype, values: ArrayLike<TensorValue>): Uint8Array {
  const [min, max] = INTEGER_RANGES[datatype]!;
  const elementBytes = DATATYPE_BYTES[datatype];
  const out = new Uint8Array(values.length * elementBytes);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) {
    const value = toNumber(values[i]!, i);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new Error(`element ${i} (${value}) is out of range for ${datatype} [${min}, ${max}]`);
    }
    if (elementBytes === 1) out[i] = value & 0xff;
    else if (elementBytes === 2) view.setUint16(i * 2, value & 0xffff, true);
    else view.setUint32(i * 4, value >>> 0, true);
  }
  return out;
}

function encodeInt64(datatype: 'INT64' | 'UINT64', values: ArrayLike<TensorValue>): Uint8Array {
  const out = new Uint8Array(values.length * 8);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) {
    const [low, high] = splitInt64(datatype, values[i]!, i);
    view.setUint32(i * 8, low, true);
    view.setUint32(i * 8 + 4, high, true);
  }
  return out;
}

/** Two's-complement 32-bit words (low, high) of a 64-bit integer given as a number or bigint. */
function splitInt64(datatype: 'INT64' | 'UINT64', value: TensorValue, index: number): [number, number] {
  if (typeof value === 'bigint') {
    // BigInt is only touched when the caller passes bigints, so k6 builds without BigInt never reach here.
    const min = datatype === 'INT64' ? -(BigInt(2) ** BigInt(63)) : BigInt(0);
    const max =
      datatype === 'INT64' ? BigInt(2) ** BigInt(63) - BigInt(1) : BigInt(2) ** BigInt(64) - BigInt(1);
    if (value < min || value > max) {
      throw new Error(`element ${index} (${value}) is out of range for ${datatype}`);
    }
    const mask = BigInt(0xffffffff);
    return [Number(value & mask), Number((value >> BigInt(32)) & mask)];
  }
  const number = toNumber(value, index);
  if (!Number.isSafeInteger(number) || (datatype === 'UINT64' && number < 0)) {
    throw new Error(
      `element ${index} (${number}) is not a ${datatype === 'UINT64' ? 'non-negative ' : ''}safe integer; pass a bigint for values beyond 2^53`,
    );
  }
  const high = Math.floor(number / TWO_POW_32);
  const low = number - high * TWO_POW_32;
  return [low, high >>> 0];
}

function decodeInt64(
  datatype: 'INT64' | 'UINT64',
  words: Uint32Array,
  mode: 'number' | 'bigint',
): number[] | bigint[] {
  const count = words.length / 2;
  if (mode === 'bigint') {
    const out: bigint[] = new Array(count);
    const shift = BigInt(32);
    for (let i = 0; i < count; i++) {
      const value = (BigInt(words[i * 2 + 1]!) << shift) | BigInt(words[i * 2]!);
      out[i] = datatype === 'INT64' ? BigInt.asIntN(64, value) : value;
    }
    return out;
  }
  const out: number[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const low = words[i * 2]!;
    const high = words[i * 2 + 1]!;
    const signedHigh = datatype === 'INT64' ? high | 0 : high;
    out[i] = signedHigh * TWO_POW_32 + low;
  }
  return out;
}

/** Bytes of a typed array in little-endian order (a copy only on big-endian hosts). */
function toLittleEndian(array: Uint16Array | Float32Array | Float64Array, elementBytes: number): Uint8Array {
  const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  if (LITTLE_ENDIAN_HOST) return bytes;
  const copy = bytes.slice();
  swapBytes(copy, elementBytes);
  return copy;
}

function swapBytes(bytes: Uint8Array, elementBytes: number): void {
  if (elementBytes === 1) return;
  for (let start = 0; start < bytes.length; start += elementBytes) {
    for (let a = start, b = start + elementBytes - 1; a < b; a++, b--) {
      const tmp = bytes[a]!;
      bytes[a] = bytes[b]!;
      bytes[b] = tmp;
    }
  }
}
