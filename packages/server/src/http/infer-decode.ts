/**
 * HTTP infer body → InferRequest, in the order Triton's HTTP frontend reads it (EVBufferToInput): the JSON,
 * its id, its parameters, each input in turn (content fields, name, datatype, shape, then its data, binary or
 * JSON), leftover binary data, then the requested outputs. A raw binary body (Inference-Header-Content-Length
 * 0, or an empty body) is the data of the model's only input. Binary inputs are views into the body.
 */
import { DATATYPE_BYTES, fromConfigDatatype, isDatatype } from '@k6-triton/lib/tensor/datatypes.ts';
import type { ModelConfigJson } from '../config/types.ts';
import { dimsToString, Errors } from '../errors.ts';
import {
  INVALID_DATATYPE,
  type InferRequest,
  type RequestedOutput,
  type RequestInput,
} from '../infer/types.ts';
import { isJsonNumber, isUint, jsonElementCount, jsonTensorBytes, NOT_A } from './json-tensor.ts';
import { parseRequestJson, WholeDouble } from './request-json.ts';

/** What the encoder needs to know about the client's output wishes. */
export interface HttpOutputPrefs {
  /** Request-wide binary_data_output. */
  binaryDefault: boolean;
  /** Per-output binary_data, by name. */
  binaryByName: Map<string, boolean>;
}

