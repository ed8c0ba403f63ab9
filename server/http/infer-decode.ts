/**
 * HTTP infer body → InferRequest: the JSON request, or JSON header + binary tensor data
 * (Inference-Header-Content-Length), or a raw binary body (header length 0) for single-input models.
 * Binary inputs are views into the body, never copies.
 */
import { encodeTensor, type TensorValue } from '../../lib/tensor/codec.ts';
import { isDatatype } from '../../lib/tensor/datatypes.ts';
import type { ModelConfigJson } from '../config/types.ts';
import { fromConfigDatatype } from '../../lib/tensor/datatypes.ts';
import { Errors, preview } from '../errors.ts';
import type { InferRequest, RequestedOutput, TensorData } from '../infer/types.ts';
import type { Datatype } from '../../models/types.ts';

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
    const values = flatten(raw.data, t.name, t.datatype);
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
      if (p.classification !== undefined && typeof p.classification !== 'number')
        throw Errors.badClassification(o.name, p.classification);
      const classCount = p.classification as number | undefined;
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
    throw Errors.badRequest(`input '${raw.name}' has an invalid datatype ${preview(raw.datatype)}`);
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

/** Deepest `data` nesting accepted (Triton tensors have at most a few dozen dimensions). */
export const MAX_DATA_DEPTH = 64;

/** The JSON type each datatype's elements must have, as Triton's JSON reader requires (no "NaN" strings). */
function jsonTypeOf(datatype: Datatype): 'number' | 'boolean' | 'string' {
  if (datatype === 'BYTES') return 'string';
  if (datatype === 'BOOL') return 'boolean';
  return 'number';
}

/** Flattens `data` (flat or nested as the shape) without recursion, checking depth and each element's type. */
function flatten(data: unknown, name: string, datatype: Datatype): TensorValue[] {
  const want = jsonTypeOf(datatype);
  const out: TensorValue[] = [];
  const check = (v: unknown) => {
    if (typeof v !== want) {
      throw Errors.badRequest(
        `unable to parse 'data' of input '${name}': element ${out.length} is ${preview(v)}, expected a JSON ${want} for ${datatype}`,
      );
    }
    out.push(v as TensorValue);
  };
  if (!Array.isArray(data)) {
    check(data);
    return out;
  }
  // An explicit stack of array iterators: deep nesting costs heap, not call stack.
  const stack: Iterator<unknown>[] = [data[Symbol.iterator]()];
  while (stack.length > 0) {
    const next = stack[stack.length - 1]!.next();
    if (next.done) {
      stack.pop();
      continue;
    }
    if (Array.isArray(next.value)) {
      if (stack.length >= MAX_DATA_DEPTH) throw Errors.tooDeep(name, MAX_DATA_DEPTH);
      stack.push(next.value[Symbol.iterator]());
    } else check(next.value);
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
