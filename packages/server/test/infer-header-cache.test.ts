/** A reused HTTP inference header decodes to what the full decoder makes of the same body, and only then. */
import { describe, expect, it } from 'vitest';
import type { ModelConfigJson } from '../src/config/types.ts';
import { decodeHttpInfer, type InferTarget } from '../src/http/infer-decode.ts';
import { decodeHttpInferCached } from '../src/http/infer-header-cache.ts';

const target = (): InferTarget => ({
  name: 'mnist',
  version: '',
  config: { name: 'mnist', input: [], output: [], max_batch_size: 0 } as unknown as ModelConfigJson,
});

/** A body as perf_analyzer sends it: a JSON header, then each input's bytes. */
function body(header: object, ...parts: number[][]): { body: Buffer; headerLength: number } {
  const json = Buffer.from(JSON.stringify(header));
  // Copied into a larger buffer at an offset, as a socket's pooled chunk would be.
  const whole = Buffer.concat([Buffer.alloc(7), json, ...parts.map((p) => Buffer.from(p))]);
  return { body: whole.subarray(7), headerLength: json.length };
}

const HEADER = {
  id: 'r1',
  parameters: { priority: 2, custom: 'x' },
  inputs: [
    { name: 'A', datatype: 'UINT8', shape: [1, 3], parameters: { binary_data_size: 3 } },
    { name: 'B', datatype: 'UINT8', shape: [2], parameters: { binary_data_size: 2 } },
  ],
  outputs: [{ name: 'Y', parameters: { binary_data: true } }],
};

const decodeFull = (b: { body: Buffer; headerLength: number }, t: InferTarget) =>
  decodeHttpInfer(b.body, b.headerLength, t, 1 << 20);
const decodeCached = (b: { body: Buffer; headerLength: number }, t: InferTarget) =>
  decodeHttpInferCached(b.body, b.headerLength, t, 1 << 20);

describe('decodeHttpInferCached', () => {
  it('decodes a repeated header as the full decoder does, with views of each body', () => {
    const t = target();
    const first = body(HEADER, [1, 2, 3], [4, 5]);
    const decoded = decodeCached(first, t);
    expect(decoded).toEqual(decodeFull(first, t));
    const second = body(HEADER, [9, 8, 7], [6, 5]);
    const reused = decodeCached(second, t);
    expect(reused).toEqual(decodeFull(second, t));
    // Reused, not decoded again: the output preferences are the first decode's.
    expect(reused.prefs).toBe(decoded.prefs);
    expect([...reused.request.inputs[0]!.data]).toEqual([9, 8, 7]);
    expect([...reused.request.inputs[1]!.data]).toEqual([6, 5]);
    expect(reused.request.inputs[1]!.data.buffer).toBe(second.body.buffer);
    // Each request has records of its own: changing one leaves the next as decoded.
    reused.request.inputs[0]!.shape[1] = 99;
    reused.request.parameters.priority = 7;
    reused.request.outputs![0]!.name = 'Z';
    const third = body(HEADER, [1, 1, 1], [2, 2]);
    expect(decodeCached(third, t)).toEqual(decodeFull(third, t));
  });

  it('answers as the full decoder when the binary part does not add up', () => {
    const t = target();
    decodeCached(body(HEADER, [1, 2, 3], [4, 5]), t);
    const short = body(HEADER, [1, 2, 3], [4]);
    expect(() => decodeCached(short, t)).toThrow("unexpected size for input 'B'");
    const long = body(HEADER, [1, 2, 3], [4, 5, 6]);
    expect(() => decodeCached(long, t)).toThrow("unexpected additional input data for model 'mnist'");
  });

  it('decodes JSON tensor data every time, and a different header as itself', () => {
    const t = target();
    const json = { inputs: [{ name: 'A', datatype: 'UINT8', shape: [2], data: [1, 2] }] };
    const a = body(json);
    expect(decodeCached(a, t)).toEqual(decodeFull(a, t));
    const b = body({ inputs: [{ name: 'A', datatype: 'UINT8', shape: [2], data: [3, 4] }] });
    expect([...decodeCached(b, t).request.inputs[0]!.data]).toEqual([3, 4]);
    decodeCached(body(HEADER, [1, 2, 3], [4, 5]), t);
    const other = body({ ...HEADER, id: 'r2' }, [1, 2, 3], [4, 5]);
    expect(decodeCached(other, t).request.id).toBe('r2');
  });

  it('keeps a header per model version: another target decodes its own name', () => {
    const t = target();
    const b = body(HEADER, [1, 2, 3], [4, 5]);
    decodeCached(b, t);
    const v2 = { ...t, version: '2' };
    expect(decodeCached(b, v2).request.modelVersion).toBe('2');
  });
});
