import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCatalogServer } from '../../../../measure/repository/built-in.ts';
import type { RunningServer } from '@k6-triton/server';
import { DIGIT_PIXELS, loadDigitSplit } from '../../../../models/mnist/digits.ts';
import { mnistModelWithBatchDim } from '../../../../models/mnist/export-onnx.ts';
import { hasOnnxRuntime } from '../../../../test/onnx/has-onnx-runtime.ts';

const suiteName = hasOnnxRuntime
  ? 'embedded server serving the MNIST model on the onnx backend'
  : 'embedded server serving the MNIST model (SKIPPED: onnxruntime-node is not installed; run npm ci)';

const { test: digits } = loadDigitSplit();

/** A binary-extension infer request for held-out digit i, its bytes built here rather than by the server's codecs. */
function inferBody(i: number, shape: number[]): { body: Buffer; headerLength: number } {
  const pixels = Buffer.alloc(DIGIT_PIXELS * 4);
  for (let p = 0; p < DIGIT_PIXELS; p++) pixels.writeFloatLE(digits.pixels[i * DIGIT_PIXELS + p], p * 4);
  const header = Buffer.from(
    JSON.stringify({
      id: `digit-${i}`,
      inputs: [{ name: 'input.1', datatype: 'FP32', shape, parameters: { binary_data_size: pixels.length } }],
      outputs: [{ name: 'output', parameters: { binary_data: false } }],
    }),
  );
  return { body: Buffer.concat([header, pixels]), headerLength: header.length };
}

async function classify(server: RunningServer, model: string, i: number, shape: number[]): Promise<number> {
  const { body, headerLength } = inferBody(i, shape);
  const res = await fetch(`http://127.0.0.1:${server.httpPort}/v2/models/${model}/infer`, {
    method: 'POST',
    headers: {
      'Inference-Header-Content-Length': String(headerLength),
      'Content-Type': 'application/octet-stream',
    },
    body,
  });
  const answer = (await res.json()) as { id?: string; outputs?: { data: number[] }[]; error?: string };
  expect(res.status, answer.error).toBe(200);
  expect(answer.id).toBe(`digit-${i}`);
  const logits = answer.outputs?.[0]?.data ?? [];
  expect(logits).toHaveLength(10);
  return logits.indexOf(Math.max(...logits));
}

async function stats(server: RunningServer, model: string) {
  const res = await fetch(`http://127.0.0.1:${server.httpPort}/v2/models/${model}/stats`);
  const body = (await res.json()) as { model_stats: { inference_count: number; execution_count: number }[] };
  return body.model_stats[0];
}

if (!hasOnnxRuntime) console.warn(suiteName);

describe.skipIf(!hasOnnxRuntime)(suiteName, () => {
  let server: RunningServer | undefined;
  let repoDir: string | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    if (repoDir) rmSync(repoDir, { recursive: true, force: true });
    repoDir = undefined;
  });

  it('serves onnx-mnist-cpu from the default repository with real answers over HTTP', async () => {
    server = await startCatalogServer({
      httpPort: 0,
      grpcPort: -1,
      metricsPort: -1,
      modelControlMode: 'explicit',
      loadModels: ['onnx-mnist-cpu'],
    });
    const config = await (
      await fetch(`http://127.0.0.1:${server.httpPort}/v2/models/onnx-mnist-cpu/config`)
    ).json();
    expect(config).toMatchObject({ backend: 'onnxruntime', max_batch_size: 0 });
    const labels = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        classify(server as RunningServer, 'onnx-mnist-cpu', i, [1, 1, 28, 28]),
      ),
    );
    const correct = labels.filter((label, i) => label === digits.labels[i]).length;
    expect(correct / 60).toBeGreaterThanOrEqual(0.95);
    expect(await stats(server, 'onnx-mnist-cpu')).toMatchObject({ inference_count: 60, execution_count: 60 });
  });

  it('batches concurrent requests into fewer onnxruntime executions with the same answers', async () => {
    repoDir = mkdtempSync(join(tmpdir(), 'onnx-repo-'));
    mkdirSync(join(repoDir, 'mnist-batched', '1'), { recursive: true });
    // The shipped model takes one digit; its weights re-exported with a symbolic batch dim take batches.
    writeFileSync(join(repoDir, 'mnist-batched', '1', 'model.onnx'), mnistModelWithBatchDim('N'));
    writeFileSync(
      join(repoDir, 'mnist-batched', 'config.pbtxt'),
      [
        'backend: "onnxruntime"',
        'max_batch_size: 16',
        'input [ { name: "input.1" data_type: TYPE_FP32 dims: [ 1, 28, 28 ] } ]',
        'output [ { name: "output" data_type: TYPE_FP32 dims: [ 10 ] } ]',
        'instance_group [ { count: 1 kind: KIND_CPU } ]',
        'dynamic_batching { max_queue_delay_microseconds: 50000 }',
      ].join('\n'),
    );
    server = await startCatalogServer({
      modelRepository: repoDir,
      httpPort: 0,
      grpcPort: -1,
      metricsPort: -1,
    });
    const labels = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        classify(server as RunningServer, 'mnist-batched', 100 + i, [1, 1, 28, 28]),
      ),
    );
    const correct = labels.filter((label, i) => label === digits.labels[100 + i]).length;
    expect(correct / 32).toBeGreaterThanOrEqual(0.9);
    const counts = await stats(server, 'mnist-batched');
    expect(counts?.inference_count).toBe(32);
    expect(counts?.execution_count).toBeLessThan(32);
  });
});
