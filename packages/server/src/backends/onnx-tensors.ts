/**
 * Conversions between the server's TensorData (Triton datatypes, raw little-endian bytes) and onnxruntime's tensor
 * values (ort type name + typed array), and the shape rules that map a Triton config's view of a tensor onto the
 * model's own input and output shapes.
 */
import type { Datatype } from '@k6-triton/lib/tensor/datatypes.ts';
import { decodeBytesTensorAsStrings, encodeBytesTensor } from '@k6-triton/lib/tensor/bytes.ts';
import type { ModelConfigJson, TensorData } from './types.ts';

/** An onnxruntime tensor in transferable form: the fields of `new ort.Tensor(type, data, dims)`. */
export interface OrtValue {
  type: string;
  data: ArrayBufferView | string[];
  dims: number[];
}

/** A model input's or output's name, onnxruntime type and shape as the ONNX file declares it (strings are symbolic dims). */
export interface OrtValueMetadata {
  name: string;
  type?: string;
  shape?: (number | string)[];
}

type TypedArrayConstructor = {
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): ArrayBufferView;
  BYTES_PER_ELEMENT: number;
};

/** Triton datatype -> onnxruntime tensor type and the typed array onnxruntime-node expects for it. */
const ORT_TYPES: Partial<Record<Datatype, { type: string; array: TypedArrayConstructor }>> = {
  BOOL: { type: 'bool', array: Uint8Array },
  UINT8: { type: 'uint8', array: Uint8Array },
  UINT16: { type: 'uint16', array: Uint16Array },
  UINT32: { type: 'uint32', array: Uint32Array },
  UINT64: { type: 'uint64', array: BigUint64Array },
  INT8: { type: 'int8', array: Int8Array },
  INT16: { type: 'int16', array: Int16Array },
  INT32: { type: 'int32', array: Int32Array },
  INT64: { type: 'int64', array: BigInt64Array },
  FP16: { type: 'float16', array: Uint16Array },
  FP32: { type: 'float32', array: Float32Array },
  FP64: { type: 'float64', array: Float64Array },
};

const FROM_ORT_TYPE: Record<string, Datatype> = Object.fromEntries([
  ...Object.entries(ORT_TYPES).map(([datatype, ort]) => [ort?.type, datatype]),
  ['string', 'BYTES'],
]);

/**
 * Wraps a tensor's bytes as an onnxruntime value. Zero-copy (a typed-array view over the same memory) when the bytes
 * are aligned to the element size, unless `copy` is set (values sent to a worker thread need their own buffer).
 */
export function toOrtValue(tensor: TensorData, dims: number[], copy: boolean): OrtValue {
  if (tensor.datatype === 'BYTES') {
    return { type: 'string', data: decodeBytesTensorAsStrings(tensor.data), dims };
  }
  const ort = ORT_TYPES[tensor.datatype];
  if (!ort) {
    throw new Error(`input ${tensor.name}: datatype ${tensor.datatype} is not supported by the onnx backend`);
  }
  const size = ort.array.BYTES_PER_ELEMENT;
  if (tensor.data.byteLength % size !== 0) {
    throw new Error(
      `input ${tensor.name}: ${tensor.data.byteLength} bytes is not a whole number of ${tensor.datatype}`,
    );
  }
  // A view needs an aligned offset; Node's pooled Buffers often start at odd offsets, so copy those. The copy is
  // `new Uint8Array(view)`, not `.slice()`: on a Node Buffer, slice() returns a view, not a copy.
  const bytes = copy || tensor.data.byteOffset % size !== 0 ? new Uint8Array(tensor.data) : tensor.data;
  return {
    type: ort.type,
    data: new ort.array(bytes.buffer, bytes.byteOffset, bytes.byteLength / size),
    dims,
  };
}

/** Turns an onnxruntime output into a TensorData (a byte view over the output's memory, no copy). */
export function fromOrtValue(name: string, value: OrtValue, shape: number[]): TensorData {
  const datatype = FROM_ORT_TYPE[value.type];
  if (!datatype) throw new Error(`output ${name}: onnxruntime type ${value.type} has no Triton datatype`);
  if (Array.isArray(value.data)) return { name, datatype, shape, data: encodeBytesTensor(value.data) };
  const data = value.data as ArrayBufferView;
  return { name, datatype, shape, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

/**
 * The shape to feed the model for an input: the config's `reshape` if it has one (behind the batch dim when
 * max_batch_size > 0), else the request's shape, with a leading 1 added or dropped when the model's rank differs by
 * one (a max_batch_size 0 config of [1,28,28] feeding a model declared [N,1,28,28], and the reverse).
 */
export function modelInputDims(
  tensor: TensorData,
  config: ModelConfigJson,
  declared: OrtValueMetadata | undefined,
): number[] {
  const reshape = config.input.find((input) => input.name === tensor.name)?.reshape?.shape;
  if (reshape) return config.max_batch_size > 0 ? [tensor.shape[0], ...reshape] : [...reshape];
  const rank = declared?.shape?.length;
  if (rank === tensor.shape.length + 1) return [1, ...tensor.shape];
  if (rank === tensor.shape.length - 1 && tensor.shape[0] === 1) return tensor.shape.slice(1);
  return tensor.shape;
}

/**
 * The shape to answer for an output: the config's dims (behind the batch dim when max_batch_size > 0) when they are
 * fully known and hold the same number of elements as the model's output, else the model's own shape.
 */
export function configOutputShape(
  name: string,
  dims: number[],
  config: ModelConfigJson,
  batch: number,
): number[] {
  const configDims = config.output.find((output) => output.name === name)?.dims;
  if (!configDims) return dims;
  const expected = config.max_batch_size > 0 ? [batch, ...configDims] : configDims;
  const count = (shape: number[]) => shape.reduce((a, b) => a * b, 1);
  return expected.every((d) => d >= 0) && count(expected) === count(dims) ? expected : dims;
}
