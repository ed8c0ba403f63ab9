/**
 * What the gRPC frontend's modules share: message limits, proto-loader options, the request a ModelInfer message
 * carries, and the stream answers' final flag and error message. Its own module so the frontend's files import
 * it and not each other.
 */
import type * as protoLoader from '@grpc/proto-loader';
import { PROTO_DIR } from '../config/schema.ts';
import type { InferenceCore } from '../core.ts';
import { Errors, type ServerError } from '../errors.ts';
import type { InferRequest } from '../infer/types.ts';
import { fromInferRequestMsg, type InferRequestMsg } from './convert.ts';
import type { CancelSignal } from '../infer/cancel.ts';

/** The message codec of one RPC, as a grpc-js service definition carries it. */
export interface MessageCodec {
  deserialize(bytes: Buffer): unknown;
  serialize(value: unknown): Buffer;
}

/** The largest message either way unless the server says otherwise. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** proto-loader options shared by the server and the tests' clients. */
export const PROTO_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: false,
  oneofs: true,
  includeDirs: [PROTO_DIR],
};

/**
 * The request a ModelInfer message carries, read as Triton reads it: the model is looked up first, and a
 * decoupled one is refused unless the message came on a stream.
 */
export function inferRequestOf(
  core: InferenceCore,
  msg: InferRequestMsg,
  signal: CancelSignal,
  onStream = false,
): InferRequest {
  const model = core.inferTarget(msg.model_name ?? '', msg.model_version ?? '');
  if (!onStream && model.decoupled) throw Errors.decoupledModelInfer();
  return { ...fromInferRequestMsg(msg), signal };
}

/** Every answer on a stream of a model that is not decoupled is its request's last, and says so. */
export const FINAL = { triton_final_response: { bool_param: true } };

/**
 * A failed request's stream message: a request refused before it was queued answers with its id alone; one that
 * failed after (timed out, its backend failed) also names its model and is flagged final, as Triton's response
 * callback answers it.
 */
export function streamErrorMessage(msg: InferRequestMsg, e: ServerError): Record<string, unknown> {
  const answer: Record<string, unknown> = msg.id ? { id: msg.id } : {};
  if (e.queued) {
    if (msg.model_name) answer.model_name = msg.model_name;
    if (msg.model_version) answer.model_version = msg.model_version;
    answer.parameters = FINAL;
  }
  return { error_message: e.message, infer_response: answer };
}
