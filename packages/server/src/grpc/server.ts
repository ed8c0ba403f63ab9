/**
 * The gRPC transport: inference.GRPCInferenceService on @grpc/grpc-js, loaded from proto/grpc_service.proto
 * with @grpc/proto-loader. Each RPC calls the core; errors carry the catalog's gRPC status.
 */
import * as grpc from '@grpc/grpc-js';
import type { ActiveCalls } from './active-calls.ts';
import { tolerantDecoders, tritonCallInterceptor } from './call-interceptor.ts';
import * as protoLoader from '@grpc/proto-loader';
import type { InferenceCore, LoadParameters } from '../core.ts';
import { asServerError, Errors } from '../errors.ts';
import { Cancellation } from '../infer/cancel.ts';
import { ResetFault } from '../faults/injector.ts';
import { type InferRequestMsg, type ParameterMsg, toInferResponseMsg } from './convert.ts';
import { addHealthService } from './health.ts';
import {
  FINAL,
  inferRequestOf,
  MAX_MESSAGE_BYTES,
  type MessageCodec,
  PROTO_OPTIONS,
  streamErrorMessage,
} from './messages.ts';
import { isDecoupledTarget, streamDecoupled } from './stream-decoupled.ts';

type Unary = grpc.handleUnaryCall<unknown, unknown>;
type Stream = grpc.ServerDuplexStream<InferRequestMsg, unknown>;

interface NameVersion {
  name: string;
  version?: string;
}

interface RepoRequest {
  model_name: string;
  repository_name?: string;
  ready?: boolean;
  parameters?: Record<string, ParameterMsg>;
}

/** RepositoryModelLoad's parameters as Triton's gRPC frontend reads them: a string "config", bytes "file:..." only. */
function loadParameters(map: Record<string, ParameterMsg> | undefined): LoadParameters {
  const out: LoadParameters = { files: [] };
  for (const [name, p] of Object.entries(map ?? {})) {
    if (name === 'config') {
      if (p.parameter_choice !== 'string_param') throw Errors.loadParameterType(name, 'string_param');
      out.config = String(p.string_param);
    } else if (name.startsWith('file:')) {
      if (p.parameter_choice !== 'bytes_param') throw Errors.loadParameterType(name, 'bytes_param');
      out.files.push(name);
    } else {
      throw Errors.unrecognizedLoadParameter(name);
    }
  }
  return out;
}

/** Triton serves one repository: a request that names one is refused. */
function oneRepository(r: RepoRequest): void {
  if (r.repository_name) throw Errors.repositoryName();
}

let loaded: grpc.ServiceDefinition | undefined;

/** The GRPCInferenceService definition (loaded once). */
export function inferenceService(): grpc.ServiceDefinition {
  if (loaded) return loaded;
  const def = protoLoader.loadSync('grpc_service.proto', PROTO_OPTIONS);
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    inference: { GRPCInferenceService: { service: grpc.ServiceDefinition } };
  };
  loaded = pkg.inference.GRPCInferenceService.service;
  return loaded;
}

/** ModelInfer's request and response codec, from the service definition. */
export function modelInferCodec(): MessageCodec {
  const m = inferenceService().ModelInfer!;
  return { deserialize: m.requestDeserialize, serialize: m.responseSerialize };
}

/** Wraps a handler: a thrown or rejected error answers with its catalog status. */
function unary<Req>(fn: (req: Req) => unknown): Unary {
  return (call, callback) => {
    Promise.resolve()
      .then(() => fn(call.request as Req))
      .then(
        (value) => callback(null, value),
        (err) => {
          const e = asServerError(err);
          callback({ code: e.grpcCode, details: e.message, metadata: new grpc.Metadata() });
        },
      );
  };
}

/** ModelInfer: a call cancelled by its client drops its request if still queued. */
function modelInfer(core: InferenceCore): Unary {
  return (call, callback) => {
    const cancel = new Cancellation();
    // grpc-js reports every call as cancelled once its stream closes, answered or not: listen until answered.
    const onCancelled = () => cancel.cancel();
    call.once('cancelled', onCancelled);
    Promise.resolve()
      .then(() => core.infer(inferRequestOf(core, call.request as InferRequestMsg, cancel)))
      .then(
        (result) => {
          call.off('cancelled', onCancelled);
          callback(null, toInferResponseMsg(result));
        },
        (err) => {
          call.off('cancelled', onCancelled);
          const e = asServerError(err);
          callback({ code: e.grpcCode, details: e.message, metadata: new grpc.Metadata() });
        },
      );
  };
}

