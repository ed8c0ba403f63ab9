import { describe, expect, it } from 'vitest';
import {
  type Datatype,
  decodeTensor,
  encodeTensor,
  float32ToFp16,
  fp16ToFloat32,
} from '../../lib/tensor/index.ts';

const bytesOf = (data: Uint8Array) => [...data];

describe('encodeTensor layout', () => {
  it('writes INT32 little-endian two’s complement', () => {
    expect(bytesOf(encodeTensor('INT32', [1, -2]))).toEqual([1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff]);
  });

  it('writes FP32 1.0 as 00 00 80 3f and FP16 1.0 as 00 3c', () => {
    expect(bytesOf(encodeTensor('FP32', [1]))).toEqual([0, 0, 0x80, 0x3f]);
    expect(bytesOf(encodeTensor('FP16', [1, -2]))).toEqual([0x00, 0x3c, 0x00, 0xc0]);
    expect(bytesOf(encodeTensor('BF16', [1]))).toEqual([0x80, 0x3f]);
  });

  it('writes INT64 -1 and 2^32 as two little-endian words', () => {
    expect(bytesOf(encodeTensor('INT64', [-1, 2 ** 32]))).toEqual([
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1, 0, 0, 0,
    ]);
  });

  it('writes BOOL as one byte per element', () => {
    expect(bytesOf(encodeTensor('BOOL', [true, false, 1, 0]))).toEqual([1, 0, 1, 0]);
  });

  it('writes BYTES as 4-byte length prefix plus UTF-8', () => {
    expect(bytesOf(encodeTensor('BYTES', ['hi', '']))).toEqual([2, 0, 0, 0, 0x68, 0x69, 0, 0, 0, 0]);
  });
});

describe('encodeTensor/decodeTensor round trips', () => {
  const cases: [Datatype, number[]][] = [
    ['UINT8', [0, 1, 255]],
    ['UINT16', [0, 65535, 1234]],
    ['UINT32', [0, 4294967295, 7]],
    ['INT8', [-128, 127, 0]],
    ['INT16', [-32768, 32767, -1]],
    ['INT32', [-2147483648, 2147483647, 42]],
    ['INT64', [-(2 ** 53) + 1, 2 ** 53 - 1, -1, 0, 2 ** 40]],
    ['UINT64', [0, 2 ** 53 - 1, 2 ** 32 + 5]],
    ['FP32', [0.5, -1.25, 3.4028234663852886e38]],
    ['FP64', [Math.PI, -1e300, 5e-324]],
  ];
  it.each(cases)('%s values survive encode then decode', (datatype, values) => {
    const decoded = decodeTensor(datatype, encodeTensor(datatype, values), [values.length]);
    expect(Array.from(decoded as ArrayLike<number>)).toEqual(values);
  });

  it('FP16 and BF16 decode to the rounded float32 values', () => {
    const values = [0.1, 1, -65504, 2 ** -24];
    const fp16 = decodeTensor('FP16', encodeTensor('FP16', values), [4]) as Float32Array;
    expect(fp16).toBeInstanceOf(Float32Array);
    expect(Array.from(fp16)).toEqual(values.map((v) => fp16ToFloat32(float32ToFp16(v))));
    const bf16 = decodeTensor('BF16', encodeTensor('BF16', [1, -2, 3.140625]), [3]);
    expect(Array.from(bf16 as Float32Array)).toEqual([1, -2, 3.140625]);
  });

  it('INT64 and UINT64 beyond 2^53 round-trip as bigints', () => {
    const int64 = [-(BigInt(2) ** BigInt(63)), BigInt(2) ** BigInt(63) - BigInt(1), BigInt(-5)];
    expect(decodeTensor('INT64', encodeTensor('INT64', int64), [3], { int64: 'bigint' })).toEqual(int64);
    const uint64 = [BigInt(2) ** BigInt(64) - BigInt(1), BigInt(0)];
    expect(decodeTensor('UINT64', encodeTensor('UINT64', uint64), [2], { int64: 'bigint' })).toEqual(uint64);
  });

  it('BOOL and BYTES round-trip, BYTES with multi-byte UTF-8', () => {
    expect(decodeTensor('BOOL', encodeTensor('BOOL', [true, false, true]))).toEqual([true, false, true]);
    const strings = ['héllo', '', '数据', '😀 emoji'];
    expect(decodeTensor('BYTES', encodeTensor('BYTES', strings), [2, 2])).toEqual(strings);
    const raw = decodeTensor('BYTES', encodeTensor('BYTES', [new Uint8Array([0, 255])]), [1], {
      bytes: 'raw',
    });
    expect((raw as Uint8Array[]).map((element) => Array.from(element))).toEqual([[0, 255]]);
  });

  it('decodes from an unaligned view of a larger buffer', () => {
    const body = new Uint8Array(9);
    body.set(encodeTensor('FP32', [1.5, -2]), 1);
    expect(Array.from(decodeTensor('FP32', body.subarray(1), [2]) as Float32Array)).toEqual([1.5, -2]);
  });

  it('accepts typed arrays and numeric strings as input values', () => {
    expect(bytesOf(encodeTensor('FP32', new Float32Array([1])))).toEqual([0, 0, 0x80, 0x3f]);
    expect(bytesOf(encodeTensor('INT32', ['7']))).toEqual([7, 0, 0, 0]);
  });
});

describe('codec errors', () => {
  it('rejects integers out of range, naming the element and the range', () => {
    expect(() => encodeTensor('INT8', [1, 200])).toThrow(
      'element 1 (200) is out of range for INT8 [-128, 127]',
    );
    expect(() => encodeTensor('UINT16', [-1])).toThrow('out of range for UINT16');
    expect(() => encodeTensor('INT32', [1.5])).toThrow('out of range for INT32');
  });

  it('rejects INT64 numbers beyond 2^53 and negative UINT64', () => {
    expect(() => encodeTensor('INT64', [2 ** 60])).toThrow('pass a bigint');
    expect(() => encodeTensor('UINT64', [-1])).toThrow('non-negative safe integer');
  });

  it('rejects byte lengths that do not fit the shape', () => {
    expect(() => decodeTensor('FP32', new Uint8Array(12), [2, 2])).toThrow(
      'cannot decode FP32 [2,2]: expected 16 bytes, got 12',
    );
    expect(() => decodeTensor('INT16', new Uint8Array(3))).toThrow('not a multiple of 2');
    expect(() => decodeTensor('BYTES', encodeTensor('BYTES', ['a']), [2])).toThrow(
      'holds 1 elements, expected 2',
    );
  });

  it('rejects non-numeric values', () => {
    expect(() => encodeTensor('FP32', ['abc'])).toThrow('element 0 (abc) is not a number');
  });
});
