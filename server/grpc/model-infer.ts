/**
 * ModelInfer on node:http2, ahead of grpc-js, for the one call a benchmark sends thousands of times a
 * second. At concurrency 2 under perf_analyzer, grpc-js's call machinery (interceptors, metadata, its
 * read queue) put the server at 389-443 µs of CPU per MNIST inference; this path at 313-326, and the
 * server answered 12-30% more calls (bench/fidelity/HISTORY.md). gRPC message framing is wire/grpc-frame.ts,
 * shared with the runtime's client: a pure codec, so the server imports nothing of the runtime.
 *
 * Protobuf work stays with the service definition's own (de)serializers; every other RPC, and a compressed
 * ModelInfer, stays on grpc-js. Headers, statuses and their words follow grpc-js, except that grpc-message is
 * encoded as gRPC C++ (Triton) encodes it, and a message flagged compressed under identity encoding is refused,
 * as the gRPC protocol asks, where grpc-js reads it. Like grpc-js, an answer leaves in two writes (HEADERS and
 * DATA, then the trailers): a Node stream ends only after its last write completes, and the trailers follow the end.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { status as Status } from '@grpc/grpc-js';
import {
  frameMessage,
  type GrpcMessage,
  GrpcMessageDecoder,
  GrpcMessageTooLarge,
  PREFIX_BYTES,
} from '../../wire/grpc-frame.ts';
import type { InferenceCore } from '../core.ts';
import { asServerError } from '../errors.ts';
import type { InferRequestMsg } from './convert.ts';
import { toInferResponseMsg } from './convert.ts';
import { inferRequestOf, type MessageCodec } from './messages.ts';

/** The HTTP/2 path of inference.GRPCInferenceService/ModelInfer. */
export const MODEL_INFER_PATH = '/inference.GRPCInferenceService/ModelInfer';

/** Takes an incoming HTTP/2 stream (true) or leaves it to grpc-js (false). */
export type StreamTaker = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => boolean;

/** grpc-timeout: up to 8 digits and a unit (gRPC over HTTP/2, "Timeout"). */
const TIMEOUT_RE = /(\d{1,8})\s*([HMSmun])/;
const UNIT_MS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1000,
  m: 1,
  u: 1e-3,
  n: 1e-6,
};
// The headers grpc-js answers with, so both paths look the same on the wire.
const STATUS_HEADERS: OutgoingHttpHeaders = { ':status': 200, 'content-type': 'application/grpc+proto' };
const RESPONSE_HEADERS: OutgoingHttpHeaders = {
  ...STATUS_HEADERS,
  'grpc-accept-encoding': 'identity,deflate,gzip',
  'grpc-encoding': 'identity',
};
const OK_TRAILERS: OutgoingHttpHeaders = { 'grpc-status': '0', 'grpc-message': 'OK' };

/** A StreamTaker that answers uncompressed ModelInfer calls on the core. */
export function modelInferTaker(
  core: InferenceCore,
  codec: MessageCodec,
  opts: { maxMessage_bytes: number },
): StreamTaker {
  return (stream, headers) => {
    if (headers[':path'] !== MODEL_INFER_PATH) return false;
    const type = headers['content-type'];
    if (typeof type !== 'string' || !type.startsWith('application/grpc')) return false;
    const encoding = headers['grpc-encoding'];
    if (encoding !== undefined && encoding !== 'identity') return false;
    serveCall(stream, headers, core, codec, opts.maxMessage_bytes);
    return true;
  };
}

