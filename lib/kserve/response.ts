/**
 * KServe v2 REST infer responses: the JSON object, optionally followed by binary
 * output data (binary tensor extension), into typed outputs.
 */
import { decodeTensor, type DecodeOptions, type TensorData } from '../tensor/codec.ts';
import { isDatatype } from '../tensor/datatypes.ts';
import { utf8Decode } from '../tensor/utf8.ts';
import { headerValue } from './paths.ts';
import type { InferResult, OutputTensor } from './types.ts';

/** One entry of the response's "outputs" array. */
export interface OutputResponseJson {
  name: string;
  datatype: string;
  shape: number[];
  parameters?: Record<string, unknown> & { binary_data_size?: number };
  data?: unknown[];
}

/** The response object (the whole body, or the header before binary data). */
export interface InferResponseJson {
  model_name: string;
  model_version?: string;
  id?: string;
  parameters?: Record<string, unknown>;
  outputs?: OutputResponseJson[];
}

/** The part of an HTTP response the parsers read: works with k6's Response and with Node's. */
export interface HttpResponseLike {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: ArrayBuffer | Uint8Array | string | null;
}

/** Header naming the JSON part's length in a binary-extension body. */
export const HEADER_LENGTH_HEADER = 'Inference-Header-Content-Length';

/** How every invalid-response failure is worded first: a reply with a success status that is not a valid answer. */
export const INVALID_RESPONSE = 'invalid response: ';

/** The content types of a KServe infer response: JSON, or the binary extension's JSON header and tensor bytes. */
export const INFER_CONTENT_TYPES = ['application/json', 'application/octet-stream'] as const;

/** Whether a failure, as the clients word it, is an invalid response (not an error status, not a lost call). */
export function isInvalidResponse(error: string): boolean {
  return error.startsWith(INVALID_RESPONSE);
}

/**
 * Why a Content-Type is not an infer response's (e.g. a gateway's text/html error page with status 200), or
 * undefined when it is one; a missing Content-Type is left to the body's parse.
 */
export function contentTypeProblem(type: string | undefined): string | undefined {
  if (type === undefined || type === '') return undefined;
  const base = type.split(';')[0]!.trim().toLowerCase();
  if ((INFER_CONTENT_TYPES as readonly string[]).includes(base)) return undefined;
  return `${INVALID_RESPONSE}body is ${base}, not JSON`;
}

/**
 * Turns the response object plus the bytes after it into typed outputs. Binary outputs are
 * taken from `binary` in the order they appear, each `binary_data_size` bytes long.
 */
export function parseInferResponseJson(
  json: InferResponseJson,
  binary: Uint8Array = new Uint8Array(0),
  options: DecodeOptions = {},
): InferResult {
  let offset = 0;
  const outputs: OutputTensor[] = (json.outputs ?? []).map((output) => {
    if (!isDatatype(output.datatype)) {
      throw new Error(`invalid response: output "${output.name}" has unknown datatype "${output.datatype}"`);
    }
    const shape = output.shape.map(Number);
    const size = output.parameters?.binary_data_size;
    const tensor: OutputTensor = { name: output.name, datatype: output.datatype, shape, data: [] };
    if (output.parameters) tensor.parameters = output.parameters;
    if (size !== undefined) {
      if (offset + size > binary.length) {
        throw new Error(
          `invalid response: output "${output.name}" declares ${size} binary bytes, ${binary.length - offset} remain`,
        );
      }
      tensor.bytes = binary.subarray(offset, offset + size);
      tensor.data = decodeTensor(output.datatype, tensor.bytes, shape, options);
      offset += size;
    } else {
      tensor.data = flatten(output.data ?? []) as TensorData;
    }
    return tensor;
  });
  const result: InferResult = {
    modelName: json.model_name,
    modelVersion: json.model_version ?? '',
    outputs,
  };
  if (json.id !== undefined) result.id = json.id;
  if (json.parameters !== undefined) result.parameters = json.parameters;
  return result;
}

/**
 * Parses an infer response body: the JSON part is `headerLength` bytes when the server sent
 * Inference-Header-Content-Length, else the whole body.
 */
export function parseInferResponseBody(
  body: ArrayBuffer | Uint8Array | string,
  headerLength?: number,
  options: DecodeOptions = {},
): InferResult {
  if (typeof body === 'string') return parseInferResponseJson(parseJsonText(body), undefined, options);
  const bytes = body instanceof Uint8Array ? body : new Uint8Array(body);
  const jsonLength = headerLength ?? bytes.length;
  if (jsonLength > bytes.length) {
    throw new Error(
      `invalid response: ${HEADER_LENGTH_HEADER} is ${jsonLength} but the body has ${bytes.length} bytes`,
    );
  }
  const json = parseJsonText(utf8Decode(bytes, 0, jsonLength));
  return parseInferResponseJson(json, bytes.subarray(jsonLength), options);
}

/** Parses an HTTP infer response (k6 or Node); throws the server's error message on a non-200 status. */
export function parseHttpInferResponse(response: HttpResponseLike, options: DecodeOptions = {}): InferResult {
  if (response.status !== 200) {
    throw new Error(
      `infer failed with HTTP ${response.status}: ${httpErrorMessage(response) ?? 'no error message'}`,
    );
  }
  const typeProblem = contentTypeProblem(headerValue(response.headers, 'Content-Type'));
  if (typeProblem) throw new Error(typeProblem);
  if (response.body === null) throw new Error('invalid response: empty body (was responseType "none"?)');
  const headerText = headerValue(response.headers, HEADER_LENGTH_HEADER);
  const headerLength = headerText === undefined ? undefined : Number(headerText);
  if (headerLength !== undefined && (!Number.isInteger(headerLength) || headerLength < 0)) {
    throw new Error(`invalid response: ${HEADER_LENGTH_HEADER} "${headerText}" is not a byte count`);
  }
  return parseInferResponseBody(response.body, headerLength, options);
}

/** The "error" field of a KServe error body, if the body is JSON with one. */
export function httpErrorMessage(response: Pick<HttpResponseLike, 'body'>): string | undefined {
  const { body } = response;
  if (body === null) return undefined;
  const text =
    typeof body === 'string' ? body : utf8Decode(body instanceof Uint8Array ? body : new Uint8Array(body));
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    return typeof parsed.error === 'string' ? parsed.error : undefined;
  } catch {
    return text.length > 0 ? text.slice(0, 200) : undefined;
  }
}

function parseJsonText(text: string): InferResponseJson {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`invalid response: body is not JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null)
    throw new Error('invalid response: body is not a JSON object');
  return parsed as InferResponseJson;
}

/** KServe allows nested data arrays in JSON; Triton sends flat ones. Either way: row-major flat. */
function flatten(data: unknown[]): unknown[] {
  if (!data.some(Array.isArray)) return data;
  const out: unknown[] = [];
  const walk = (items: unknown[]) => {
    for (const item of items) {
      if (Array.isArray(item)) walk(item);
      else out.push(item);
    }
  };
  walk(data);
  return out;
}
