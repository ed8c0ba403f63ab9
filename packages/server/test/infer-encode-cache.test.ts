/** A reused all-binary answer header is byte for byte what encoding the answer afresh gives. */
import { describe, expect, it } from 'vitest';
import type { HttpOutputPrefs } from '../src/http/infer-decode.ts';
import { encodeHttpInfer } from '../src/http/infer-encode.ts';
import type { InferResult } from '../src/infer/types.ts';

const binaryPrefs = (): HttpOutputPrefs => ({ binaryDefault: true, binaryByName: new Map() });

function result(over: Partial<InferResult> = {}, shape = [1, 10], bytes = 40): InferResult {
  return {
    modelName: 'mnist',
    modelVersion: '1',
    id: '',
    outputs: [{ name: 'Y', datatype: 'FP32', shape, data: new Uint8Array(bytes).fill(shape.length) }],
    ...over,
  };
}

const text = (chunks: Uint8Array[]) => Buffer.concat(chunks).toString('latin1');

describe('encodeHttpInfer with one output preferences object', () => {
  it('reuses the header bytes of an equal answer and writes this answer its own data', () => {
    const prefs = binaryPrefs();
    const first = encodeHttpInfer(result(), prefs);
    const second = encodeHttpInfer(result({}, [1, 10], 40), prefs);
    expect(second.chunks[0]).toBe(first.chunks[0]);
    expect(text(second.chunks)).toBe(text(encodeHttpInfer(result(), binaryPrefs()).chunks));
    expect(second.headerLength).toBe(first.headerLength);
  });

  it('writes a new header when the id, shape, size, model or output differ', () => {
    const prefs = binaryPrefs();
    encodeHttpInfer(result(), prefs);
    for (const changed of [
      result({ id: 'r7' }),
      result({}, [2, 10], 80),
      result({}, [1, 20], 80),
      result({ modelVersion: '2' }),
      result({ outputs: [{ name: 'Z', datatype: 'FP32', shape: [1, 10], data: new Uint8Array(40) }] }),
    ]) {
      const got = encodeHttpInfer(changed, prefs);
      const fresh = encodeHttpInfer(changed, binaryPrefs());
      expect(text(got.chunks)).toBe(text(fresh.chunks));
      expect(got.headerLength).toBe(fresh.headerLength);
    }
  });

  it('never reuses a header for JSON outputs', () => {
    const prefs: HttpOutputPrefs = { binaryDefault: false, binaryByName: new Map() };
    const a = encodeHttpInfer(result(), prefs);
    const b = encodeHttpInfer(result({}, [1, 10], 40), prefs);
    expect(a.headerLength).toBeUndefined();
    expect(b.chunks[0]).not.toBe(a.chunks[0]);
  });
});
