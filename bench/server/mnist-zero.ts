/**
 * The MNIST-shaped model the server benchmarks drive (bench/server/throughput.ts, bench/soak/): its
 * repository and its binary-extension request, stated once.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The model's name on the server. */
export const MNIST_ZERO = 'mnist-zero';

/** Writes a one-model repository whose simulated compute takes `compute_ms`; returns its folder. */
export function mnistZeroRepository(compute_ms: number, prefix = 'k6t-bench-'): string {
  const repo = mkdtempSync(path.join(os.tmpdir(), prefix));
  mkdirSync(path.join(repo, MNIST_ZERO, '1'), { recursive: true });
  writeFileSync(
    path.join(repo, MNIST_ZERO, 'config.pbtxt'),
    `
name: "${MNIST_ZERO}"
backend: "simulated"
max_batch_size: 0
input [ { name: "input.1" data_type: TYPE_FP32 dims: [ 1, 1, 28, 28 ] } ]
output [ { name: "output" data_type: TYPE_FP32 dims: [ 1, 10 ] } ]
instance_group [ { count: 4 kind: KIND_CPU } ]
parameters { key: "compute_ms" value: { string_value: "${compute_ms}" } }
`,
  );
  return repo;
}

/** The infer request: the input tensor, and in the binary tensor extension its JSON header and whole body. */
export function mnistZeroRequest(): { image: Buffer; header: Buffer; body: Buffer } {
  const image = Buffer.alloc(784 * 4);
  for (let i = 0; i < 784; i++) image.writeFloatLE((i % 255) / 255, i * 4);
  const header = Buffer.from(
    JSON.stringify({
      inputs: [
        {
          name: 'input.1',
          shape: [1, 1, 28, 28],
          datatype: 'FP32',
          parameters: { binary_data_size: image.length },
        },
      ],
      outputs: [{ name: 'output', parameters: { binary_data: true } }],
    }),
  );
  return { image, header, body: Buffer.concat([header, image]) };
}
