import { readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PayloadManifest } from '../../lib/payload/manifest.ts';
import { decodeTensor } from '../../lib/tensor/index.ts';
import { getModel } from '../../models/index.ts';
import { liveModelEntry } from '../../models/live.ts';
import { ensurePayloads, readPayloads } from '../../payloads/index.ts';

const root = mkdtempSync(join(tmpdir(), 'k6t-sets-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const manifestOf = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as PayloadManifest;
const bytesOf = (samples: ReturnType<typeof readPayloads>['samples']) =>
  samples.map((s) =>
    s.inputs.map((t) => ({ name: t.name, shape: t.shape, bytes: Buffer.from(t.data).toString('hex') })),
  );

describe('payload sets', () => {
  it('writes a manifest with shapes incl. batch, sha256 per file and raw .bin files, then reuses it', async () => {
    const out = join(root, 'a');
    const first = await ensurePayloads({
      model: 'dlrm',
      batch: 8,
      count: 3,
      seed: 5,
      zipf: 1.05,
      outDir: out,
    });
    expect(first.cached).toBe(false);
    const m = manifestOf(first.manifestPath);
    expect(m).toMatchObject({
      format: 'k6-triton-payloads/1',
      model: 'dlrm',
      modelName: 'dlrm',
      precision: 'FP32',
      batch: 8,
      count: 3,
      seed: 5,
    });
    expect(m.inputs).toEqual([
      { name: 'input__0', datatype: 'FP32', shape: [8, 13] },
      { name: 'input__1', datatype: 'INT64', shape: [8, 26] },
    ]);
    const bin = readFileSync(join(first.dir, m.samples[0]!.files['input__1']!));
    expect(bin.byteLength).toBe(8 * 26 * 8);
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(bin).digest('hex')).toBe(m.samples[0]!.sha256['input__1']);
    const again = await ensurePayloads({
      model: 'dlrm',
      batch: 8,
      count: 3,
      seed: 5,
      zipf: 1.05,
      outDir: out,
    });
    expect(again).toEqual({ ...first, cached: true });
  });

  it('gives identical bytes for the same seed and different bytes for another', async () => {
    const a = await ensurePayloads({ model: 'bert-base', count: 4, seed: 1, outDir: join(root, 'b1') });
    const b = await ensurePayloads({ model: 'bert-base', count: 4, seed: 1, outDir: join(root, 'b2') });
    const c = await ensurePayloads({ model: 'bert-base', count: 4, seed: 2, outDir: join(root, 'b2') });
    expect(manifestOf(a.manifestPath).samples).toEqual(manifestOf(b.manifestPath).samples);
    expect(manifestOf(c.manifestPath).samples).not.toEqual(manifestOf(a.manifestPath).samples);
    expect(c.dir).not.toBe(b.dir);
  });

  it('round-trips through perf_analyzer JSON: write then read yields identical bytes', async () => {
    for (const options of [
      { model: 'dlrm', batch: 4, precision: 'FP16' },
      { model: 'bert-large', batch: 2 },
      { model: 'mnist' },
    ]) {
      const ref = await ensurePayloads({ ...options, count: 3, seed: 7, outDir: join(root, 'pa') });
      const entry = getModel(options.model);
      const set = readPayloads(ref.manifestPath);
      const pa = join(ref.dir, manifestOf(ref.manifestPath).perfAnalyzer!);
      const doc = JSON.parse(readFileSync(pa, 'utf8')) as {
        data: Record<string, { b64: string; shape: number[] }>[];
      };
      // perf_analyzer entries are batch-1 rows.
      expect(doc.data).toHaveLength(3 * (entry.maxBatchSize > 0 ? (options.batch ?? 1) : 1));
      expect(doc.data[0]![entry.inputs[0]!.name]!.shape).toEqual(entry.inputs[0]!.dims);
      const back = readPayloads(pa, {
        inputs: set.manifest!.inputs.map((t, i) => ({ ...entry.inputs[i]!, datatype: t.datatype })),
        batch: options.batch ?? 1,
        batched: entry.maxBatchSize > 0,
      });
      expect(back.kind).toBe('perf_analyzer');
      expect(bytesOf(back.samples)).toEqual(bytesOf(set.samples));
    }
  });

  it('imports a perf_analyzer file (content form) as a set', async () => {
    const file = join(root, 'input.json');
    const row = (v: number) => ({ 'input.1': { content: Array(784).fill(v), shape: [1, 1, 28, 28] } });
    writeFileSync(file, JSON.stringify({ data: [row(0), row(0.5)] }));
    const ref = await ensurePayloads({ model: 'mnist', inputData: file, outDir: join(root, 'imp') });
    const set = readPayloads(ref.manifestPath);
    expect(set.samples).toHaveLength(2);
    const values = decodeTensor('FP32', new Uint8Array(set.samples[1]!.inputs[0]!.data)) as Float32Array;
    expect([...values].every((v) => v === 0.5)).toBe(true);
  });

  it('rejects imported DLRM ids outside their table, naming table, id and cardinality', async () => {
    const file = join(root, 'dlrm.json');
    const ids = Array(26).fill(0);
    ids[4] = 305; // table 4 holds 305 rows
    writeFileSync(file, JSON.stringify({ data: [{ input__0: Array(13).fill(0), input__1: ids }] }));
    await expect(
      ensurePayloads({ model: 'dlrm', batch: 1, inputData: file, outDir: join(root, 'bad') }),
    ).rejects.toThrow("id 305 (row 0) is outside table 4's cardinality 305");
  });

  it('names the file, expected and actual bytes when a payload file has the wrong size', async () => {
    const ref = await ensurePayloads({ model: 'mnist', count: 2, seed: 9, outDir: join(root, 'trunc') });
    const file = join(ref.dir, manifestOf(ref.manifestPath).samples[1]!.files['input.1']!);
    truncateSync(file, 100);
    expect(() => readPayloads(ref.manifestPath)).toThrow(
      `payload file ${file} (${ref.manifestPath} samples[1].files["input.1"]): truncated: expected 3136 bytes, found 100`,
    );
  });

  it('lists the known models for an unknown one', async () => {
    await expect(ensurePayloads({ model: 'resnet18', outDir: join(root, 'x') })).rejects.toThrow(
      /unknown model "resnet18"; known models: bert-base, bert-large, dlrm, mnist, resnet50, resnext101-32x4d/,
    );
  });

  it('makes random payloads for a live model, variable dims from --shape, BYTES included', async () => {
    const entry = liveModelEntry(
      {
        name: 'custom',
        inputs: [
          { name: 'TEXT', datatype: 'BYTES', shape: [-1, 2] },
          { name: 'IMG', datatype: 'UINT8', shape: [-1, -1, 3] },
        ],
        outputs: [{ name: 'OUT', datatype: 'FP32', shape: [-1, 4] }],
      },
      {
        max_batch_size: 4,
        input: [
          { name: 'TEXT', data_type: 'TYPE_STRING', dims: [2] },
          { name: 'IMG', data_type: 'TYPE_UINT8', dims: [-1, 3] },
        ],
      },
    );
    await expect(ensurePayloads({ model: entry, count: 2, outDir: join(root, 'live') })).rejects.toThrow(
      'input IMG has variable dims [-1,3]; give its shape with --shape IMG:N,3',
    );
    const ref = await ensurePayloads({
      model: entry,
      batch: 2,
      count: 2,
      shapes: ['IMG:5,3'],
      outDir: join(root, 'live'),
    });
    const set = readPayloads(ref.manifestPath);
    expect(set.samples[0]!.inputs.map((t) => [t.name, t.datatype, t.shape])).toEqual([
      ['TEXT', 'BYTES', [2, 2]],
      ['IMG', 'UINT8', [2, 5, 3]],
    ]);
    expect(set.samples[0]!.inputs[1]!.data.byteLength).toBe(30);
  });
});
