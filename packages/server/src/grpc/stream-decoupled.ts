/**
 * ModelStreamInfer on a decoupled model, as Triton 2.60.0 frames it (pinned on its repeat backend in
 * test/e2e/triton/generate-stream-repeat.test.ts): one message per response, each with `triton_final_response`
 * false; after the last, an empty final response (no outputs, the flag true) only when the request set
 * `triton_enable_empty_final_response`; a failure as one error_message, marked final.
 */
import type { InferenceCore } from '../core.ts';
import { asServerError } from '../errors.ts';
import { type InferRequestMsg, fromInferRequestMsg, toInferResponseMsg } from './convert.ts';
import { FINAL, streamErrorMessage } from './messages.ts';
import type { CancelSignal } from '../infer/cancel.ts';

/** The request parameter that asks for the empty final response. */
const EMPTY_FINAL = 'triton_enable_empty_final_response';
const NOT_FINAL = { triton_final_response: { bool_param: false } };

/** True when a stream message names a loaded decoupled model (anything else takes the ordinary path). */
export function isDecoupledTarget(core: InferenceCore, msg: InferRequestMsg): boolean {
  try {
    return core.inferTarget(msg.model_name ?? '', msg.model_version ?? '').decoupled;
  } catch {
    return false;
  }
}

/** Runs one request of a decoupled model, writing its messages; never rejects. */
export async function streamDecoupled(
  core: InferenceCore,
  msg: InferRequestMsg,
  signal: CancelSignal,
  write: (message: unknown) => void,
): Promise<void> {
  try {
    const request = { ...fromInferRequestMsg(msg), signal };
    await core.inferStream(request, (result) =>
      write({ infer_response: { ...toInferResponseMsg(result), parameters: NOT_FINAL } }),
    );
    if (signal.aborted || request.parameters[EMPTY_FINAL] !== true) return;
    const final: Record<string, unknown> = { model_name: msg.model_name ?? '' };
    if (msg.model_version) final.model_version = msg.model_version;
    if (msg.id) final.id = msg.id;
    final.parameters = FINAL;
    write({ infer_response: final });
  } catch (err) {
    if (!signal.aborted) write(streamErrorMessage(msg, asServerError(err)));
  }
}
