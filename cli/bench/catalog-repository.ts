/**
 * The catalog as a Triton model repository, for a real tritonserver started without --model-repository.
 * It is written into build/triton-repository/ (git-ignored) before each start, so it follows the catalog.
 *
 * SEAM: until `k6-triton repository <dir>` (branch triton-repository) is merged, this writes the one catalog
 * model with a real model file, MNIST, with a config real Triton loads; the others need --model-repository.
 * Once merged, exportCatalogRepository calls that branch's export function instead, for every catalog model.
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getModel } from '../../models/index.ts';

/** Where the exported repository goes: beside the runtime's build, git-ignored. */
export const CATALOG_REPOSITORY_DIR = fileURLToPath(
  new URL('../../build/triton-repository/', import.meta.url),
);

const MNIST_ONNX = fileURLToPath(new URL('../../server/models/mnist/model.onnx', import.meta.url));

/** Writes the catalog's repository (see the SEAM note) into `dir` and returns it; `modelId` must be in it. */
export async function exportCatalogRepository(
  modelId: string,
  dir: string = CATALOG_REPOSITORY_DIR,
): Promise<string> {
  const mnist = getModel('mnist');
  if (modelId === 'generic')
    throw new Error(
      'a generic model is not in the catalog; with TRITONSERVER pass --model-repository <dir> that serves it',
    );
  if (getModel(modelId).id !== mnist.id)
    throw new Error(
      `no exported Triton repository has ${modelId} yet; pass --model-repository <dir> with a repository that serves it`,
    );
  const folder = join(dir, mnist.name);
  await mkdir(join(folder, '1'), { recursive: true });
  await copyFile(MNIST_ONNX, join(folder, '1', 'model.onnx'));
  // Real Triton checks output dims against the ONNX graph: the graph's batch axis is dynamic, so [-1, 10].
  await writeFile(
    join(folder, 'config.pbtxt'),
    [
      `name: "${mnist.name}"`,
      'platform: "onnxruntime_onnx"',
      'max_batch_size: 0',
      'input [ { name: "input.1" data_type: TYPE_FP32 dims: [ 1, 1, 28, 28 ] } ]',
      'output [ { name: "output" data_type: TYPE_FP32 dims: [ -1, 10 ] } ]',
      'instance_group [ { count: 5 kind: KIND_CPU } ]',
      'dynamic_batching { max_queue_delay_microseconds: 150 }',
      '',
    ].join('\n'),
  );
  return dir;
}
