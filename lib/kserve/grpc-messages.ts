/**
 * Pure builders and decoders for inference.GRPCInferenceService messages as k6/net/grpc
 * exchanges them: requests use proto field names with `bytes` as base64 strings;
 * responses come back in protojson form (lowerCamelCase names, int64 as strings,
 * bytes as base64). Both spellings are read, so Node's proto-loader objects work too.
 */
import type { Datatype } from '../tensor/datatypes.ts';
import { type DecodeOptions, decodeTensor, type TensorData } from '../tensor/codec.ts';
import { isDatatype } from '../tensor/datatypes.ts';
import { utf8Decode } from '../tensor/utf8.ts';
import { validateTensor } from '../tensor/validate.ts';
import { base64Decode, base64Encode } from './base64.ts';
import type { InferInput, InferRequestOptions, InferResult, OutputTensor, ParameterValue } from './types.ts';

/** Fully-qualified service name, as in grpc_service.proto. */
export const GRPC_SERVICE = 'inference.GRPCInferenceService';

/** Method path for k6's client.invoke: `inference.GRPCInferenceService/ModelInfer`. */
export function grpcMethod(method: string): string {
  return `${GRPC_SERVICE}/${method}`;
}

/** InferParameter in proto-name JSON form (one member of the oneof set). */
export type GrpcInferParameter =
  | { bool_param: boolean }
  | { int64_param: string }
  | { string_param: string }
  | { double_param: number };

/** ModelInferRequest as k6 sends it. */
export interface GrpcInferRequest {
  model_name: string;
  model_version: string;
  id?: string;
  parameters?: Record<string, GrpcInferParameter>;
  inputs: { name: string; datatype: Datatype; shape: number[] }[];
  outputs?: { name: string; parameters?: Record<string, GrpcInferParameter> }[];
  /** One base64 string per input, in input order. */
  raw_input_contents: string[];
}

/** Options of buildGrpcInferRequest. */
export interface GrpcRequestOptions extends Omit<InferRequestOptions, 'binaryOutputs'> {
  version?: string;
  /** Base64 encoder; k6 code passes k6/encoding's native one. @default the pure-JS encoder */
  encodeBase64?: (bytes: Uint8Array) => string;
}

/** Options of the response decoders. */
export interface GrpcDecodeOptions extends DecodeOptions {
  /** Base64 decoder; k6 code passes k6/encoding's native one. @default the pure-JS decoder */
  decodeBase64?: (text: string) => Uint8Array;
}

/** Builds a ModelInferRequest once per payload: inputs validated, bytes base64-encoded here, not per request. */
export function buildGrpcInferRequest(
  model: string,
  inputs: readonly InferInput[],
  options: GrpcRequestOptions = {},
): GrpcInferRequest {
  if (inputs.length === 0) throw new Error('an infer request needs at least one input');
  const encode = options.encodeBase64 ?? base64Encode;
  for (const input of inputs) validateTensor(input);
  const request: GrpcInferRequest = {
    model_name: model,
    model_version: options.version ?? '',
    inputs: inputs.map((input) => ({ name: input.name, datatype: input.datatype, shape: [...input.shape] })),
    raw_input_contents: inputs.map((input) => encode(input.data)),
  };
  if (options.id !== undefined) request.id = options.id;
  if (options.parameters && Object.keys(options.parameters).length > 0) {
    request.parameters = toInferParameters(options.parameters);
  }
  if (options.outputs && options.outputs.length > 0) {
    request.outputs = options.outputs.map((output) => {
      if (typeof output === 'string') return { name: output };
      return output.classification === undefined
        ? { name: output.name }
        : {
            name: output.name,
            parameters: { classification: { int64_param: String(output.classification) } },
          };
    });
  }
  return request;
}

/** InferParameter for a value: booleans, integers as int64, other numbers as double, strings. */
export function toInferParameter(value: ParameterValue): GrpcInferParameter {
  if (typeof value === 'boolean') return { bool_param: value };
  if (typeof value === 'number') {
    return Number.isInteger(value) ? { int64_param: String(value) } : { double_param: value };
  }
  return { string_param: value };
}

/** A parameter map in InferParameter form. */
export function toInferParameters(
  parameters: Record<string, ParameterValue>,
): Record<string, GrpcInferParameter> {
  const out: Record<string, GrpcInferParameter> = {};
  for (const [key, value] of Object.entries(parameters)) out[key] = toInferParameter(value);
  return out;
}

/** Plain values of an InferParameter map in either JSON spelling; int64 values become numbers. */
export function fromInferParameters(parameters: unknown): Record<string, ParameterValue> {
  const out: Record<string, ParameterValue> = {};
  if (!parameters || typeof parameters !== 'object') return out;
  for (const [key, raw] of Object.entries(parameters as Record<string, Record<string, unknown>>)) {
    const value = pick(raw, 'bool_param') ?? pick(raw, 'int64_param') ?? pick(raw, 'uint64_param');
    const text = pick(raw, 'string_param');
    const double = pick(raw, 'double_param');
    if (typeof value === 'boolean') out[key] = value;
    else if (value !== undefined) out[key] = Number(value);
    else if (text !== undefined) out[key] = String(text);
    else if (double !== undefined) out[key] = Number(double);
  }
  return out;
}

