/**
 * ONNX models as bytes, with protobufjs and our own subset of ONNX's schema (onnx.proto beside this file): a
 * model spec (typed graph inputs and outputs, nodes, initializers) in, a ModelProto out; and the reverse for the
 * parts a model's re-export needs (initializers, metadata). Used by the MNIST export and the catalog's stand-ins.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import type { Datatype } from '../../lib/tensor/datatypes.ts';
import { decodeTensor, encodeTensor, type TensorData, type TensorValue } from '../../lib/tensor/codec.ts';

/** A dim of a graph input or output: a size, or a name for a symbolic dim (a batch dim "N"). */
export type OnnxDim = number | string;

/** A typed graph input or output. */
export interface OnnxValueSpec {
  name: string;
  datatype: Datatype;
  dims: readonly OnnxDim[];
}

/** A constant tensor stored in the graph. */
export interface OnnxInitializerSpec {
  name: string;
  datatype: Datatype;
  dims: readonly number[];
  values: ArrayLike<TensorValue>;
}

/** One operator; attributes are integers or lists of integers (all the ops used here need). */
export interface OnnxNodeSpec {
  op: string;
  inputs: readonly string[];
  outputs: readonly string[];
  attributes?: Readonly<Record<string, number | readonly number[]>>;
}

/** A whole single-graph model. */
export interface OnnxModelSpec {
  graphName: string;
  inputs: readonly OnnxValueSpec[];
  outputs: readonly OnnxValueSpec[];
  nodes: readonly OnnxNodeSpec[];
  initializers?: readonly OnnxInitializerSpec[];
  /** Who wrote it, e.g. the script's path. */
  producer: string;
  docString?: string;
  /** Free-form key/value pairs stored as metadata_props. */
  metadata?: Readonly<Record<string, string>>;
  /** @default 13 */
  opset?: number;
}

/** An initializer read back from a model. */
export interface DecodedInitializer {
  datatype: Datatype;
  dims: number[];
  values: TensorData;
}

/** The parts of a model that a re-export needs. */
export interface DecodedModel {
  inputs: OnnxValueSpec[];
  outputs: OnnxValueSpec[];
  initializers: Map<string, DecodedInitializer>;
  metadata: Record<string, string>;
}

const ONNX_PROTO_PATH = fileURLToPath(new URL('./onnx.proto', import.meta.url));
/** IR of ONNX 1.10+, read by every onnxruntime since 1.10. */
const IR_VERSION = 8;
const DEFAULT_OPSET = 13;
const ATTR_INT = 2;
const ATTR_INTS = 7;

/** TensorProto.DataType per Triton datatype. */
const ELEM_TYPE: Readonly<Record<Datatype, number>> = {
  FP32: 1,
  UINT8: 2,
  INT8: 3,
  UINT16: 4,
  INT16: 5,
  INT32: 6,
  INT64: 7,
  BYTES: 8,
  BOOL: 9,
  FP16: 10,
  FP64: 11,
  UINT32: 12,
  UINT64: 13,
  BF16: 16,
};
const DATATYPE_BY_ELEM_TYPE = new Map(
  Object.entries(ELEM_TYPE).map(([datatype, elem]) => [elem, datatype as Datatype]),
);

/** ONNX's TensorProto.DataType number for a Triton datatype (Cast's `to` attribute takes it). */
export function onnxElemType(datatype: Datatype): number {
  return ELEM_TYPE[datatype];
}

let modelProto: protobuf.Type | undefined;

function modelType(): protobuf.Type {
  // keepCase: the field names stay ONNX's snake_case instead of protobufjs's default camelCase.
  modelProto ??= protobuf
    .parse(readFileSync(ONNX_PROTO_PATH, 'utf8'), { keepCase: true })
    .root.lookupType('onnx.ModelProto');
  return modelProto;
}

