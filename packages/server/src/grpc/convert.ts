/**
 * gRPC messages (proto-loader objects, keepCase) ↔ the server's records, read in the order and words of
 * Triton's gRPC frontend (SetInferenceRequestMetadata, InferGRPCToInput, InferAllocatorPayload): parameters,
 * inputs (a name given twice is refused), each input's data (typed contents of the input's own datatype, or
 * its raw_input_contents entry; extra entries are ignored), then the outputs' parameters. raw_input_contents
 * become input data without copying; outputs go out as raw_output_contents, as Triton sends them.
 */
import { isDatatype } from '@k6-triton/lib/tensor/datatypes.ts';
import type { Datatype } from '@k6-triton/lib/tensor/datatypes.ts';
import { Errors, ServerError } from '../errors.ts';
import {
  type InferRequest,
  type InferResult,
  INVALID_DATATYPE,
  type RequestedOutput,
  type RequestInput,
} from '../infer/types.ts';

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

/** ModelInferRequest as proto-loader decodes it (proto3 defaults absent: `defaults: false`). */
export interface InferRequestMsg {
  model_name?: string;
  model_version?: string;
  id?: string;
  parameters?: Record<string, ParameterMsg>;
  inputs?: {
    name?: string;
    datatype?: string;
    shape?: number[];
    parameters?: Record<string, ParameterMsg>;
    contents?: ContentsMsg;
  }[];
  outputs?: { name?: string; parameters?: Record<string, ParameterMsg> }[];
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

/** The typed contents fields in the order Triton reads them, with the datatype each one holds. */
const CONTENTS: readonly [keyof ContentsMsg, (input: Datatype | typeof INVALID_DATATYPE) => Datatype][] = [
  ['bool_contents', () => 'BOOL'],
  ['int_contents', (d) => (d === 'INT8' || d === 'INT16' ? d : 'INT32')],
  ['int64_contents', () => 'INT64'],
  ['uint_contents', (d) => (d === 'UINT8' || d === 'UINT16' ? d : 'UINT32')],
  ['uint64_contents', () => 'UINT64'],
  ['fp32_contents', () => 'FP32'],
  ['fp64_contents', () => 'FP64'],
  ['bytes_contents', () => 'BYTES'],
];

/** Keys starting with "triton_" a client may set. */
const TRITON_RESERVED_REQUEST_PARAMS = ['triton_enable_empty_final_response'];

const invalid = (message: string) => new ServerError('INVALID_ARG', message);

/** ModelInferRequest → InferRequest; the model must already be known to exist (Triton looks it up first). */
export function fromInferRequestMsg(msg: InferRequestMsg): InferRequest {
  const model = msg.model_name ?? '';
  const id = msg.id ?? '';
  const parameters = requestParameters(msg.parameters);
  const inputs: RequestInput[] = [];
  for (const t of msg.inputs ?? []) {
    const name = t.name ?? '';
    if (inputs.some((i) => i.name === name)) throw Errors.duplicateInput(id, name);
    const datatype = isDatatype(t.datatype) ? t.datatype : INVALID_DATATYPE;
    inputs.push({ name, datatype, shape: (t.shape ?? []).map(Number), data: new Uint8Array(0) });
  }
  const raw = msg.raw_input_contents ?? [];
  let nextRaw = 0;
  (msg.inputs ?? []).forEach((t, i) => {
    const input = inputs[i]!;
    const shm = sharedMemoryRegion(input.name, t.parameters);
    if (shm !== undefined) {
      if (t.contents) {
        throw invalid(
          `unexpected 'content' provided when using shared memory for input tensor '${input.name}' for model '${model}'`,
        );
      }
      throw Errors.unknownSharedMemory(shm);
    }
    if (t.contents && raw.length > 0) {
      throw invalid(
        `contents field must not be specified when using raw_input_contents for '${input.name}' for model '${model}'`,
      );
    }
    if (t.contents) input.data = typedContents(input, t.contents, model);
    else if (nextRaw < raw.length) input.data = raw[nextRaw++]!;
    else
      throw invalid(`unable to find data for input tensor '${input.name}' for model '${model}' in request.`);
  });
  const outputs: RequestedOutput[] = [];
  for (const o of msg.outputs ?? []) {
    const name = o.name ?? '';
    const shm = sharedMemoryRegion(name, o.parameters);
    const classCount = classification(o.parameters);
    if (shm !== undefined && classCount > 0) {
      throw invalid("output can't set both 'shared_memory_region' and 'classification'");
    }
    if (shm !== undefined) throw Errors.unknownSharedMemory(shm);
    if (!outputs.some((r) => r.name === name)) outputs.push({ name, classCount });
  }
  return {
    modelName: model,
    modelVersion: msg.model_version ?? '',
    id,
    inputs,
    outputs: outputs.length > 0 ? outputs : undefined,
    parameters,
  };
}

/** The request's parameters, checked as Triton's SetInferenceRequestMetadata checks them. */
function requestParameters(map: Record<string, ParameterMsg> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, p] of Object.entries(map ?? {})) {
    const kind = p.parameter_choice;
    const value = parameterValue(p);
    const wrongType = (expected: string) =>
      invalid(`invalid value type for '${key}' parameter, expected ${expected}.`);
    switch (key) {
      case 'sequence_id':
        if (kind !== 'int64_param' && kind !== 'string_param') throw wrongType('int64_param or string_param');
        break;
      case 'sequence_start':
      case 'sequence_end':
        if (kind !== 'bool_param') throw wrongType('bool_param');
        break;
      case 'priority':
        if (kind === 'int64_param' && (value as number) < 0) {
          throw invalid("invalid value for 'priority', expected value >= 0.");
        }
        if (kind !== 'int64_param' && kind !== 'uint64_param') throw wrongType('int64_param or uint64_param');
        break;
      case 'timeout':
        if (kind !== 'int64_param') throw wrongType('int64_param');
        break;
      default:
        if (key.startsWith('triton_')) {
          if (!TRITON_RESERVED_REQUEST_PARAMS.includes(key)) {
            throw invalid(
              "parameter keys starting with 'triton_' are reserved for Triton usage. Only the following keys " +
                `starting with 'triton_' are allowed: ${TRITON_RESERVED_REQUEST_PARAMS.join(' ')}`,
            );
          }
          if (kind !== 'bool_param') throw wrongType('bool_param');
        } else if (!['int64_param', 'bool_param', 'string_param', 'double_param'].includes(kind ?? '')) {
          throw wrongType('int64_param, bool_param, or string_param');
        }
    }
    out[key] = value;
  }
  return out;
}

