import { describe, expect, it } from 'vitest';
import { computeMs } from '../src/backends/profiles.ts';
import { simulatedFactory } from '../src/backends/simulated.ts';
import { hashBatch, hashItem } from '../src/backends/simulated-outputs.ts';
import { completeConfig } from '../src/config/normalize.ts';
import { parsePbtxt } from '../src/config/parse.ts';
import { CATALOG } from '../../../models/catalog.ts';
import { catalogLatencyProfiles } from '../../../measure/repository/catalog-config.ts';

const PROFILES = catalogLatencyProfiles();

describe('latency profiles', () => {
  it('reproduce the published reference points', () => {
    expect(computeMs(PROFILES.dlrm!, 1)).toBeCloseTo(2.31);
    expect(computeMs(PROFILES.dlrm!, 4096)).toBeCloseTo(4.58);
    // 8 concurrent requests of 4096 fit one batch per 18.45 ms with a 2 ms queue delay (seed 001).
    expect(computeMs(PROFILES.dlrm!, 32768) + 2).toBeLessThan((8 * 4096 * 1000) / 1776030);
    expect(computeMs(PROFILES['bert-base']!, 1)).toBeCloseTo(8.38);
    expect(computeMs(PROFILES['bert-base']!, 8)).toBeCloseTo(15.46);
    expect(computeMs(PROFILES.mnist!, 1)).toBeCloseTo(1.4);
    expect(computeMs(PROFILES.resnet50!, 16)).toBeCloseTo(33.7);
    expect(computeMs(PROFILES['resnext101-32x4d-fp16']!, 64)).toBeCloseTo(73.39);
  });

  it('interpolate between points and extend the last slope past them', () => {
    expect(computeMs(PROFILES['bert-base']!, 4)).toBeCloseTo(8.38 + ((15.46 - 8.38) * 3) / 7);
    expect(computeMs(PROFILES['bert-base']!, 15)).toBeCloseTo(15.46 + ((15.46 - 8.38) * 7) / 7);
  });

  it('exist for every catalog model', () => {
    for (const id of Object.keys(CATALOG)) expect(PROFILES[id], id).toBeDefined();
  });
});

describe('simulated backend', () => {
  const config = completeConfig(
    parsePbtxt(`
      name: "m" backend: "simulated" max_batch_size: 4
      input [ { name: "A" data_type: TYPE_FP32 dims: [ 2 ] } ]
      output [ { name: "F" data_type: TYPE_FP16 dims: [ 3 ] }, { name: "I" data_type: TYPE_INT64 dims: [ -1 ] },
               { name: "S" data_type: TYPE_STRING dims: [ 1 ] } ]
      parameters { key: "compute_ms" value: { string_value: "0" } }
    `),
    'm',
  );
  const ctx = { modelName: 'm', version: '1', versionDir: '', config, instance: 0 };

  it('answers every requested output with the right shape, datatype and byte size, deterministically', async () => {
    const backend = await simulatedFactory()(ctx);
    const input = { name: 'A', datatype: 'FP32' as const, shape: [2, 2], data: new Uint8Array(16).fill(7) };
    const out = await backend.execute([input], ['F', 'I', 'S']);
    expect(out.map((o) => [o.name, o.datatype, o.shape, o.data.length])).toEqual([
      ['F', 'FP16', [2, 3], 12],
      ['I', 'INT64', [2, 2], 32],
      ['S', 'BYTES', [2, 1], out[2]!.data.length],
    ]);
    const again = await backend.execute([input], ['F']);
    expect(Buffer.from(again[0]!.data).equals(Buffer.from(out[0]!.data))).toBe(true);
    // Identical items give identical rows.
    expect(Buffer.from(out[0]!.data.subarray(0, 6)).equals(Buffer.from(out[0]!.data.subarray(6, 12)))).toBe(
      true,
    );
  });

  it('fails every batch with error_rate 1', async () => {
    const failing = { ...ctx, config: { ...config, parameters: { error_rate: { string_value: '1' } } } };
    const backend = await simulatedFactory()(failing);
    const input = { name: 'A', datatype: 'FP32' as const, shape: [1, 2], data: new Uint8Array(8) };
    await expect(backend.execute([input], ['F'])).rejects.toThrow(/simulated backend failure/);
  });

  it('rejects a parameter that is not a number', async () => {
    const bad = { ...ctx, config: { ...config, parameters: { jitter: { string_value: 'lots' } } } };
    await expect(simulatedFactory()(bad)).rejects.toThrow(/invalid parameter jitter="lots" for model 'm'/);
  });
});

describe('batch hashing', () => {
  it('equals per-item hashing for aligned, misaligned and odd-sized items', () => {
    // Buffers, as request tensors are: Buffer#slice does not copy, so misaligned views must be handled.
    const make = (n: number, offset: number) =>
      Buffer.from(new Uint8Array(n + offset).map((_, i) => (i * 37) & 255)).subarray(offset);
    for (const [perItem, offset] of [
      [52, 0],
      [52, 1],
      [5, 0],
      [5, 3],
    ] as const) {
      const batch = 7;
      const a = make(perItem * batch, offset);
      const b = make(8 * batch, 0);
      const hashes = hashBatch(
        [
          { data: a, whole: false },
          { data: b, whole: false },
        ],
        batch,
      );
      for (let i = 0; i < batch; i++) {
        const expected = hashItem([
          a.subarray(i * perItem, (i + 1) * perItem),
          b.subarray(i * 8, (i + 1) * 8),
        ]);
        expect(hashes[i], `item ${i} of ${perItem}-byte items at offset ${offset}`).toBe(expected);
      }
    }
  });
});
