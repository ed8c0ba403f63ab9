import { describe, expect, it } from 'vitest';
import { configOutputShape, fromOrtValue, modelInputDims, toOrtValue } from '../src/backends/onnx-tensors.ts';
import type { ModelConfigJson, TensorData } from '../src/backends/types.ts';

function config(maxBatchSize: number, reshape?: number[]): ModelConfigJson {
  return {
    name: 'm',
    platform: 'onnxruntime_onnx',
    backend: 'onnxruntime',
    max_batch_size: maxBatchSize,
    input: [
      { name: 'x', data_type: 'TYPE_FP32', dims: [4], ...(reshape ? { reshape: { shape: reshape } } : {}) },
    ],
    output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [2, 2] }],
    instance_group: [],
  };
}

function tensor(datatype: TensorData['datatype'], shape: number[], data: Uint8Array): TensorData {
  return { name: 'x', datatype, shape, data };
}

describe('onnx tensor conversion', () => {
  it('views aligned FP32 bytes without copying', () => {
    const bytes = new Uint8Array(new Float32Array([1.5, -2, 3, 4]).buffer);
    const value = toOrtValue(tensor('FP32', [4], bytes), [4], false);
    expect(value.type).toBe('float32');
    expect(Array.from(value.data as Float32Array)).toEqual([1.5, -2, 3, 4]);
    (value.data as Float32Array)[0] = 9;
    expect(new Float32Array(bytes.buffer)[0]).toBe(9);
  });

  it('copies bytes at an unaligned offset, and always when asked to', () => {
    const source = new Uint8Array(new Float32Array([1, 2]).buffer);
    const unaligned = new Uint8Array(9).subarray(1);
    unaligned.set(source);
    const value = toOrtValue(tensor('FP32', [2], unaligned), [2], false);
    expect(Array.from(value.data as Float32Array)).toEqual([1, 2]);
    const copied = toOrtValue(tensor('FP32', [2], source), [2], true);
    (copied.data as Float32Array)[0] = 7;
    expect(new Float32Array(source.buffer)[0]).toBe(1);
  });

  it('copies a Node Buffer view at an odd offset (Buffer.slice would not copy)', () => {
    const body = Buffer.alloc(9);
    Buffer.from(new Float32Array([3, 4]).buffer).copy(body, 1);
    const value = toOrtValue(tensor('FP32', [2], body.subarray(1)), [2], false);
    expect(Array.from(value.data as Float32Array)).toEqual([3, 4]);
    const copied = toOrtValue(tensor('FP32', [2], body.subarray(1)), [2], true);
    expect((copied.data as Float32Array).byteOffset).toBe(0);
    expect((copied.data as Float32Array).buffer).not.toBe(body.buffer);
  });

  it('maps INT64 to BigInt64Array, FP16 to Uint16Array and BYTES to strings', () => {
    const int64 = toOrtValue(
      tensor('INT64', [2], new Uint8Array(new BigInt64Array([5n, -1n]).buffer)),
      [2],
      false,
    );
    expect(int64.type).toBe('int64');
    expect(Array.from(int64.data as BigInt64Array)).toEqual([5n, -1n]);
    const fp16 = toOrtValue(tensor('FP16', [1], new Uint8Array([0x00, 0x3c])), [1], false);
    expect(fp16.type).toBe('float16');
    expect((fp16.data as Uint16Array)[0]).toBe(0x3c00);
    const bytes = toOrtValue(
      tensor('BYTES', [2], new Uint8Array([2, 0, 0, 0, 104, 105, 1, 0, 0, 0, 33])),
      [2],
      false,
    );
    expect(bytes).toEqual({ type: 'string', data: ['hi', '!'], dims: [2] });
  });

  it('rejects BF16 and a byte count that is not whole elements, naming the input', () => {
    expect(() => toOrtValue(tensor('BF16', [1], new Uint8Array(2)), [1], false)).toThrow(
      /input x: datatype BF16/,
    );
    expect(() => toOrtValue(tensor('FP32', [1], new Uint8Array(6)), [1], false)).toThrow(/input x: 6 bytes/);
  });

  it('turns onnxruntime outputs back into Triton datatypes and bytes', () => {
    const out = fromOrtValue('y', { type: 'float32', data: new Float32Array([1, 2]), dims: [2] }, [2]);
    expect(out).toMatchObject({ name: 'y', datatype: 'FP32', shape: [2] });
    expect(Array.from(new Float32Array(out.data.slice().buffer))).toEqual([1, 2]);
    const text = fromOrtValue('y', { type: 'string', data: ['ok'], dims: [1] }, [1]);
    expect(text.datatype).toBe('BYTES');
    expect(Array.from(text.data)).toEqual([2, 0, 0, 0, 111, 107]);
  });
});

describe('onnx shape rules', () => {
  const declared = (rank: number) => ({
    name: 'x',
    shape: Array.from({ length: rank }, (_, i) => (i ? 4 : 'N')),
  });

  it('applies the config reshape behind the batch dim when max_batch_size > 0', () => {
    expect(
      modelInputDims(tensor('FP32', [3, 4], new Uint8Array(48)), config(8, [2, 2]), declared(3)),
    ).toEqual([3, 2, 2]);
    expect(modelInputDims(tensor('FP32', [4], new Uint8Array(16)), config(0, [1, 4]), declared(2))).toEqual([
      1, 4,
    ]);
  });

  it('adds or drops a leading 1 when the model rank differs by one', () => {
    expect(modelInputDims(tensor('FP32', [4], new Uint8Array(16)), config(0), declared(2))).toEqual([1, 4]);
    expect(modelInputDims(tensor('FP32', [1, 4], new Uint8Array(16)), config(0), declared(1))).toEqual([4]);
    expect(modelInputDims(tensor('FP32', [2, 4], new Uint8Array(32)), config(8), declared(2))).toEqual([
      2, 4,
    ]);
  });

  it('answers the config output dims when they hold the same elements, else the model shape', () => {
    expect(configOutputShape('y', [1, 4], config(0), 1)).toEqual([2, 2]);
    expect(configOutputShape('y', [3, 4], config(8), 3)).toEqual([3, 2, 2]);
    expect(configOutputShape('y', [1, 5], config(0), 1)).toEqual([1, 5]);
    expect(configOutputShape('z', [7], config(0), 1)).toEqual([7]);
  });
});
