/**
 * gRPC messages (proto-loader objects, keepCase) ↔ the server's records. raw_input_contents become input data
 * without copying; typed `contents` are encoded with the project's tensor codec; outputs go out as
 * raw_output_contents, as Triton sends them.
 */
import { encodeTensor, type TensorValue } from '../../lib/tensor/codec.ts';
import { isDatatype } from '../../lib/tensor/datatypes.ts';
import type { Datatype } from '../../models/types.ts';
import { Errors } from '../errors.ts';
import type { InferRequest, InferResult, TensorData } from '../infer/types.ts';

/** InferParameter / ModelRepositoryParameter with proto-loader's `oneofs: true` virtual field. */
export interface ParameterMsg {
  parameter_choice?: string;
  [key: string]: unknown;
}

interface ContentsMsg {
  bool_contents?: boolean[];
  int_contents?: number[];
  int64_contents?: number[];
  uint_contents?: number[];
  uint64_contents?: number[];
  fp32_contents?: number[];
  fp64_contents?: number[];
  bytes_contents?: Buffer[];
}

/** ModelInferRequest as proto-loader decodes it. */
export interface InferRequestMsg {
  model_name: string;
  model_version: string;
  id: string;
  parameters?: Record<string, ParameterMsg>;
  inputs?: {
    name: string;
    datatype: string;
    shape: number[];
    parameters?: Record<string, ParameterMsg>;
    contents?: ContentsMsg;
  }[];
  outputs?: { name: string; parameters?: Record<string, ParameterMsg> }[];
  raw_input_contents?: Buffer[];
}

/** A oneof parameter's value. */
export function parameterValue(p: ParameterMsg): unknown {
  return p.parameter_choice ? p[p.parameter_choice] : undefined;
}

/** Plain parameters from a parameter map. */
export function parameterMap(map: Record<string, ParameterMsg> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(map ?? {})) out[k] = parameterValue(v);
  return out;
}

const CONTENTS_FIELD: Readonly<Record<Datatype, keyof ContentsMsg | undefined>> = {
  BOOL: 'bool_contents',
  INT8: 'int_contents',
  INT16: 'int_contents',
  INT32: 'int_contents',
  INT64: 'int64_contents',
  UINT8: 'uint_contents',
  UINT16: 'uint_contents',
  UINT32: 'uint_contents',
  UINT64: 'uint64_contents',
  FP32: 'fp32_contents',
  FP64: 'fp64_contents',
  BYTES: 'bytes_contents',
  FP16: undefined,
  BF16: undefined,
};

/** ModelInferRequest → InferRequest. */
export function fromInferRequestMsg(msg: InferRequestMsg): InferRequest {
  const inputs = msg.inputs ?? [];
  const raw = msg.raw_input_contents ?? [];
  if (raw.length > 0 && raw.length !== inputs.length) {
    throw Errors.badRequest(
      `expected ${inputs.length} inputs in raw_input_contents (one per input) but got ${raw.length}; raw and typed contents cannot be mixed`,
    );
  }
  const tensors: TensorData[] = inputs.map((t, i) => {
    if (!isDatatype(t.datatype)) {
      throw Errors.badRequest(`input '${t.name}' has an invalid datatype "${t.datatype}"`);
    }
    const shape = (t.shape ?? []).map(Number);
    if (raw.length > 0) {
      if (hasContents(t.contents)) {
        throw Errors.badRequest(
          `contents field must not be specified when using raw_input_contents for '${t.name}'`,
        );
      }
      return { name: t.name, datatype: t.datatype, shape, data: raw[i]! };
    }
    const field = CONTENTS_FIELD[t.datatype];
    if (!field) {
      throw Errors.badRequest(
        `input '${t.name}' of datatype ${t.datatype} must be sent in raw_input_contents`,
      );
    }
    const values = (t.contents?.[field] ?? []) as ArrayLike<TensorValue>;
    try {
      return { name: t.name, datatype: t.datatype, shape, data: encodeTensor(t.datatype, values) };
    } catch (err) {
      throw Errors.badRequest(`unable to read contents of input '${t.name}': ${(err as Error).message}`);
    }
  });
  const outputs = msg.outputs?.length
    ? msg.outputs.map((o) => {
        const p = parameterMap(o.parameters);
        return {
          name: o.name,
          classCount: typeof p.classification === 'number' ? p.classification : undefined,
        };
      })
    : undefined;
  return {
    modelName: msg.model_name,
    modelVersion: msg.model_version ?? '',
    id: msg.id ?? '',
    inputs: tensors,
    outputs,
    parameters: parameterMap(msg.parameters),
  };
}

/** InferResult → ModelInferResponse (raw_output_contents share the outputs' memory). */
export function toInferResponseMsg(result: InferResult): Record<string, unknown> {
  return {
    model_name: result.modelName,
    model_version: result.modelVersion,
    id: result.id,
    outputs: result.outputs.map((o) => ({ name: o.name, datatype: o.datatype, shape: o.shape })),
    raw_output_contents: result.outputs.map((o) =>
      Buffer.from(o.data.buffer, o.data.byteOffset, o.data.length),
    ),
  };
}

function hasContents(c: ContentsMsg | undefined): boolean {
  if (!c) return false;
  return Object.values(c).some((v) => Array.isArray(v) && v.length > 0);
}
