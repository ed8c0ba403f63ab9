import { describe, expect, it } from 'vitest';
import {
  DATATYPE_BYTES,
  TensorError,
  batchedElementCount,
  batchedShape,
  byteSize,
  elementCount,
  encodeTensor,
  fromConfigDatatype,
  parseDatatype,
  tensorProblem,
  toConfigDatatype,
  validateTensor,
} from '../../lib/tensor/index.ts';

describe('datatypes', () => {
  it('knows the byte size of every Triton datatype', () => {
    expect(DATATYPE_BYTES).toEqual({
      BOOL: 1,
      UINT8: 1,
      UINT16: 2,
      UINT32: 4,
      UINT64: 8,
      INT8: 1,
      INT16: 2,
      INT32: 4,
      INT64: 8,
      FP16: 2,
      BF16: 2,
      FP32: 4,
      FP64: 8,
      BYTES: 0,
    });
  });

  it('counts elements and bytes with the batch dimension', () => {
    expect(batchedShape([3, 224, 224], 4, 64)).toEqual([4, 3, 224, 224]);
    expect(batchedShape([1, 1, 28, 28], 4, 0)).toEqual([1, 1, 28, 28]);
    expect(batchedElementCount([13], 4096, 65536)).toBe(53248);
    expect(byteSize('FP32', [1, 3, 224, 224])).toBe(602112);
    expect(byteSize('FP16', [2, 3, 224, 224])).toBe(602112);
    expect(elementCount([])).toBe(1);
  });

  it('refuses variable dims and BYTES sizes', () => {
    expect(() => elementCount([-1, 3])).toThrow('invalid shape [-1,3]');
    expect(() => byteSize('BYTES', [2])).toThrow('BYTES tensors have no fixed byte size');
  });

  it('maps model-config datatypes both ways', () => {
    expect(toConfigDatatype('FP32')).toBe('TYPE_FP32');
    expect(toConfigDatatype('BYTES')).toBe('TYPE_STRING');
    expect(fromConfigDatatype('TYPE_STRING')).toBe('BYTES');
    expect(fromConfigDatatype('TYPE_BF16')).toBe('BF16');
    expect(() => fromConfigDatatype('TYPE_FOO')).toThrow('unknown model-config data_type "TYPE_FOO"');
    expect(parseDatatype('fp16')).toBe('FP16');
    expect(() => parseDatatype('FP8')).toThrow('unknown datatype "FP8"; expected one of BOOL, UINT8');
  });
});

describe('validateTensor', () => {
  it('names the tensor, the expected datatype, shape and bytes, and the bytes found', () => {
    const tensor = {
      name: 'INPUT__0',
      datatype: 'FP32' as const,
      shape: [1, 3, 224, 224],
      data: new Uint8Array(1000),
    };
    expect(() => validateTensor(tensor)).toThrow(
      'invalid tensor "INPUT__0": expected FP32 [1,3,224,224] (602112 bytes), got 1000 bytes',
    );
    try {
      validateTensor(tensor);
    } catch (error) {
      expect(error).toBeInstanceOf(TensorError);
      expect((error as TensorError).tensor).toBe('INPUT__0');
    }
  });

  it('checks datatype and shape against an expectation with -1 wildcards', () => {
    const tensor = {
      name: 'input__1',
      datatype: 'INT32' as const,
      shape: [4, 26],
      data: new Uint8Array(416),
    };
    expect(tensorProblem(tensor, { datatype: 'INT32', shape: [-1, 26] })).toBeUndefined();
    expect(() => validateTensor(tensor, { datatype: 'INT64' })).toThrow(
      'invalid tensor "input__1": expected datatype INT64, got INT32',
    );
    expect(() => validateTensor(tensor, { shape: [-1, 13] })).toThrow(
      'invalid tensor "input__1": expected shape [-1,13], got [4,26]',
    );
  });

  it('counts BYTES elements and rejects negative dims', () => {
    const data = encodeTensor('BYTES', ['a', 'b', 'c']);
    expect(tensorProblem({ name: 'TEXT', datatype: 'BYTES', shape: [3], data })).toBeUndefined();
    expect(() => validateTensor({ name: 'TEXT', datatype: 'BYTES', shape: [2], data })).toThrow(
      'invalid tensor "TEXT": expected BYTES [2] (2 elements), got 3 elements',
    );
    expect(() =>
      validateTensor({ name: 'X', datatype: 'FP32', shape: [-1], data: new Uint8Array(4) }),
    ).toThrow('invalid tensor "X": shape [-1] has a negative or non-integer dim');
  });
});