/** Creates (does not bind) a gRPC server for a core. */
export function createGrpcServer(
  core: InferenceCore,
  opts: {
    maxMessage_bytes?: number;
    maxConnectionIdle_ms?: number;
    log?: (line: string) => void;
    /** Counts calls in progress per connection, for the port's connection slots. */
    calls?: ActiveCalls;
  } = {},
): grpc.Server {
  const max = opts.maxMessage_bytes ?? MAX_MESSAGE_BYTES;
  const server = new grpc.Server({
    'grpc.max_receive_message_length': max,
    'grpc.max_send_message_length': max,
    // gRPC's MAX_CONNECTION_IDLE: a connection without calls this long is sent GOAWAY (absent: never, gRPC's default).
    ...(opts.maxConnectionIdle_ms ? { 'grpc.max_connection_idle_ms': opts.maxConnectionIdle_ms } : {}),
    // Triton's answers to malformed frames, and its verbose log lines per call.
    interceptors: [tritonCallInterceptor(opts.log, opts.calls)],
  });
  const handlers: Record<string, Unary | ((call: Stream) => void)> = {
    ServerLive: unary(() => ({ live: core.live() })),
    ServerReady: unary(() => ({ ready: core.ready() })),
    ModelReady: unary((r: NameVersion) => ({ ready: core.modelReady(r.name, r.version ?? '') })),
    ServerMetadata: unary(() => core.serverMetadata()),
    ModelMetadata: unary((r: NameVersion) => core.modelMetadata(r.name, r.version ?? '')),
    ModelConfig: unary((r: NameVersion) => ({ config: core.modelConfig(r.name, r.version ?? '') })),
    ModelStatistics: unary((r: Partial<NameVersion>) => core.statistics(r.name ?? '', r.version ?? '')),
    ModelInfer: modelInfer(core),
    ModelStreamInfer: (call: Stream) => streamInfer(core, call),
    RepositoryIndex: unary(async (r: RepoRequest) => {
      oneRepository(r);
      const rows = await core.repositoryIndex(r.ready === true);
      return {
        models: rows.map((m) => ({
          name: m.name,
          version: m.version ?? '',
          state: m.state ?? '',
          reason: m.reason ?? '',
        })),
      };
    }),
    RepositoryModelLoad: unary(async (r: RepoRequest) => {
      oneRepository(r);
      await core.loadModel(r.model_name, loadParameters(r.parameters));
      return {};
    }),
    RepositoryModelUnload: unary(async (r: RepoRequest) => {
      oneRepository(r);
      const dependents = r.parameters?.unload_dependents;
      if (dependents && dependents.parameter_choice !== 'bool_param') throw Errors.unloadDependentsType();
      await core.unloadModel(r.model_name);
      return {};
    }),
  };
  const service = tolerantDecoders(inferenceService());
  const unimplemented: Unary = (_call, callback) => {
    const e = Errors.unsupported('this RPC');
    callback({ code: grpc.status.UNIMPLEMENTED, details: e.message });
  };
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const name of Object.keys(service)) implementation[name] = (handlers[name] ?? unimplemented) as never;
  server.addService(service, implementation);
  addHealthService(server, core, unimplemented);
  return server;
}

/**
 * ModelStreamInfer: each request answers on the stream, errors as error_message (streamErrorMessage); the
 * stream ends after all settle. Decoupled models: stream-decoupled.ts.
 */
function streamInfer(core: InferenceCore, call: Stream): void {
  let open = 0;
  let ended = false;
  // One signal for the stream: when the client cancels it, its queued requests are dropped.
  const abort = new AbortController();
  const maybeEnd = () => {
    if (ended && open === 0 && !abort.signal.aborted) call.end();
  };
  // Triton writes a non-decoupled model's stream answers in request order (stream_infer_handler.cc,
  // WriteResponseIfReady): requests run at once, and each answer waits until the one before it is written.
  let inOrder: Promise<unknown> = Promise.resolve();
  call.on('data', (msg: InferRequestMsg) => {
    open += 1;
    if (isDecoupledTarget(core, msg)) {
      // A decoupled model's responses go out as they are made, not in request order.
      streamDecoupled(core, msg, abort.signal, (m) => call.write(m)).finally(() => {
        open -= 1;
        maybeEnd();
      });
      return;
    }
    const outcome = Promise.resolve().then(() => core.infer(inferRequestOf(core, msg, abort.signal, true)));
    outcome.catch(() => {}); // handled in its turn below
    const turn = inOrder
      .then(() => outcome)
      .then(
        (result) => call.write({ infer_response: { ...toInferResponseMsg(result), parameters: FINAL } }),
        (err) => {
          if (err instanceof ResetFault) {
            // An injected reset fails the whole stream, as a dropped connection would.
            abort.abort();
            call.emit('error', { code: grpc.status.UNAVAILABLE, details: err.message });
            return;
          }
          if (abort.signal.aborted) return;
          call.write(streamErrorMessage(msg, asServerError(err)));
        },
      )
      .finally(() => {
        open -= 1;
        maybeEnd();
      });
    inOrder = turn.catch(() => {});
  });
  call.on('end', () => {
    ended = true;
    maybeEnd();
  });
  call.on('cancelled', () => abort.abort());
  call.on('error', () => {
    ended = true;
    abort.abort();
  });
}