/** Decodes a ModelInferResponse message (k6 or proto-loader form) into typed outputs. */
export function decodeGrpcInferResponse(message: unknown, options: GrpcDecodeOptions = {}): InferResult {
  const object = (message ?? {}) as Record<string, unknown>;
  const decode = options.decodeBase64 ?? base64Decode;
  const raw = (pick(object, 'raw_output_contents') as unknown[] | undefined) ?? [];
  const outputsJson = (pick(object, 'outputs') as Record<string, unknown>[] | undefined) ?? [];
  const outputs = outputsJson.map((output, index): OutputTensor => {
    const name = String(output['name'] ?? '');
    const datatype = String(output['datatype'] ?? '');
    if (!isDatatype(datatype))
      throw new Error(`invalid response: output "${name}" has unknown datatype "${datatype}"`);
    const shape = ((output['shape'] as unknown[] | undefined) ?? []).map(Number);
    const tensor: OutputTensor = { name, datatype, shape, data: [] };
    const parameters = pick(output, 'parameters');
    if (parameters && Object.keys(parameters as object).length > 0)
      tensor.parameters = fromInferParameters(parameters);
    if (raw.length > 0) {
      if (index >= raw.length) {
        throw new Error(
          `invalid response: ${outputsJson.length} outputs but ${raw.length} raw_output_contents`,
        );
      }
      tensor.bytes = toBytes(raw[index], decode);
      tensor.data = decodeTensor(datatype, tensor.bytes, shape, options);
    } else {
      tensor.data = typedContents(
        datatype,
        pick(output, 'contents') as Record<string, unknown> | undefined,
        decode,
      );
    }
    return tensor;
  });
  const result: InferResult = {
    modelName: String(pick(object, 'model_name') ?? ''),
    modelVersion: String(pick(object, 'model_version') ?? ''),
    outputs,
  };
  const id = pick(object, 'id');
  if (id !== undefined && id !== '') result.id = String(id);
  const parameters = pick(object, 'parameters');
  if (parameters && Object.keys(parameters as object).length > 0)
    result.parameters = fromInferParameters(parameters);
  return result;
}

/** A ModelStreamInferResponse: an error message, or a response to decode on demand. */
export interface StreamInferMessage {
  /** Non-empty when the server reports a failed request on the stream. */
  error?: string;
  /** The embedded ModelInferResponse message, undecoded. */
  response?: Record<string, unknown>;
  /** Echo of the request id, if one was set. */
  id?: string;
}

/** Splits a ModelStreamInferResponse into its error and its undecoded infer response. */
export function readStreamInferResponse(message: unknown): StreamInferMessage {
  const object = (message ?? {}) as Record<string, unknown>;
  const out: StreamInferMessage = {};
  const error = pick(object, 'error_message');
  if (typeof error === 'string' && error !== '') out.error = error;
  const response = pick(object, 'infer_response') as Record<string, unknown> | null | undefined;
  if (response) {
    out.response = response;
    const id = response['id'];
    if (id !== undefined && id !== '') out.id = String(id);
  }
  return out;
}

/** Reads a field by proto name or its lowerCamelCase JSON name. */
export function pick(object: Record<string, unknown> | null | undefined, protoName: string): unknown {
  if (!object) return undefined;
  if (object[protoName] !== undefined) return object[protoName];
  return object[protoName.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase())];
}

function toBytes(value: unknown, decode: (text: string) => Uint8Array): Uint8Array {
  if (typeof value === 'string') return decode(value);
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  throw new Error('invalid response: raw_output_contents entry is neither base64 text nor bytes');
}

/** Outputs sent in InferTensorContents (typed repeated fields) instead of raw bytes. */
function typedContents(
  datatype: Datatype,
  contents: Record<string, unknown> | undefined,
  decode: (text: string) => Uint8Array,
): TensorData {
  if (!contents) return [];
  const list = (protoName: string) => (pick(contents, protoName) as unknown[] | undefined) ?? [];
  switch (datatype) {
    case 'BOOL':
      return list('bool_contents').map(Boolean);
    case 'INT8':
    case 'INT16':
    case 'INT32':
      return list('int_contents').map(Number);
    case 'UINT8':
    case 'UINT16':
    case 'UINT32':
      return list('uint_contents').map(Number);
    case 'INT64':
      return list('int64_contents').map(Number);
    case 'UINT64':
      return list('uint64_contents').map(Number);
    case 'FP32':
      return list('fp32_contents').map(Number);
    case 'FP64':
      return list('fp64_contents').map(Number);
    case 'BYTES':
      return list('bytes_contents').map((element) => utf8Decode(toBytes(element, decode)));
    default:
      // FP16 and BF16 have no typed field: they only travel as raw contents.
      throw new Error(`invalid response: ${datatype} output without raw_output_contents`);
  }
}
