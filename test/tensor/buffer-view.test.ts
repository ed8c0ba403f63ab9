import { describe, expect, it } from 'vitest';
import { decodeTensor, encodeTensor } from '../../lib/tensor/index.ts';

describe('decodeTensor on Node Buffers', () => {
  it('decodes only the tensor bytes of a small Buffer carved from the shared pool', () => {
    // Buffer.from of a few bytes lives inside Node's 8 KiB pool; slice() of it is a view, not a copy.
    const bytes = Buffer.from(encodeTensor('FP32', [1.5, -2]));
    expect(bytes.buffer.byteLength).toBeGreaterThan(bytes.byteLength);
    const values = decodeTensor('FP32', bytes, [2]);
    expect(Array.from(values as Float32Array)).toEqual([1.5, -2]);
  });
});
