import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { getModel } from '../../models/index.ts';
import { configFromCatalog } from '../../measure/repository/catalog-config.ts';
import { parseConfigJson, parsePbtxt } from '@k6-triton/server';
import { decodeOnnxModel } from '../../models/onnx/onnx-writer.ts';
import { runCli } from './bench/run-cli.ts';

describe('k6-triton repository', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'k6t-export-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('writes the models asked for: the catalog config as pbtxt and a model with its tensors, at a precision', async () => {
    const dir = tempDir();
    const run = await runCli([
      'repository',
      dir,
      '--model',
      'dlrm',
      '--model',
      'mnist',
      '--precision',
      'dlrm=int32',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('wrote 2 models to');
    expect(readdirSync(dir).sort()).toEqual(['dlrm', 'onnx-mnist-cpu']);
    const dlrm = getModel('dlrm');
    const config = parsePbtxt(readFileSync(join(dir, 'dlrm', 'config.pbtxt'), 'utf8'));
    expect(config).toEqual(parseConfigJson(configFromCatalog(dlrm, 'onnxruntime', 'INT32')));
    const model = decodeOnnxModel(readFileSync(join(dir, 'dlrm', '1', 'model.onnx')));
    expect(model.inputs).toEqual([
      { name: 'input__0', datatype: 'FP32', dims: ['batch', 13] },
      { name: 'input__1', datatype: 'INT32', dims: ['batch', 26] },
    ]);
    // MNIST has max_batch_size 0: Triton cannot batch it, so its config carries no dynamic_batching.
    const mnistConfig = readFileSync(join(dir, 'onnx-mnist-cpu', 'config.pbtxt'), 'utf8');
    expect(mnistConfig).toContain('max_batch_size: 0');
    expect(mnistConfig).not.toContain('dynamic_batching');
    expect(readFileSync(join(dir, 'dlrm', 'config.pbtxt'), 'utf8')).toContain('dynamic_batching');
    const mnist = readFileSync(join(dir, 'onnx-mnist-cpu', '1', 'model.onnx'));
    expect(mnist.equals(readFileSync(join(import.meta.dirname, '../../models/mnist/model.onnx')))).toBe(true);
  });

  it('refuses an unknown model, an unknown precision and a folder it cannot write, in one line each', async () => {
    const dir = tempDir();
    const unknown = await runCli(['repository', dir, '--model', 'resnet9000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe(
      'k6-triton: unknown catalog model "resnet9000"; known models: bert-base, bert-large, dlrm, mnist, resnet50, resnext101-32x4d, sequence-identity',
    );
    const precision = await runCli(['repository', dir, '--precision', 'bert-base=FP16']);
    expect(precision.code).toBe(1);
    expect(precision.stderr.trim()).toBe(
      'k6-triton: invalid PRECISION "FP16" for model bert-base; expected one of: INT32',
    );
    expect(readdirSync(dir)).toEqual([]);
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const unwritable = await runCli(['repository', join(file, 'repo'), '--model', 'mnist']);
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr.trim()).toBe(
      `k6-triton: cannot write the model repository into "${join(file, 'repo')}" (ENOTDIR); pass a folder you can write to`,
    );
  });
});
