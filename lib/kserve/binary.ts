/**
 * KServe v2 binary tensor extension (Triton): a JSON header followed by the input
 * tensors' raw bytes. Build the body once per payload and reuse it for every request.
 */
import type { DecodeOptions } from '../tensor/codec.ts';
import { utf8Encode } from '../tensor/utf8.ts';
import { validateTensor } from '../tensor/validate.ts';
import { type InputJson, inferRequestJson } from './request-json.ts';
import { HEADER_LENGTH_HEADER, parseInferResponseBody } from './response.ts';
import type { InferInput, InferRequestOptions, InferResult } from './types.ts';

export { HEADER_LENGTH_HEADER };

/** A ready-to-send binary infer request. */
export interface BinaryInferRequest {
  /** JSON header then the inputs' bytes, in input order. */
  body: ArrayBuffer;
  /** Bytes of the JSON header: the Inference-Header-Content-Length value. */
  headerLength: number;
  /** Headers to send with `body`. */
  headers: Record<string, string>;
}

/**
 * Builds the body of a binary-extension infer request: each input carries
 * `parameters.binary_data_size`, outputs ask for `binary_data` (or the request-wide
 * `binary_data_output`) unless `options.binaryOutputs` is false. Inputs are validated first.
 */
export function buildBinaryInferRequest(
  inputs: readonly InferInput[],
  options: InferRequestOptions = {},
): BinaryInferRequest {
  if (inputs.length === 0) throw new Error('an infer request needs at least one input');
  const inputsJson: InputJson[] = inputs.map((input) => {
    validateTensor(input);
    return {
      name: input.name,
      shape: [...input.shape],
      datatype: input.datatype,
      parameters: { binary_data_size: input.data.length },
    };
  });
  const header = utf8Encode(JSON.stringify(inferRequestJson(inputsJson, options, true)));
  let total = header.length;
  for (const input of inputs) total += input.data.length;
  const body = new Uint8Array(total);
  body.set(header, 0);
  let offset = header.length;
  for (const input of inputs) {
    body.set(input.data, offset);
    offset += input.data.length;
  }
  return {
    body: body.buffer,
    headerLength: header.length,
    headers: {
      'Content-Type': 'application/octet-stream',
      [HEADER_LENGTH_HEADER]: String(header.length),
    },
  };
}

/**
 * Parses a binary-extension response body; `headerLength` is the response's
 * Inference-Header-Content-Length (absent when no output is binary: the body is all JSON).
 */
export function parseBinaryInferResponse(
  body: ArrayBuffer | Uint8Array,
  headerLength?: number,
  options: DecodeOptions = {},
): InferResult {
  return parseInferResponseBody(body, headerLength, options);
}
