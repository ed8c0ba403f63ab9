import { describe, expect, it } from 'vitest';
import { base64Decode, base64Encode } from '../../lib/kserve/base64.ts';
import { loadPayloadFile } from '../../lib/payload/load.ts';
import {
  checkPayloadBytes,
  MANIFEST_FORMAT,
  parseManifest,
  resolveBeside,
} from '../../lib/payload/manifest.ts';
import { parsePerfAnalyzerData } from '../../lib/payload/perf-analyzer.ts';
import { encodeBytesTensor } from '../../lib/tensor/index.ts';

const INT32_2 = [{ name: 'IN', datatype: 'INT32' as const, dims: [2] }];
const le32 = (...xs: number[]) => Buffer.from(new Int32Array(xs).buffer).toString('hex');
const hex = (b: ArrayBuffer) => Buffer.from(b).toString('hex');

describe('k6-side payload loading (pure parts)', () => {
  it('base64 matches Node for every length remainder and rejects bad characters', () => {
    for (let n = 0; n < 40; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff);
      const text = base64Encode(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64'));
      expect(Buffer.from(base64Decode(text))).toEqual(Buffer.from(bytes));
    }
    expect(() => base64Decode('ab$d', 'IN')).toThrow('invalid base64 in IN: character "$" at offset 2');
  });

  it('checks sizes: fixed-size datatypes by bytes, BYTES by its length prefixes', () => {
    const input = { name: 'X', datatype: 'FP16' as const, shape: [2, 3] };
    expect(() => checkPayloadBytes('x.bin', input, new ArrayBuffer(12))).not.toThrow();
    expect(() => checkPayloadBytes('x.bin', input, new ArrayBuffer(11))).toThrow(
      'payload file x.bin: truncated: expected 12 bytes, found 11 (X FP16 [2,3])',
    );
    const strings = { name: 'S', datatype: 'BYTES' as const, shape: [2] };
    expect(() => checkPayloadBytes('s.bin', strings, encodeBytesTensor(['ab', 'c']))).not.toThrow();
    expect(() => checkPayloadBytes('s.bin', strings, encodeBytesTensor(['ab']))).toThrow(
      'payload file s.bin: holds 1 length-prefixed elements; expected 2',
    );
  });

  it('rejects a manifest of another format or missing files, naming the file', () => {
    expect(() => parseManifest('{"format":"x"}', 'm.json')).toThrow(
      'invalid payload manifest m.json: format is "x"',
    );
    const base = {
      format: MANIFEST_FORMAT,
      model: 'm',
      modelName: 'm',
      inputs: [{ name: 'IN', datatype: 'INT32', shape: [1, 2] }],
    };
    expect(() => parseManifest(JSON.stringify({ ...base, samples: [{ files: {} }] }), 'm.json')).toThrow(
      'samples[0] has no file for IN',
    );
    expect(() =>
      parseManifest(
        JSON.stringify({ ...base, inputs: [{ name: 'IN', datatype: 'FLOAT', shape: [1] }], samples: [] }),
        'm.json',
      ),
    ).toThrow('inputs[0].datatype "FLOAT" is not a Triton datatype');
  });

  it('resolves sample files beside the manifest', () => {
    expect(resolveBeside('/a/b/manifest.json', '000000.IN.bin')).toBe('/a/b/000000.IN.bin');
    expect(resolveBeside('manifest.json', 'x.bin')).toBe('x.bin');
  });

  it('loads a manifest through injected readers, each file once', () => {
    const files: Record<string, ArrayBuffer> = {
      '/s/0.bin': new Int32Array([1, 2]).buffer,
      '/s/1.bin': new Int32Array([3, 4]).buffer,
    };
    const manifest = {
      format: MANIFEST_FORMAT,
      model: 'm',
      modelName: 'm',
      precision: 'INT32',
      batch: 1,
      count: 2,
      seed: 1,
      recipe: {},
      inputs: [{ name: 'IN', datatype: 'INT32', shape: [1, 2] }],
      samples: [
        { files: { IN: '0.bin' }, sha256: {}, label: 7 },
        { files: { IN: '1.bin' }, sha256: {} },
      ],
    };
    const reads: string[] = [];
    const set = loadPayloadFile('/s/manifest.json', {
      readText: () => JSON.stringify(manifest),
      readBytes: (p) => {
        reads.push(p);
        return files[p]!;
      },
    });
    expect(reads).toEqual(['/s/0.bin', '/s/1.bin']);
    expect(set.samples.map((s) => [hex(s.inputs[0]!.data), s.label])).toEqual([
      [le32(1, 2), 7],
      [le32(3, 4), undefined],
    ]);
  });

  it('reads perf_analyzer arrays, content/shape, b64 and content.b64 forms, and streams', () => {
    const b64 = Buffer.from(new Int32Array([5, 6]).buffer).toString('base64');
    const text = JSON.stringify({
      data: [
        { IN: [1, 2] },
        { IN: { content: [[3], [4]], shape: [2] } },
        [{ IN: { b64, shape: [2] } }, { IN: { content: { b64 } } }],
      ],
    });
    const one = parsePerfAnalyzerData(text, { file: 'pa.json', inputs: INT32_2, batch: 1, batched: true });
    expect(one.map((s) => [hex(s.inputs[0]!.data), s.inputs[0]!.shape])).toEqual([
      [le32(1, 2), [1, 2]],
      [le32(3, 4), [1, 2]],
      [le32(5, 6), [1, 2]],
      [le32(5, 6), [1, 2]],
    ]);
    // Batch 3 stacks consecutive entries and wraps round at the end.
    const three = parsePerfAnalyzerData(text, { file: 'pa.json', inputs: INT32_2, batch: 3, batched: true });
    expect(three.map((s) => [hex(s.inputs[0]!.data), s.inputs[0]!.shape])).toEqual([
      [le32(1, 2, 3, 4, 5, 6), [3, 2]],
      [le32(5, 6, 1, 2, 3, 4), [3, 2]],
    ]);
  });

  it('reads BYTES content as strings and takes variable dims from "shape"', () => {
    const inputs = [{ name: 'T', datatype: 'BYTES' as const, dims: [-1] }];
    const [s] = parsePerfAnalyzerData(
      JSON.stringify({ data: [{ T: { content: ['hi', 'there', '!'], shape: [3] } }] }),
      {
        file: 'pa.json',
        inputs,
        batch: 1,
        batched: false,
      },
    );
    expect(s!.inputs[0]!.shape).toEqual([3]);
    expect(Buffer.from(s!.inputs[0]!.data)).toEqual(Buffer.from(encodeBytesTensor(['hi', 'there', '!'])));
  });

  it('names the entry and input for wrong sizes, unknown and missing inputs', () => {
    const read = (data: unknown) =>
      parsePerfAnalyzerData(JSON.stringify({ data }), {
        file: 'pa.json',
        inputs: INT32_2,
        batch: 1,
        batched: true,
      });
    expect(() => read([{ IN: [1, 2, 3] }])).toThrow(
      'payload file pa.json entry 0 IN: too long: expected 8 bytes, found 12 (IN INT32 [2])',
    );
    expect(() => read([{ IN: [1, 2] }, { IN: [1, 2], OTHER: [1] }])).toThrow(
      'pa.json entry 1: input "OTHER" is not an input of the model (inputs: IN)',
    );
    expect(() => read([{}])).toThrow('pa.json entry 0: missing input IN');
    expect(() => read([])).toThrow('expected {"data": [ ... ]} with at least one entry');
  });
});