/** A tensor's shared memory parameters, as Triton checks them; the region's name when one is given (this server
 * keeps no regions: the caller refuses it as unknown). */
function sharedMemoryRegion(
  tensor: string,
  map: Record<string, ParameterMsg> | undefined,
): string | undefined {
  if (!map) return undefined;
  const region = map.shared_memory_region;
  if (region && region.parameter_choice !== 'string_param') {
    throw invalid(
      `invalid value type for 'shared_memory_region' parameter for tensor '${tensor}', expected string_param.`,
    );
  }
  for (const key of ['shared_memory_offset', 'shared_memory_byte_size']) {
    const p = map[key];
    if (!p) continue;
    if (!region) {
      throw invalid(
        `'${key}' can not be specified without 'shared_memory_region' parameter for tensor '${tensor}'`,
      );
    }
    if (p.parameter_choice !== 'int64_param') {
      throw invalid(
        `invalid value type for '${key}' parameter for tensor '${tensor}', expected int64_param.`,
      );
    }
  }
  if (!region) return undefined;
  if (!map.shared_memory_byte_size) {
    throw invalid(
      `'shared_memory_byte_size' must be specified along with 'shared_memory_region' parameter for tensor '${tensor}'`,
    );
  }
  return String(parameterValue(region));
}

/** An output's class count (0: not asked). */
function classification(map: Record<string, ParameterMsg> | undefined): number {
  const p = map?.classification;
  if (!p) return 0;
  if (p.parameter_choice !== 'int64_param') {
    throw invalid("invalid value type for 'classification' parameter, expected int64_param");
  }
  const count = Number(parameterValue(p));
  if (count <= 0) throw invalid("invalid value for 'classification' parameter, expected >= 0");
  return count;
}

/** Typed contents → bytes: each field present must hold the input's datatype, and only one may be present. */
function typedContents(input: RequestInput, contents: ContentsMsg, model: string): Uint8Array {
  let data: Uint8Array = new Uint8Array(0);
  for (const [field, holds] of CONTENTS) {
    const values = contents[field];
    if (!values || values.length === 0) continue;
    const type = holds(input.datatype);
    if (data.length > 0) {
      throw invalid(
        `unexpected explicit tensor data for input tensor '${input.name}' for model '${model}', binary data was already supplied.`,
      );
    }
    if (type !== input.datatype) {
      throw invalid(
        `unexpected explicit tensor data for input tensor '${input.name}' for model '${model}' of type '${type}', expected datatype '${input.datatype}'`,
      );
    }
    data = contentsBytes(type, values);
  }
  return data;
}

/** Little-endian bytes of typed contents (INT8/INT16/UINT8/UINT16 take each 32-bit value's low bytes). */
function contentsBytes(type: Datatype, values: readonly unknown[]): Uint8Array {
  if (type === 'BYTES') {
    const parts = (values as Buffer[]).flatMap((b) => {
      const length = Buffer.alloc(4);
      length.writeUInt32LE(b.length);
      return [length, b];
    });
    return Buffer.concat(parts);
  }
  const size =
    type === 'BOOL' || type.endsWith('8') ? 1 : type.endsWith('16') ? 2 : type.endsWith('64') ? 8 : 4;
  const out = new Uint8Array(values.length * size);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => {
    const at = i * size;
    if (type === 'BOOL') view.setUint8(at, v ? 1 : 0);
    else if (type === 'FP32') view.setFloat32(at, v as number, true);
    else if (type === 'FP64') view.setFloat64(at, v as number, true);
    else if (type === 'INT64') view.setBigInt64(at, BigInt(v as number), true);
    else if (type === 'UINT64') view.setBigUint64(at, BigInt(v as number), true);
    else if (size === 1) view.setUint8(at, Number(v) & 0xff);
    else if (size === 2) view.setUint16(at, Number(v) & 0xffff, true);
    else view.setUint32(at, Number(v) >>> 0, true);
  });
  return out;
}

/** InferResult → ModelInferResponse (raw_output_contents share the outputs' memory; an empty id is left out). */
export function toInferResponseMsg(result: InferResult): Record<string, unknown> {
  const msg: Record<string, unknown> = {
    model_name: result.modelName,
    model_version: result.modelVersion,
    outputs: result.outputs.map((o) => ({ name: o.name, datatype: o.datatype, shape: o.shape })),
    raw_output_contents: result.outputs.map((o) =>
      Buffer.from(o.data.buffer, o.data.byteOffset, o.data.length),
    ),
  };
  if (result.id) msg.id = result.id;
  return msg;
}