/** One unary call: read the request message, infer, answer once. */
function serveCall(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  core: InferenceCore,
  codec: MessageCodec,
  max_bytes: number,
): void {
  // An error here has a 'close' after it, which is where the call is cancelled.
  stream.on('error', () => {});
  const abort = new AbortController();
  let answered = false;
  let deadline: NodeJS.Timeout | undefined;

  /** Marks the call answered, once; true when this caller may still write to the stream. */
  const settle = (): boolean => {
    if (answered) return false;
    answered = true;
    clearTimeout(deadline);
    return !(stream.destroyed || stream.closed);
  };
  const fail = (code: Status, details: string) => {
    if (!settle()) return;
    // Trailers-only, as grpc-js answers an error before any message.
    stream.respond(
      { ...STATUS_HEADERS, 'grpc-status': String(code), 'grpc-message': grpcMessage(details) },
      { endStream: true },
    );
    // Read on to the end of a body no one will use, so the stream can close.
    stream.resume();
  };
  const reply = (message: Buffer) => {
    if (!settle()) return;
    stream.respond(RESPONSE_HEADERS, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers(OK_TRAILERS));
    stream.end(message);
  };

  stream.once('close', () => {
    // The client reset the stream or the connection closed: a queued request is dropped.
    if (!answered) abort.abort();
    settle();
  });

  const timeout = headers['grpc-timeout'];
  if (typeof timeout === 'string') {
    const m = TIMEOUT_RE.exec(timeout);
    if (!m) {
      fail(Status.INTERNAL, `Invalid grpc-timeout value "${timeout}"`);
      return;
    }
    deadline = setTimeout(
      () => {
        abort.abort();
        fail(Status.DEADLINE_EXCEEDED, 'Deadline exceeded');
      },
      (Number(m[1]) * UNIT_MS[m[2]!]!) | 0,
    );
  }

  const decoder = new GrpcMessageDecoder({ maxMessage_bytes: max_bytes });
  const messages: GrpcMessage[] = [];
  stream.on('data', (chunk: Buffer) => {
    if (answered) return;
    try {
      // An oversized message is refused from its prefix, before it is buffered.
      for (const m of decoder.push(chunk)) messages.push(m);
    } catch (err) {
      if (!(err instanceof GrpcMessageTooLarge)) throw err;
      fail(Status.RESOURCE_EXHAUSTED, `Received message larger than max (${err.length} vs ${max_bytes})`);
    }
  });
  stream.on('end', () => {
    if (answered) return;
    const request = messageOf(messages, decoder.pending_bytes);
    if (typeof request === 'string') {
      fail(Status.UNIMPLEMENTED, request);
      return;
    }
    if (request.compressed) {
      fail(Status.INTERNAL, 'a message flagged compressed needs a grpc-encoding header other than identity');
      return;
    }
    let msg: InferRequestMsg;
    try {
      msg = codec.deserialize(request.bytes) as InferRequestMsg;
    } catch {
      fail(Status.INTERNAL, 'Error deserializing request');
      return;
    }
    Promise.resolve()
      .then(() => core.infer(inferRequestOf(core, msg, abort.signal)))
      .then(
        (result) => {
          const message = frameMessage(codec.serialize(toInferResponseMsg(result)));
          if (message.length - PREFIX_BYTES > max_bytes) {
            fail(
              Status.RESOURCE_EXHAUSTED,
              `Sent message larger than max (${message.length} vs. ${max_bytes})`,
            );
          } else reply(message);
        },
        (err) => {
          const e = asServerError(err);
          fail(e.grpcCode, e.message);
        },
      );
  });
}

/**
 * grpc-message as gRPC C++ (Triton's) writes it: bytes outside printable ASCII, and '%', percent-encoded,
 * spaces kept. A message ending in a space (Triton's shape errors do) is then dropped by nghttp2-based
 * clients such as grpc-js, which see an empty message from Triton and from here alike.
 */
function grpcMessage(details: string): string {
  let out = '';
  for (const b of Buffer.from(details, 'utf8')) {
    out +=
      b >= 0x20 && b <= 0x7e && b !== 0x25
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The request's one message, or what is wrong with the body (grpc-js's words). */
function messageOf(messages: GrpcMessage[], leftover_bytes: number): GrpcMessage | string {
  if (messages.length === 0) {
    return `Received no request message for server streaming method ${MODEL_INFER_PATH}`;
  }
  if (messages.length > 1 || leftover_bytes > 0) {
    return `Received a second request message for server streaming method ${MODEL_INFER_PATH}`;
  }
  return messages[0]!;
}
