/** Label files: read from the model's folder, refused when they lead outside it; labels join classification results. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeTensor } from '@k6-triton/lib/tensor/codec.ts';
import { decodeBytesTensorAsStrings } from '@k6-triton/lib/tensor/bytes.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelConfigJson } from '../src/config/types.ts';
import { classify } from '../src/infer/classification.ts';
import { loadOutputLabels } from '../src/infer/labels.ts';

const config = (labelFile: string): ModelConfigJson => ({
  name: 'm',
  platform: '',
  backend: 'simulated',
  max_batch_size: 0,
  input: [],
  output: [{ name: 'out', data_type: 'TYPE_FP32', dims: [4], label_filename: labelFile }],
  instance_group: [],
});

describe('label files', () => {
  let root = '';
  let modelDir = '';
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'k6t-labels-'));
    modelDir = join(root, 'm');
    mkdirSync(join(modelDir, 'sub'), { recursive: true });
    writeFileSync(join(modelDir, 'labels.txt'), 'a\nb\n\nd\n');
    writeFileSync(join(modelDir, 'sub', 'more.txt'), 'x');
    writeFileSync(join(root, 'secret.txt'), 'secret\n');
    symlinkSync(join(root, 'secret.txt'), join(modelDir, 'link.txt'));
  });
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('reads one label per line from the model folder and its subfolders', async () => {
    expect((await loadOutputLabels(config('labels.txt'), modelDir, '1')).get('out')).toEqual([
      'a',
      'b',
      '',
      'd',
    ]);
    expect((await loadOutputLabels(config('sub/more.txt'), modelDir, '1')).get('out')).toEqual(['x']);
  });

  it('refuses a file outside the model folder, by path or by symbolic link', async () => {
    for (const file of ['../secret.txt', join(root, 'secret.txt'), 'link.txt', '.']) {
      await expect(loadOutputLabels(config(file), modelDir, '1')).rejects.toThrow(
        `label_filename '${file}' of output 'out' is outside the folder of model 'm'`,
      );
    }
  });

  it('fails a missing file in Triton words', async () => {
    await expect(loadOutputLabels(config('nope.txt'), modelDir, '1')).rejects.toThrow(
      `Internal: failed to open text file for read ${join(modelDir, 'nope.txt')}: No such file or directory`,
    );
  });

  it('adds a label where the index has a non-empty one', () => {
    const out = {
      name: 'out',
      datatype: 'FP32' as const,
      shape: [5],
      data: encodeTensor('FP32', [0.5, 4, 3, 2, 1]),
    };
    const top = classify(out, 5, false, ['a', 'b', '', 'd']);
    expect(decodeBytesTensorAsStrings(top.data)).toEqual([
      '4.000000:1:b',
      '3.000000:2',
      '2.000000:3:d',
      '1.000000:4',
      '0.500000:0:a',
    ]);
  });
});
