import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createOnnxBackend, makeOnnxBackendFactory } from '../src/backends/onnx.ts';
import type { Backend, ModelConfigJson, TensorData } from '../src/backends/types.ts';
import { DIGIT_PIXELS, type DigitSet, loadDigitSplit } from '../../../models/mnist/digits.ts';
import { mnistModelWithBatchDim } from '../../../models/mnist/export-onnx.ts';
import { hasOnnxRuntime } from '../../../test/onnx/has-onnx-runtime.ts';

const MODEL_DIR = fileURLToPath(new URL('../../../models/mnist', import.meta.url));
/** The accuracy models/mnist/README.md states for the shipped model on the held-out digits, less a margin. */
const MIN_ACCURACY = 0.95;

const suiteName = hasOnnxRuntime
  ? 'onnx backend with the shipped MNIST model'
  : 'onnx backend with the shipped MNIST model (SKIPPED: onnxruntime-node is not installed; run npm ci)';

function config(maxBatchSize: number, inputDims: number[], outputDims: number[]): ModelConfigJson {
  return {
    name: 'onnx-mnist-cpu',
    platform: 'onnxruntime_onnx',
    backend: 'onnxruntime',
    max_batch_size: maxBatchSize,
    input: [{ name: 'input.1', data_type: 'TYPE_FP32', dims: inputDims }],
    output: [{ name: 'output', data_type: 'TYPE_FP32', dims: outputDims }],
    instance_group: [{ count: 1, kind: 'KIND_CPU' }],
  };
}

const CATALOG_CONFIG = config(0, [1, 1, 28, 28], [1, 10]);

function digits(set: DigitSet, start: number, count: number): Uint8Array {
  const pixels = set.pixels.slice(start * DIGIT_PIXELS, (start + count) * DIGIT_PIXELS);
  return new Uint8Array(pixels.buffer);
}

function argmaxRows(output: TensorData): number[] {
  const logits = new Float32Array(output.data.slice().buffer);
  const rows: number[] = [];
  for (let r = 0; r < logits.length / 10; r++) {
    const row = Array.from(logits.subarray(r * 10, r * 10 + 10));
    rows.push(row.indexOf(Math.max(...row)));
  }
  return rows;
}

if (!hasOnnxRuntime) console.warn(suiteName);