/** The model an HTTP infer request is for. */
export interface InferTarget {
  name: string;
  version: string;
  config: ModelConfigJson;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const has = (o: Json, key: string) => Object.hasOwn(o, key);
const missing = (key: string) => `attempt to access non-existing object member '${key}'`;

/**
 * The length of the JSON part of a body, as Triton reads Inference-Header-Content-Length (with C's atoi: text
 * that is not a number is 0, a raw body); absent, the whole body is JSON.
 */
export function inferHeaderLength(header: string | undefined, body_bytes: number): number {
  if (header === undefined) return body_bytes;
  const digits = /^[\t\n\v\f\r ]*([+-]?\d+)/.exec(header);
  const length = digits ? Number.parseInt(digits[1]!, 10) : 0;
  if (length < 0 || length > body_bytes) {
    throw Errors.badRequest(`inference header size should be in range (0, ${body_bytes}), got: ${header}`);
  }
  return length;
}

/** Decodes an HTTP infer body whose JSON part is `headerLength` bytes (0: a raw binary body). */
export function decodeHttpInfer(
  body: Buffer,
  headerLength: number,
  model: InferTarget,
  maxInput_bytes: number,
): { request: InferRequest; prefs: HttpOutputPrefs } {
  if (headerLength === 0) {
    return { request: rawRequest(body, model), prefs: { binaryDefault: true, binaryByName: new Map() } };
  }
  const parsed = parseRequestJson(body.subarray(0, headerLength), readsIntegers);
  const json = isObject(parsed) ? parsed : {};
  const id = requestId(json);
  const { parameters, binaryDefault } = requestParameters(json);
  if (!has(json, 'inputs')) throw Errors.jsonField("Unable to parse 'inputs'", missing('inputs'));
  if (!Array.isArray(json.inputs)) throw Errors.jsonField("Unable to parse 'inputs'", NOT_A.array);
  const binary = { body, offset: headerLength };
  const inputs: RequestInput[] = [];
  for (const raw of json.inputs) inputs.push(readInput(raw, id, inputs, binary, model.name, maxInput_bytes));
  if (binary.offset !== body.length) {
    throw Errors.badRequest(`unexpected additional input data for model '${model.name}'`);
  }
  const prefs: HttpOutputPrefs = { binaryDefault, binaryByName: new Map() };
  const outputs = requestedOutputs(json, prefs);
  return {
    request: { modelName: model.name, modelVersion: model.version, id, inputs, outputs, parameters },
    prefs,
  };
}

/** Whether a request has JSON data for an integer input, where 5.0 and 5 differ to Triton. */
function readsIntegers(value: unknown): boolean {
  const inputs = isObject(value) ? value.inputs : undefined;
  return (
    Array.isArray(inputs) &&
    inputs.some((t) => isObject(t) && has(t, 'data') && /^U?INT/.test(String(t.datatype)))
  );
}

function requestId(json: Json): string {
  if (!has(json, 'id')) return '';
  if (typeof json.id !== 'string') throw Errors.jsonField("Unable to parse 'id'", NOT_A.string);
  return json.id;
}

/** The request's parameters, checked as Triton's ParseJsonTritonParams checks them, in order. */
function requestParameters(json: Json): { parameters: Json; binaryDefault: boolean } {
  if (!has(json, 'parameters')) return { parameters: {}, binaryDefault: false };
  const params = json.parameters;
  if (!isObject(params)) {
    throw Errors.jsonField('failed to get request params.', 'attempt to get members for non-object');
  }
  let binaryDefault = false;
  for (const [key, value] of Object.entries(params)) {
    const refuse = (detail: string) => Errors.jsonField(`Unable to parse '${key}'`, detail);
    switch (key) {
      case 'sequence_id':
        if (!isUint(value) && typeof value !== 'string') throw refuse(NOT_A.string);
        break;
      case 'sequence_start':
      case 'sequence_end':
        if (typeof value !== 'boolean') throw refuse(NOT_A.bool);
        break;
      case 'priority':
      case 'timeout':
        if (!isUint(value)) throw refuse(NOT_A.uint);
        break;
      case 'binary_data_output':
        if (typeof value !== 'boolean') throw refuse(NOT_A.bool);
        binaryDefault = value;
        break;
      default:
        if (key.startsWith('triton_')) {
          throw Errors.badRequest(
            "parameter keys starting with 'triton_' are reserved for Triton usage and should not be specified.",
          );
        }
        if (value instanceof WholeDouble) params[key] = value.value;
        else if (typeof value !== 'string' && typeof value !== 'boolean' && !isJsonNumber(value)) {
          throw Errors.badRequest(
            `parameter '${key}' has invalid type. It should be either 'int', 'bool', or 'string'.`,
          );
        }
    }
  }
  return { parameters: params, binaryDefault };
}

/** Where the next binary input's bytes start. */
interface BinaryCursor {
  body: Buffer;
  offset: number;
}

function readInput(
  raw: unknown,
  id: string,
  earlier: readonly RequestInput[],
  binary: BinaryCursor,
  model: string,
  maxInput_bytes: number,
): RequestInput {
  const input = isObject(raw) ? raw : {};
  const params = isObject(input.parameters) ? input.parameters : {};
  const fields = [
    has(input, 'data') && "'data'",
    has(params, 'binary_data_size') && "'binary_data_size'",
    has(params, 'shared_memory_region') && "'shared_memory_region'",
  ].filter((f) => f !== false);
  if (fields.length !== 1) {
    throw Errors.badRequest(
      "Input must set only one of the following fields: 'data', 'binary_data_size' in 'parameters', " +
        `'shared_memory_region' in 'parameters'. But${fields.length === 0 ? ' no field is set' : ` set ${fields.join(' ')}`}`,
    );
  }
  const name = memberString(input, 'name');
  const datatypeName = memberString(input, 'datatype');
  const datatype = isDatatype(datatypeName) ? datatypeName : INVALID_DATATYPE;
  const shape = memberShape(input);
  if (earlier.some((t) => t.name === name)) throw Errors.duplicateInput(id, name);
  if (has(params, 'binary_data_size')) {
    const size = params.binary_data_size;
    if (!isUint(size)) throw Errors.jsonField("Unable to parse 'binary_data_size'", NOT_A.uint);
    const available = binary.body.length - binary.offset;
    if (size > available) {
      throw Errors.badRequest(
        `unexpected size for input '${name}', expecting ${size - available} additional bytes for model '${model}'`,
      );
    }
    const data = binary.body.subarray(binary.offset, binary.offset + size);
    binary.offset += size;
    return { name, datatype, shape, data };
  }
  if (has(params, 'shared_memory_region')) throw sharedMemory(params);
  const elements = jsonElementCount(shape);
  if (elements === 0) return { name, datatype, shape, data: new Uint8Array(0) };
  if (elements < 0) {
    throw Errors.badRequest(
      `invalid shape for input '${name}': shape ${dimsToString(shape)} causes total element count to exceed maximum size of 9223372036854775807`,
    );
  }
  if (!Array.isArray(input.data)) throw Errors.jsonField("Unable to parse 'data'", NOT_A.array);
  return {
    name,
    datatype,
    shape,
    data: jsonTensorBytes(name, datatype, input.data, elements, maxInput_bytes),
  };
}

function memberString(o: Json, key: string): string {
  if (!has(o, key)) throw Errors.jsonField(`Unable to parse '${key}'`, missing(key));
  const value = o[key];
  if (typeof value !== 'string') throw Errors.jsonField(`Unable to parse '${key}'`, NOT_A.string);
  return value;
}

function memberShape(o: Json): number[] {
  if (!has(o, 'shape')) throw Errors.jsonField("Unable to parse 'shape'", missing('shape'));
  const shape = o.shape;
  if (!Array.isArray(shape)) throw Errors.jsonField("Unable to parse 'shape'", NOT_A.array);
  for (const d of shape) if (!isUint(d)) throw Errors.jsonField("Unable to parse 'shape'", NOT_A.uint);
  return shape as number[];
}

/** This server keeps no shared memory regions: every region is unknown, once its parameters parse. */
function sharedMemory(params: Json) {
  const region = params.shared_memory_region;
  if (typeof region !== 'string')
    throw Errors.jsonField("Unable to parse 'shared_memory_region'", NOT_A.string);
  for (const key of ['shared_memory_offset', 'shared_memory_byte_size']) {
    if (has(params, key) && !isUint(params[key]))
      throw Errors.jsonField(`Unable to parse '${key}'`, NOT_A.uint);
  }
  return Errors.unknownSharedMemory(region);
}

/** The requested outputs, read as Triton reads them (a name asked twice keeps its first settings). */
function requestedOutputs(json: Json, prefs: HttpOutputPrefs): RequestedOutput[] | undefined {
  if (!has(json, 'outputs')) return undefined;
  if (!Array.isArray(json.outputs)) throw Errors.jsonField("Unable to parse 'outputs'", NOT_A.array);
  const outputs: RequestedOutput[] = [];
  for (const raw of json.outputs) {
    const output = isObject(raw) ? raw : {};
    const params = isObject(output.parameters) ? output.parameters : {};
    if (has(params, 'shared_memory_region')) {
      if (has(params, 'classification')) {
        throw Errors.badRequest("Output can't set both 'shared_memory_region' and 'classification'");
      }
      if (has(params, 'binary_data')) {
        if (typeof params.binary_data !== 'boolean')
          throw Errors.jsonField("Unable to set 'binary_data'", NOT_A.bool);
        if (params.binary_data) {
          throw Errors.badRequest("Output can't set both 'shared_memory_region' and 'binary_data'");
        }
      }
    }
    const name = memberString(output, 'name');
    let classCount = 0;
    if (has(params, 'classification')) {
      if (!isUint(params.classification))
        throw Errors.jsonField("Unable to set 'classification'", NOT_A.uint);
      classCount = params.classification;
    }
    if (has(params, 'shared_memory_region')) throw sharedMemory(params);
    if (has(params, 'binary_data') && typeof params.binary_data !== 'boolean') {
      throw Errors.jsonField("Unable to parse 'binary_data'", NOT_A.bool);
    }
    if (outputs.some((o) => o.name === name)) continue;
    if (typeof params.binary_data === 'boolean') prefs.binaryByName.set(name, params.binary_data);
    outputs.push({ name, binary: params.binary_data === true, classCount });
  }
  return outputs;
}

/**
 * A raw binary body is the data of the model's only input, its shape the config's (batch 1), a variable
 * dimension deduced from the byte size; Triton's messages name the input 'raw_input'.
 */
function rawRequest(body: Buffer, model: InferTarget): InferRequest {
  const config = model.config;
  if (config.input.length !== 1) throw Errors.rawInputCount(model.name, config.input.length);
  const spec = config.input[0]!;
  const datatype = fromConfigDatatype(spec.data_type);
  const shape = [...(config.max_batch_size > 0 ? [1] : []), ...spec.dims];
  const variable = shape.indexOf(-1);
  if (variable !== shape.lastIndexOf(-1)) throw Errors.rawShape(spec.name);
  let data: Uint8Array = body;
  if (datatype === 'BYTES') {
    if (variable >= 0 || shape.reduce((a, b) => a * b, 1) !== 1) throw Errors.rawBytesShape(spec.name);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(body.length);
    data = Buffer.concat([length, body]);
  } else if (variable >= 0) {
    const known = shape.reduce((a, d) => (d === -1 ? a : a * d), 1) * DATATYPE_BYTES[datatype];
    shape[variable] = known > 0 ? Math.floor(body.length / known) : 0;
  }
  return {
    modelName: model.name,
    modelVersion: model.version,
    id: '',
    inputs: [{ name: spec.name, label: 'raw_input', datatype, shape, data }],
    parameters: {},
  };
}
