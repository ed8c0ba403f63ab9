/**
 * The model repository the inference differential tests run both servers on: the repo's MNIST model without a
 * batch dimension (onnx-mnist-cpu, as the catalog serves it) and with one (mnist-batch, dynamic batching), and
 * "simple", Triton's two-input example as an ONNX graph (INT32 INPUT0, INPUT1 [16] → OUTPUT0 = sum, OUTPUT1 =
 * difference), for requests that name several inputs and outputs.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const MNIST_DIR = fileURLToPath(new URL('../../server/models/mnist/', import.meta.url));
const INT32 = 6; // TensorProto.DataType.INT32

/** Every model's config.pbtxt, by name. */
export const CONFIGS: Readonly<Record<string, string>> = {
  'onnx-mnist-cpu': `name: "onnx-mnist-cpu"
platform: "onnxruntime_onnx"
max_batch_size: 0
input [ { name: "input.1" data_type: TYPE_FP32 dims: [ 1, 1, 28, 28 ] } ]
output [ { name: "output" data_type: TYPE_FP32 dims: [ -1, 10 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
`,
  'mnist-batch': `name: "mnist-batch"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "input.1" data_type: TYPE_FP32 dims: [ 1, 28, 28 ] } ]
output [ { name: "output" data_type: TYPE_FP32 dims: [ 10 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
dynamic_batching { }
`,
  simple: `name: "simple"
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
`,
};

/** The "simple" graph: Add and Sub of two INT32 [N,16] inputs, as ONNX bytes. */
function simpleOnnx(): Uint8Array {
  const { root } = protobuf.parse(readFileSync(path.join(MNIST_DIR, 'onnx.proto'), 'utf8'), {
    keepCase: true,
  });
  const ModelProto = root.lookupType('onnx.ModelProto');
  const value = (name: string) => ({
    name,
    type: { tensor_type: { elem_type: INT32, shape: { dim: [{ dim_param: 'N' }, { dim_value: 16 }] } } },
  });
  const model = {
    ir_version: 8,
    producer_name: 'k6-triton test/triton/infer-repository.ts',
    opset_import: [{ domain: '', version: 13 }],
    graph: {
      name: 'simple',
      node: [
        { op_type: 'Add', input: ['INPUT0', 'INPUT1'], output: ['OUTPUT0'], name: 'add' },
        { op_type: 'Sub', input: ['INPUT0', 'INPUT1'], output: ['OUTPUT1'], name: 'sub' },
      ],
      input: [value('INPUT0'), value('INPUT1')],
      output: [value('OUTPUT0'), value('OUTPUT1')],
    },
  };
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}

/** Writes the repository into a new temporary folder; returns it. */
export function writeInferRepository(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6t-diff-infer-'));
  for (const [name, config] of Object.entries(CONFIGS)) {
    mkdirSync(path.join(dir, name, '1'), { recursive: true });
    writeFileSync(path.join(dir, name, 'config.pbtxt'), config);
    const onnx = path.join(dir, name, '1', 'model.onnx');
    if (name === 'simple') writeFileSync(onnx, simpleOnnx());
    else copyFileSync(path.join(MNIST_DIR, 'model.onnx'), onnx);
  }
  return dir;
}

/** Removes a repository written by writeInferRepository. */
export function removeInferRepository(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