/** Encodes a model spec as ONNX bytes (a ModelProto), ready to write to model.onnx. */
export function encodeOnnxModel(spec: OnnxModelSpec): Uint8Array {
  const ModelProto = modelType();
  const model = {
    ir_version: IR_VERSION,
    producer_name: spec.producer,
    producer_version: '1',
    model_version: 1,
    doc_string: spec.docString ?? '',
    opset_import: [{ domain: '', version: spec.opset ?? DEFAULT_OPSET }],
    metadata_props: Object.entries(spec.metadata ?? {}).map(([key, value]) => ({ key, value })),
    graph: {
      name: spec.graphName,
      node: spec.nodes.map((node, i) => ({
        op_type: node.op,
        input: [...node.inputs],
        output: [...node.outputs],
        name: `${node.op.toLowerCase()}_${i}`,
        attribute: Object.entries(node.attributes ?? {}).map(([name, value]) =>
          typeof value === 'number'
            ? { name, type: ATTR_INT, i: value }
            : { name, type: ATTR_INTS, ints: [...value] },
        ),
      })),
      initializer: (spec.initializers ?? []).map(initializer),
      input: spec.inputs.map(valueInfo),
      output: spec.outputs.map(valueInfo),
    },
  };
  const problem = ModelProto.verify(model);
  if (problem) throw new Error(`invalid ONNX model ${spec.graphName}: ${problem}`);
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}

/** Reads a model's graph inputs, outputs, initializers and metadata (the fields onnx.proto here knows). */
export function decodeOnnxModel(bytes: Uint8Array): DecodedModel {
  const ModelProto = modelType();
  const model = ModelProto.toObject(ModelProto.decode(bytes), { longs: Number, bytes: Array }) as RawModel;
  const initializers = new Map<string, DecodedInitializer>();
  for (const t of model.graph?.initializer ?? []) {
    const datatype = datatypeOf(t.data_type, `initializer ${t.name}`);
    const dims = (t.dims ?? []).map(Number);
    const raw = Uint8Array.from(t.raw_data ?? []);
    initializers.set(t.name, { datatype, dims, values: decodeTensor(datatype, raw, dims) });
  }
  const values = (list: RawValueInfo[] | undefined) =>
    (list ?? []).map((v) => ({
      name: v.name,
      datatype: datatypeOf(v.type?.tensor_type?.elem_type, v.name),
      dims: (v.type?.tensor_type?.shape?.dim ?? []).map((d) => d.dim_param ?? Number(d.dim_value ?? -1)),
    }));
  return {
    inputs: values(model.graph?.input),
    outputs: values(model.graph?.output),
    initializers,
    metadata: Object.fromEntries((model.metadata_props ?? []).map((p) => [p.key, p.value])),
  };
}

interface RawValueInfo {
  name: string;
  type?: {
    tensor_type?: { elem_type?: number; shape?: { dim?: { dim_value?: number; dim_param?: string }[] } };
  };
}

interface RawModel {
  metadata_props?: { key: string; value: string }[];
  graph?: {
    input?: RawValueInfo[];
    output?: RawValueInfo[];
    initializer?: { name: string; dims?: number[]; data_type: number; raw_data?: number[] }[];
  };
}

function datatypeOf(elemType: number | undefined, what: string): Datatype {
  const datatype = elemType === undefined ? undefined : DATATYPE_BY_ELEM_TYPE.get(elemType);
  if (!datatype) throw new Error(`ONNX ${what}: element type ${elemType} is not one this reader knows`);
  return datatype;
}

function initializer(spec: OnnxInitializerSpec) {
  const expected = spec.dims.reduce((a, b) => a * b, 1);
  if (spec.values.length !== expected) {
    throw new Error(`initializer ${spec.name}: expected ${expected} values, got ${spec.values.length}`);
  }
  // raw_data is little-endian whatever the host's byte order; encodeTensor writes it so.
  return {
    name: spec.name,
    dims: [...spec.dims],
    data_type: ELEM_TYPE[spec.datatype],
    raw_data: encodeTensor(spec.datatype, spec.values),
  };
}

function valueInfo(spec: OnnxValueSpec) {
  return {
    name: spec.name,
    type: {
      tensor_type: {
        elem_type: ELEM_TYPE[spec.datatype],
        shape: {
          dim: spec.dims.map((d) => (typeof d === 'number' ? { dim_value: d } : { dim_param: d })),
        },
      },
    },
  };
}
