/**
 * Stand-in ONNX models for catalog entries whose real model is not shipped (ResNeXt, DLRM, BERT, ResNet50): exactly
 * the entry's input and output names, datatypes and dims (a symbolic leading batch dim when max_batch_size > 0), so
 * Triton's ONNX Runtime backend loads them with the catalog's config, and cheap deterministic compute so a CPU
 * serves them fast. Per item: each input is cast to float and averaged to one feature, the features go through
 * Sin (any magnitude, categorical ids included, lands in [-1, 1]), then each output is a matmul with a small constant
 * plus a bias, finished by the entry's kind: softmax for image classifiers (class probabilities), a sigmoid for DLRM
 * (click probabilities), raw values otherwise (BERT's start and end logits).
 */
import type { TensorSpec } from '../../lib/kserve/types.ts';
import { inputsFor } from '../../models/index.ts';
import type { ModelEntry } from '../../models/types.ts';
import {
  encodeOnnxModel,
  type OnnxDim,
  type OnnxInitializerSpec,
  type OnnxNodeSpec,
  onnxElemType,
} from '../../models/onnx/onnx-writer.ts';

/** The symbolic batch dim of the stand-ins' inputs and outputs. */
export const BATCH_DIM = 'batch';

/** How an output's values are finished, by the entry's payload kind. */
function finish(entry: ModelEntry): 'Softmax' | 'Sigmoid' | undefined {
  switch (entry.payload.kind) {
    case 'image':
    case 'mnist':
      return 'Softmax';
    case 'dlrm':
      return 'Sigmoid';
    default:
      return undefined;
  }
}

/** A deterministic weight in [-1, 1] for row i, column j of output `o` (no randomness: same bytes every export). */
function weight(o: number, i: number, j: number): number {
  return Math.sin(1 + o * 7.1 + i * 3.7 + j * 0.61);
}

/** Encodes the stand-in model of a catalog entry at a PRECISION (its inputs' datatypes; default the catalog's). */
export function standInModel(entry: ModelEntry, precision?: string): Uint8Array {
  const batched = entry.maxBatchSize > 0;
  const inputs = inputsFor(entry, precision);
  const leading = (dims: readonly number[]): OnnxDim[] => (batched ? [BATCH_DIM, ...dims] : [...dims]);
  const nodes: OnnxNodeSpec[] = [];
  const initializers: OnnxInitializerSpec[] = [];

  const features = inputs.map((input, i) => {
    const rank = input.dims.length + (batched ? 1 : 0);
    let value = input.name;
    if (input.datatype !== 'FP32') {
      nodes.push({
        op: 'Cast',
        inputs: [value],
        outputs: [`${input.name}.float`],
        attributes: { to: onnxElemType('FP32') },
      });
      value = `${input.name}.float`;
    }
    const axes = Array.from({ length: rank }, (_, a) => a).slice(batched ? 1 : 0);
    nodes.push(
      { op: 'ReduceMean', inputs: [value], outputs: [`mean.${i}`], attributes: { axes, keepdims: 1 } },
      // [batch, 1] (or [1, 1] without a batch dim), whatever the input's rank.
      {
        op: 'Flatten',
        inputs: [`mean.${i}`],
        outputs: [`feature.${i}`],
        attributes: { axis: batched ? 1 : 0 },
      },
    );
    return `feature.${i}`;
  });
  if (features.length > 1)
    nodes.push({ op: 'Concat', inputs: features, outputs: ['features'], attributes: { axis: 1 } });
  nodes.push({ op: 'Sin', inputs: [features.length > 1 ? 'features' : features[0]!], outputs: ['squashed'] });

  const activation = finish(entry);
  entry.outputs.forEach((output, o) => {
    const count = elementsOf(entry, output);
    const w = `${output.name}.weight`;
    const b = `${output.name}.bias`;
    initializers.push(
      {
        name: w,
        datatype: 'FP32',
        dims: [inputs.length, count],
        values: Array.from({ length: inputs.length * count }, (_, k) =>
          weight(o, Math.floor(k / count), k % count),
        ),
      },
      {
        name: b,
        datatype: 'FP32',
        dims: [count],
        values: Array.from({ length: count }, (_, j) => weight(o, -1, j)),
      },
    );
    const step = (op: string, from: string, extra: Partial<OnnxNodeSpec> = {}) => {
      const to = `${output.name}.${op.toLowerCase()}`;
      nodes.push({
        op,
        inputs: [from, ...(extra.inputs ?? [])],
        outputs: [to],
        attributes: extra.attributes,
      });
      return to;
    };
    let value = step('MatMul', 'squashed', { inputs: [w] });
    value = step('Add', value, { inputs: [b] });
    if (activation)
      value = step(activation, value, activation === 'Softmax' ? { attributes: { axis: 1 } } : {});
    // [batch, count] -> [batch, ...dims] (or [1, count] -> dims without a batch dim).
    if (output.dims.length !== 1 || !batched) {
      const shape = `${output.name}.shape`;
      initializers.push({
        name: shape,
        datatype: 'INT64',
        dims: [output.dims.length + (batched ? 1 : 0)],
        values: (batched ? [-1, ...output.dims] : output.dims).map(BigInt),
      });
      value = step('Reshape', value, { inputs: [shape] });
    }
    if (output.datatype !== 'FP32') {
      value = step('Cast', value, { attributes: { to: onnxElemType(output.datatype) } });
    }
    nodes.push({ op: 'Identity', inputs: [value], outputs: [output.name] });
  });

  return encodeOnnxModel({
    graphName: entry.name,
    producer: 'k6-triton measure/repository/stand-in.ts',
    docString: `Stand-in for catalog model ${entry.id}: its tensors, cheap deterministic compute, not its answers`,
    metadata: { catalog_id: entry.id, precision: precision?.toUpperCase() ?? 'catalog' },
    inputs: inputs.map((t) => ({ name: t.name, datatype: t.datatype, dims: leading(t.dims) })),
    outputs: entry.outputs.map((t) => ({ name: t.name, datatype: t.datatype, dims: leading(t.dims) })),
    nodes,
    initializers,
  });
}

function elementsOf(entry: ModelEntry, output: TensorSpec): number {
  if (output.dims.some((d) => d < 1)) {
    throw new Error(
      `catalog model ${entry.id}: output ${output.name} has a variable dim ${JSON.stringify(output.dims)}; a stand-in needs fixed output dims`,
    );
  }
  return output.dims.reduce((a, b) => a * b, 1);
}
