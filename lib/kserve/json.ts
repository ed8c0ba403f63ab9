/**
 * KServe v2 JSON infer requests: tensor data as JSON arrays. Triton accepts no FP16
 * or BF16 data in JSON (no JSON type holds them), so those inputs need the binary form.
 */
import { type DecodeOptions, decodeTensor } from '../tensor/codec.ts';
import { validateTensor } from '../tensor/validate.ts';
import { type InputJson, inferRequestJson } from './request-json.ts';
import { parseInferResponseBody } from './response.ts';
import type { InferInput, InferRequestOptions, InferResult } from './types.ts';

/** A ready-to-send JSON infer request. */
export interface JsonInferRequest {
  body: string;
  headers: Record<string, string>;
}

/** An input given as values rather than bytes. */
export interface JsonInferInput {
  name: string;
  datatype: InferInput['datatype'];
  shape: readonly number[];
  data: readonly (number | boolean | string)[];
}

/**
 * Builds a JSON infer request. Inputs may be raw tensors (decoded to JSON arrays once, here)
 * or value arrays. Outputs come back as JSON unless `options.binaryOutputs` is true.
 */
export function buildJsonInferRequest(
  inputs: readonly (InferInput | JsonInferInput)[],
  options: InferRequestOptions = {},
): JsonInferRequest {
  if (inputs.length === 0) throw new Error('an infer request needs at least one input');
  const inputsJson: InputJson[] = inputs.map((input) => {
    if (input.datatype === 'FP16' || input.datatype === 'BF16') {
      throw new Error(
        `input "${input.name}" is ${input.datatype}, which has no JSON representation; send it with the binary tensor extension`,
      );
    }
    return { name: input.name, shape: [...input.shape], datatype: input.datatype, data: jsonData(input) };
  });
  return {
    body: JSON.stringify(inferRequestJson(inputsJson, options, false)),
    headers: { 'Content-Type': 'application/json' },
  };
}

/** Parses a JSON infer response body (text or bytes). */
export function parseJsonInferResponse(
  body: string | ArrayBuffer | Uint8Array,
  options: DecodeOptions = {},
): InferResult {
  return parseInferResponseBody(body, undefined, options);
}

function jsonData(input: InferInput | JsonInferInput): unknown[] {
  if (!(input.data instanceof Uint8Array)) return [...input.data];
  validateTensor(input as InferInput);
  const values = decodeTensor(input.datatype, input.data, input.shape);
  // Typed arrays serialise as objects in JSON; plain arrays are what the protocol wants.
  return Array.from(values as ArrayLike<unknown>);
}
