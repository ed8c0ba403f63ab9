/**
 * HTTP infer body → InferRequest: the JSON request, or JSON header + binary tensor data
 * (Inference-Header-Content-Length), or a raw binary body (header length 0) for single-input models.
 * Binary inputs are views into the body, never copies.
 */
import { encodeTensor, type TensorValue } from '../../lib/tensor/codec.ts';
import { isDatatype } from '../../lib/tensor/datatypes.ts';
import type { ModelConfigJson } from '../config/types.ts';
import { fromConfigDatatype } from '../../lib/tensor/datatypes.ts';
import { Errors } from '../errors.ts';
import type { InferRequest, RequestedOutput, TensorData } from '../infer/types.ts';

/** What the encoder needs to know about the client's output wishes. */
export interface HttpOutputPrefs {
  /** Request-wide binary_data_output. */
  binaryDefault: boolean;
  /** Per-output binary_data, by name. */
  binaryByName: Map<string, boolean>;
}

interface JsonInput {
  name?: unknown;
  shape?: unknown;
  datatype?: unknown;
  parameters?: Record<string, unknown>;
  data?: unknown;
}

/** Decodes an HTTP infer body; `configOf` gives the model config for raw binary requests. */
export function decodeHttpInfer(
  body: Buffer,
  headerLength: number | undefined,
  model: { name: string; version: string },
  configOf: () => ModelConfigJson,
): { request: InferRequest; prefs: HttpOutputPrefs } {
  if (headerLength === 0)
    return {
      request: rawRequest(body, model, configOf()),
      prefs: { binaryDefault: true, binaryByName: new Map() },
    };
  const jsonEnd = headerLength ?? body.length;
  if (jsonEnd > body.length) {
    throw Errors.badRequest(
      `Inference-Header-Content-Length ${jsonEnd} is larger than the request body (${body.length} bytes)`,
    );
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body.toString('utf8', 0, jsonEnd));
  } catch (err) {
    throw Errors.badRequest(`failed to parse the request JSON buffer: ${(err as Error).message}`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw Errors.badRequest('failed to parse the request JSON buffer: expected a JSON object');
  }
  const id = typeof json.id === 'string' ? json.id : '';
  const parameters = isObject(json.parameters) ? json.parameters : {};
  if (!Array.isArray(json.inputs)) throw Errors.badRequest("Unable to find 'inputs' in the request JSON");
  let binaryOffset = jsonEnd;
  const inputs: TensorData[] = json.inputs.map((raw: JsonInput) => {
    const t = parseInputHeader(raw);
    const size = raw.parameters?.binary_data_size;
    if (size !== undefined) {
      if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) {
        throw Errors.badRequest(`binary_data_size of input '${t.name}' must be a non-negative integer`);
      }
      if (binaryOffset + size > body.length) {
        throw Errors.badRequest(
          `unexpected size for input '${t.name}', expecting ${size} additional bytes but only ${body.length - binaryOffset} remain in the request body`,
        );
      }
      const data = body.subarray(binaryOffset, binaryOffset + size);
      binaryOffset += size;
      return { ...t, data };
    }
    if (raw.data === undefined)
      throw Errors.badRequest(`input '${t.name}' has neither data nor binary_data_size`);
    if (t.datatype === 'FP16' || t.datatype === 'BF16') {
      throw Errors.badRequest(
        `receiving ${t.datatype} data via JSON is not supported. Please use the binary data format for input ${t.name}`,
      );
    }
    const values = flatten(raw.data, t.name);
    try {
      return { ...t, data: encodeTensor(t.datatype, values) };
    } catch (err) {
      throw Errors.badRequest(`unable to parse 'data' of input '${t.name}': ${(err as Error).message}`);
    }
  });
  if (binaryOffset !== body.length) {
    throw Errors.badRequest(
      `unexpected additional input data: ${body.length - binaryOffset} bytes after the tensors binary_data_size accounts for`,
    );
  }
  const prefs: HttpOutputPrefs = {
    binaryDefault: parameters.binary_data_output === true,
    binaryByName: new Map(),
  };
  let outputs: RequestedOutput[] | undefined;
  if (Array.isArray(json.outputs)) {
    outputs = json.outputs.map((o: { name?: unknown; parameters?: Record<string, unknown> }) => {
      if (typeof o?.name !== 'string')
        throw Errors.badRequest('every requested output needs a string "name"');
      const p = isObject(o.parameters) ? o.parameters : {};
      if (typeof p.binary_data === 'boolean') prefs.binaryByName.set(o.name, p.binary_data);
      const classCount = typeof p.classification === 'number' ? p.classification : undefined;
      return { name: o.name, binary: p.binary_data === true, classCount };
    });
  }
  return {
    request: { modelName: model.name, modelVersion: model.version, id, inputs, outputs, parameters },
    prefs,
  };
}

function parseInputHeader(raw: JsonInput): Omit<TensorData, 'data'> {
  if (!isObject(raw) || typeof raw.name !== 'string')
    throw Errors.badRequest('every input needs a string "name"');
  if (!isDatatype(raw.datatype)) {
    throw Errors.badRequest(`input '${raw.name}' has an invalid datatype ${JSON.stringify(raw.datatype)}`);
  }
  if (!Array.isArray(raw.shape) || !raw.shape.every((d) => Number.isInteger(d))) {
    throw Errors.badRequest(`input '${raw.name}' needs "shape", an array of integers`);
  }
  return { name: raw.name, datatype: raw.datatype, shape: raw.shape as number[] };
}

/** A raw binary body is the data of the model's only input, with the config's shape (batch 1). */
function rawRequest(
  body: Buffer,
  model: { name: string; version: string },
  config: ModelConfigJson,
): InferRequest {
  if (config.input.length !== 1) {
    throw Errors.badRequest(
      `Raw request must only have 1 input (found 1) to be deduced but got ${config.input.length} inputs in '${model.name}' model configuration`,
    );
  }
  const spec = config.input[0]!;
  const shape = [...(config.max_batch_size > 0 ? [1] : []), ...spec.dims];
  if (shape.includes(-1)) {
    throw Errors.badRequest(
      `The shape of the raw input '${spec.name}' can not be deduced because it has a variable-sized dimension`,
    );
  }
  return {
    modelName: model.name,
    modelVersion: model.version,
    id: '',
    inputs: [{ name: spec.name, datatype: fromConfigDatatype(spec.data_type), shape, data: body }],
    parameters: {},
  };
}

function flatten(data: unknown, name: string): TensorValue[] {
  if (!Array.isArray(data)) return [data as TensorValue];
  if (!data.some(Array.isArray)) return data as TensorValue[];
  const out: TensorValue[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v !== null && typeof v === 'object')
      throw Errors.badRequest(`'data' of input '${name}' holds an object`);
    else out.push(v as TensorValue);
  };
  walk(data);
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
