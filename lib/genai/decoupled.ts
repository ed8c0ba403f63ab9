/**
 * One ModelStreamInfer message of a decoupled model, read for generative timing: which request it answers,
 * whether it failed, whether it carries outputs, and whether it is the request's last (real Triton 2.60.0 sets
 * `triton_final_response` on every response; it is true only on an error and on the empty final response,
 * which comes only when the request set `triton_enable_empty_final_response`). Either JSON spelling (k6's
 * lowerCamelCase, proto-loader's proto names). Pure; runs inside k6 and on Node.
 */
import { fromInferParameters, pick, readStreamInferResponse } from '../kserve/grpc-messages.ts';

/** The request parameter that makes Triton end each request's responses with an empty final response. */
export const EMPTY_FINAL_PARAMETER = 'triton_enable_empty_final_response';
/** The response parameter Triton sets on each response of a decoupled model. */
export const FINAL_PARAMETER = 'triton_final_response';

/** A decoupled model's stream message, read. */
export interface DecoupledResponse {
  /** The request id echoed, when the request set one. */
  id?: string;
  /** The error Triton reported on the stream for this request. */
  error?: string;
  /** triton_final_response; an error is always the request's last message. */
  final: boolean;
  /** Outputs it carries (0 for the empty final response). */
  outputs: number;
}

/** Reads a ModelStreamInferResponse of a decoupled model. */
export function readDecoupledResponse(message: unknown): DecoupledResponse {
  const read = readStreamInferResponse(message);
  const parameters = fromInferParameters(pick(read.response, 'parameters'));
  const outputs = pick(read.response, 'outputs');
  const out: DecoupledResponse = {
    final: parameters[FINAL_PARAMETER] === true || read.error !== undefined,
    outputs: Array.isArray(outputs) ? outputs.length : 0,
  };
  if (read.id !== undefined) out.id = read.id;
  if (read.error !== undefined) out.error = read.error;
  return out;
}
