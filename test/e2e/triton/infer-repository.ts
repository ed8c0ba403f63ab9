/**
 * The model repository the inference differential tests run both servers on: every catalog model as
 * `k6-triton repository` writes it (writeCatalogRepository), plus MNIST with a batch dim behind dynamic
 * batching (mnist-batch) and "simple", Triton's two-input example as an ONNX graph (INT32 INPUT0, INPUT1 [16] →
 * OUTPUT0 = sum, OUTPUT1 = difference), whose outputs are easy to check and to classify.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeCatalogRepository } from '../../../measure/repository/export.ts';
import { mnistModelWithBatchDim } from '../../../models/mnist/export-onnx.ts';
import { encodeOnnxModel, type OnnxValueSpec } from '../../../models/onnx/onnx-writer.ts';

const MNIST_BATCH_CONFIG = `name: "mnist-batch"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "input.1" data_type: TYPE_FP32 dims: [ 1, 28, 28 ] } ]
output [ { name: "output" data_type: TYPE_FP32 dims: [ 10 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
dynamic_batching { }
`;

const SIMPLE_CONFIG = `name: "simple"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [
  { name: "INPUT0" data_type: TYPE_INT32 dims: [ 16 ] },
  { name: "INPUT1" data_type: TYPE_INT32 dims: [ 16 ] }
]
output [
  { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 16 ] },
  { name: "OUTPUT1" data_type: TYPE_INT32 dims: [ 16 ] }
]
instance_group [ { count: 1 kind: KIND_CPU } ]
`;

/** The "simple" graph: Add and Sub of two INT32 [N,16] inputs. */
function simpleOnnx(): Uint8Array {
  const tensor = (name: string): OnnxValueSpec => ({ name, datatype: 'INT32', dims: ['N', 16] });
  return encodeOnnxModel({
    graphName: 'simple',
    producer: 'k6-triton test/triton/infer-repository.ts',
    inputs: [tensor('INPUT0'), tensor('INPUT1')],
    outputs: [tensor('OUTPUT0'), tensor('OUTPUT1')],
    nodes: [
      { op: 'Add', inputs: ['INPUT0', 'INPUT1'], outputs: ['OUTPUT0'] },
      { op: 'Sub', inputs: ['INPUT0', 'INPUT1'], outputs: ['OUTPUT1'] },
    ],
  });
}

function writeModel(dir: string, name: string, config: string, onnx: Uint8Array): void {
  mkdirSync(path.join(dir, name, '1'), { recursive: true });
  writeFileSync(path.join(dir, name, 'config.pbtxt'), config);
  writeFileSync(path.join(dir, name, '1', 'model.onnx'), onnx);
}

/** Writes the repository into a new temporary folder; returns it. */
export async function writeInferRepository(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6t-diff-infer-'));
  await writeCatalogRepository(dir);
  writeModel(dir, 'mnist-batch', MNIST_BATCH_CONFIG, mnistModelWithBatchDim('N'));
  writeModel(dir, 'simple', SIMPLE_CONFIG, simpleOnnx());
  return dir;
}

/** Removes a repository written by writeInferRepository. */
export function removeInferRepository(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
