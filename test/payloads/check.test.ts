/**
 * The payload checks the CLI runs before anything starts: a set against the model it is sent to (the same check
 * the scenario's loader runs in k6), and the fix named for a bad sample file ("regenerate … --force" only when
 * that command rewrites this very set).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPayloadFile } from '../../lib/payload/load.ts';
import { checkManifestFits, type PayloadManifest } from '../../lib/payload/manifest.ts';
import { payloadLoadOptions } from '../../scenarios/kit/samples.ts';
import { readSettings } from '../../scenarios/kit/settings.ts';
import { getModel } from '../../models/index.ts';
import { checkPayloadFile, regenerateCommand } from '../../payloads/check.ts';
import { DEFAULT_CACHE_DIR, ensurePayloads, NODE_READERS } from '../../payloads/index.ts';

const manifestOf = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as PayloadManifest;
const IN = [{ name: 'IN', datatype: 'INT32' as const, dims: [-1, 4] }];

function set(shape: number[], datatype = 'INT32', name = 'IN'): PayloadManifest {
  return {
    format: 'k6-triton-payloads/1',
    model: 'm',
    modelName: 'm',
    precision: datatype,
    batch: 1,
    count: 1,
    seed: 1,
    recipe: {},
    inputs: [{ name, datatype: datatype as 'INT32', shape }],
    samples: [{ files: { [name]: 'x.bin' }, sha256: {} }],
  };
}

describe('checkManifestFits: a set against the model it is sent to', () => {
  const model = { model: 'm', inputs: IN, batch: 2, batched: true };

  it('accepts variable dims and the run batch', () => {
    expect(() => checkManifestFits(set([2, 7, 4]), 's.json', model)).not.toThrow();
  });

  it('names another batch and the two fixes', () => {
    expect(() => checkManifestFits(set([8, 7, 4]), 's.json', model)).toThrow(
      's.json: inputs[0].shape is [8,7,4], the model takes IN [2,-1,4]; the set holds batch 8: pass --batch 8, or make a set with `k6-triton payloads --model m --batch 2`',
    );
  });

  it("names a wrong shape, datatype or input name with the model's inputs", () => {
    expect(() => checkManifestFits(set([2, 7, 5]), 's.json', model)).toThrow(
      'inputs[0].shape is [2,7,5], the model takes IN [2,-1,4]',
    );
    expect(() => checkManifestFits(set([2, 7, 4], 'FP32'), 's.json', model)).toThrow(
      'inputs[0].datatype is FP32, the model takes INT32 for IN; pass --precision FP32 if the model serves it',
    );
    expect(() => checkManifestFits(set([2, 7, 4], 'INT32', 'X'), 's.json', model)).toThrow(
      'inputs[0].name "X" is not an input of the model (inputs: IN)',
    );
  });

  it("a per-sample shape is checked as the sample's field", () => {
    const s = set([2, 7, 4]);
    s.samples[0]!.shapes = { IN: [2, 7] };
    expect(() => checkManifestFits(s, 's.json', model)).toThrow('s.json: samples[0].shapes.IN is [2,7]');
  });
});

describe('payload files on Node, checked as the scenario reads them', () => {
  let root: string;
  let manifest: string;
  const mnist = getModel('mnist');
  const options = payloadLoadOptions(readSettings({}, mnist), mnist);

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'k6t-check-'));
    manifest = (await ensurePayloads({ model: 'mnist', count: 2, seed: 3, outDir: join(root, 'c') }))
      .manifestPath;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('the scenario loader refuses a set made for another model (the check k6 runs)', async () => {
    const bert = getModel('bert-base');
    const bertOptions = payloadLoadOptions(readSettings({}, bert), bert);
    expect(() => loadPayloadFile(manifest, NODE_READERS, bertOptions)).toThrow(
      'inputs[0].name "input.1" is not an input of the model (inputs: input_ids, segment_ids, input_mask) (the set was made for mnist)',
    );
  });

  it('names the command that rewrites a set in its cache folder, and none for a copy', () => {
    expect(regenerateCommand(manifestOf(manifest), manifest)).toBe(
      `k6-triton payloads --model mnist --count 2 --seed 3 --out ${join(root, 'c')} --force`,
    );
    const copy = join(root, 'copy');
    cpSync(join(manifest, '..'), copy, { recursive: true });
    expect(regenerateCommand(manifestOf(manifest), join(copy, 'manifest.json'))).toBeUndefined();
  });

  it('leaves defaults out of the command (the default cache, batch and count)', async () => {
    const ref = await ensurePayloads({ model: 'mnist' });
    expect(ref.dir.startsWith(DEFAULT_CACHE_DIR)).toBe(true);
    expect(regenerateCommand(manifestOf(ref.manifestPath), ref.manifestPath)).toBe(
      'k6-triton payloads --model mnist --force',
    );
  });

  it('a short sample file: the file, the field, the sizes and the checked fix, in one line', () => {
    const file = join(manifest, '..', '000001.input.1.bin');
    truncateSync(file, 3000);
    let message = '';
    try {
      checkPayloadFile(manifest, options, '--payload');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe(
      `payload file ${file} (${manifest} samples[1].files["input.1"]): truncated: expected 3136 bytes, found 3000 (input.1 FP32 [1,1,28,28]); regenerate with \`k6-triton payloads --model mnist --count 2 --seed 3 --out ${join(root, 'c')} --force\``,
    );
    expect(() => checkPayloadFile(join(root, 'none.json'), options, '--payload')).toThrow(
      `--payload ${join(root, 'none.json')}: no such file`,
    );
  });
});