describe.skipIf(!hasOnnxRuntime)(suiteName, () => {
  const { test } = loadDigitSplit();
  const open: Backend[] = [];
  // The shipped weights with a symbolic batch dim, for configs with max_batch_size > 0.
  const batchableDir = mkdtempSync(join(tmpdir(), 'mnist-batchable-'));
  writeFileSync(join(batchableDir, 'model.onnx'), mnistModelWithBatchDim('N'));
  const start = async (cfg: ModelConfigJson, factory = createOnnxBackend, versionDir = MODEL_DIR) => {
    const backend = await factory({
      modelName: cfg.name,
      version: '1',
      versionDir,
      config: cfg,
      instance: 0,
    });
    open.push(backend);
    return backend;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((backend) => backend.close()));
  });
  afterAll(() => rmSync(batchableDir, { recursive: true, force: true }));

  it('labels 200 held-out digits one request at a time with at least 95 % accuracy', async () => {
    const backend = await start(CATALOG_CONFIG);
    let correct = 0;
    for (let i = 0; i < 200; i++) {
      const input = {
        name: 'input.1',
        datatype: 'FP32' as const,
        shape: [1, 1, 28, 28],
        data: digits(test, i, 1),
      };
      const [output] = await backend.execute([input], ['output']);
      expect(output).toMatchObject({ name: 'output', datatype: 'FP32', shape: [1, 10] });
      expect(output?.data.byteLength).toBe(40);
      if (output && argmaxRows(output)[0] === test.labels[i]) correct++;
    }
    expect(correct / 200).toBeGreaterThanOrEqual(MIN_ACCURACY);
  });

  it('answers a batch of 100 with max_batch_size > 0 (the batchable export) exactly as 100 single requests', async () => {
    const batched = await start(config(128, [1, 28, 28], [10]), createOnnxBackend, batchableDir);
    const single = await start(CATALOG_CONFIG);
    const [output] = await batched.execute(
      [{ name: 'input.1', datatype: 'FP32', shape: [100, 1, 28, 28], data: digits(test, 200, 100) }],
      [],
    );
    expect(output?.shape).toEqual([100, 10]);
    const batchLabels = output ? argmaxRows(output) : [];
    const singleLabels: number[] = [];
    for (let i = 0; i < 100; i++) {
      const input = {
        name: 'input.1',
        datatype: 'FP32' as const,
        shape: [1, 1, 28, 28],
        data: digits(test, 200 + i, 1),
      };
      const [one] = await single.execute([input], ['output']);
      singleLabels.push(one ? (argmaxRows(one)[0] ?? -1) : -1);
    }
    expect(batchLabels).toEqual(singleLabels);
    const accuracy = batchLabels.filter((label, i) => label === test.labels[200 + i]).length / 100;
    expect(accuracy).toBeGreaterThanOrEqual(MIN_ACCURACY);
  });

  it("refuses configs the shipped model does not match, in the words of Triton's ONNX Runtime backend", async () => {
    await expect(start(config(0, [1, 28, 28], [1, 10]))).rejects.toThrow(
      "Invalid argument: model 'onnx-mnist-cpu', tensor 'input.1': the model expects 4 dimensions (shape [1,1,28,28]) but the model configuration specifies 3 dimensions (shape [1,28,28])",
    );
    await expect(start(config(8, [1, 28, 28], [10]))).rejects.toThrow(
      "Invalid argument: model 'onnx-mnist-cpu', tensor 'input.1': for the model to support batching the shape should have at least 1 dimension and the first dimension must be -1; but shape expected by the model is [1,1,28,28]",
    );
    // The batchable export takes -1 where the shipped model says 1: outputs compare exactly.
    await expect(start(CATALOG_CONFIG, createOnnxBackend, batchableDir)).rejects.toThrow(
      "Invalid argument: model 'onnx-mnist-cpu', tensor 'output': the model expects 2 dimensions (shape [-1,10]) but the model configuration specifies 2 dimensions (shape [1,10])",
    );
  });

  it('gives identical logits on the main thread, also for input bytes at an unaligned offset', async () => {
    const worker = await start(CATALOG_CONFIG, makeOnnxBackendFactory({ thread: 'worker' }));
    const main = await start(CATALOG_CONFIG, makeOnnxBackendFactory({ thread: 'main' }));
    const aligned = digits(test, 7, 1);
    const unaligned = new Uint8Array(aligned.length + 1).subarray(1);
    unaligned.set(aligned);
    const input = (data: Uint8Array) => [
      { name: 'input.1', datatype: 'FP32' as const, shape: [1, 1, 28, 28], data },
    ];
    const [fromWorker] = await worker.execute(input(aligned), ['output']);
    const [fromMain] = await main.execute(input(unaligned), ['output']);
    expect(fromMain?.data.byteLength).toBe(40);
    expect(Array.from(fromMain?.data ?? [])).toEqual(Array.from(fromWorker?.data ?? []));
  });

  it('by default gives the same logits one at a time (in-process lane) and eight at once (worker threads)', async () => {
    const backend = await start(CATALOG_CONFIG);
    const input = (i: number) => [
      { name: 'input.1', datatype: 'FP32' as const, shape: [1, 1, 28, 28], data: digits(test, i, 1) },
    ];
    const one: number[][] = [];
    for (let i = 0; i < 8; i++) {
      const [out] = await backend.execute(input(i), ['output']);
      one.push(Array.from(out!.data));
    }
    const eight = await Promise.all(
      Array.from({ length: 8 }, (_, i) => backend.execute(input(i), ['output'])),
    );
    expect(eight.map(([out]) => Array.from(out!.data))).toEqual(one);
  });

  it('rejects an output the model does not have, naming it, and keeps serving', async () => {
    const backend = await start(CATALOG_CONFIG);
    const input = [
      { name: 'input.1', datatype: 'FP32' as const, shape: [1, 1, 28, 28], data: digits(test, 0, 1) },
    ];
    await expect(backend.execute(input, ['probabilities'])).rejects.toThrow(/probabilities/);
    const [output] = await backend.execute(input, ['output']);
    expect(output?.shape).toEqual([1, 10]);
  });

  it('rejects executions after close instead of leaving them pending', async () => {
    const backend = await createOnnxBackend({
      modelName: 'onnx-mnist-cpu',
      version: '1',
      versionDir: MODEL_DIR,
      config: CATALOG_CONFIG,
      instance: 0,
    });
    await backend.close();
    const input = [
      { name: 'input.1', datatype: 'FP32' as const, shape: [1, 1, 28, 28], data: digits(test, 0, 1) },
    ];
    await expect(backend.execute(input, ['output'])).rejects.toThrow(/closed/);
  });

  it('fails to load with a message naming the missing model file', async () => {
    const ctx = {
      modelName: 'm',
      version: '3',
      versionDir: '/nonexistent/m/3',
      config: CATALOG_CONFIG,
      instance: 0,
    };
    await expect(createOnnxBackend(ctx)).rejects.toThrow('/nonexistent/m/3/model.onnx not found');
  });
});
