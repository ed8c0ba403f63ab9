/**
 * A KServe v2 gRPC client on k6/net/grpc. Construct it in the init context (it loads
 * the protos there, as k6 requires); it connects lazily on the first call, in VU code.
 * Calls use asyncInvoke, and infer has a blocking form for real k6 (invoke); request messages are
 * built once per payload (prepareInfer).
 */
import encoding from 'k6/encoding';
import grpc from 'k6/net/grpc';
import type { DecodeOptions } from '../tensor/codec.ts';
import {
  buildGrpcInferRequest,
  decodeGrpcInferResponse,
  type GrpcInferRequest,
  type GrpcRequestOptions,
  grpcMethod,
  readStreamInferResponse,
} from './grpc-messages.ts';
import { deepFreeze } from './freeze.ts';
import { normalizeModelMetadata, normalizeServerMetadata } from './metadata.ts';
import { type ModelStats, normalizeStatistics } from './stats.ts';
import type { InferInput, InferResult, ModelMetadata, ServerMetadata } from './types.ts';

/** Client settings. */
export interface KServeGrpcOptions {
  /** host:port of the gRPC endpoint, e.g. 127.0.0.1:8001. */
  address: string;
  /** Directories holding grpc_service.proto, relative to the running script. @default ['../proto'] */
  protoDirs?: string[];
  /** Plaintext (no TLS). @default true */
  plaintext?: boolean;
  /** Connect and call timeout. @default '60s' */
  timeout?: string | number;
  /** Largest response accepted; big output tensors need more than gRPC's 4 MiB default. @default 256 MiB */
  maxReceiveSize_bytes?: number;
  /** Largest request sent. @default 256 MiB */
  maxSendSize_bytes?: number;
  /** Metadata (gRPC headers) sent with every call. @default {} */
  metadata?: Record<string, string>;
  /** Tags added to every call's metrics. @default {} */
  tags?: Record<string, string>;
}

/** Per-call infer settings. */
export interface GrpcInferParams {
  tags?: Record<string, string>;
  timeout?: string | number;
  /** Drop the response message inside k6 (fastest; outputs() then throws). @default false */
  discardResponse?: boolean;
}

/** The outcome of one ModelInfer call; outputs are decoded only when asked. */
export interface GrpcInferCall {
  response: grpc.Response;
  ok: boolean;
  error(): string | undefined;
  outputs(options?: DecodeOptions): InferResult;
}

/** A ModelInfer request bound once for the measured loop (see KServeHttp's BoundHttpInfer). */
export interface BoundGrpcInfer {
  /** Sends it; undefined on status OK, else what went wrong. Blocking (real k6 only). */
  sendSync(): string | undefined;
  /** The same through asyncInvoke. */
  send(): Promise<string | undefined>;
}

/** One ModelStreamInferResponse delivered to a stream handler. */
export interface StreamInferEvent {
  /** Error message the server put on the stream for one request. */
  error?: string;
  id?: string;
  /** Milliseconds from write() of the request with this id to its response (Date.now resolution). */
  latency_ms?: number;
  outputs(options?: DecodeOptions): InferResult;
}

/** Callbacks of an infer stream. */
export interface StreamHandlers {
  onResponse?: (event: StreamInferEvent) => void;
  /** Stream-level failure (the stream is over). */
  onError?: (error: { code: number; message: string }) => void;
  onEnd?: () => void;
}

export const DEFAULT_GRPC_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** KServe v2 gRPC client for k6 scenarios. */
export class KServeGrpc {
  readonly client: grpc.Client;
  readonly #options: KServeGrpcOptions;
  #connected = false;

  /** Loads the protos: call in the init context. */
  constructor(options: KServeGrpcOptions) {
    if (!/^[^/\s]+:\d+$/.test(options.address ?? '')) {
      throw new Error(`invalid gRPC address "${options.address}"; expected host:port, e.g. 127.0.0.1:8001`);
    }
    this.#options = options;
    this.client = new grpc.Client();
    this.client.load(options.protoDirs ?? ['../proto'], 'grpc_service.proto');
  }

  /** Connects once per VU; later calls do nothing. */
  connect(): void {
    if (this.#connected) return;
    this.client.connect(this.#options.address, {
      plaintext: this.#options.plaintext ?? true,
      timeout: this.#options.timeout ?? '60s',
      maxReceiveSize: this.#options.maxReceiveSize_bytes ?? DEFAULT_GRPC_MAX_MESSAGE_BYTES,
      maxSendSize: this.#options.maxSendSize_bytes ?? DEFAULT_GRPC_MAX_MESSAGE_BYTES,
    });
    this.#connected = true;
  }

  close(): void {
    if (this.#connected) this.client.close();
    this.#connected = false;
  }

  async serverLive(): Promise<boolean> {
    return Boolean((await this.#call('ServerLive', {}))['live']);
  }

  async serverReady(): Promise<boolean> {
    return Boolean((await this.#call('ServerReady', {}))['ready']);
  }

  async modelReady(model: string, version = ''): Promise<boolean> {
    return Boolean((await this.#call('ModelReady', { name: model, version }))['ready']);
  }

  async serverMetadata(): Promise<ServerMetadata> {
    return normalizeServerMetadata(await this.#call('ServerMetadata', {}));
  }

  async modelMetadata(model: string, version = ''): Promise<ModelMetadata> {
    return normalizeModelMetadata(await this.#call('ModelMetadata', { name: model, version }));
  }

  /** The model configuration message (protojson form: camelCase, int64 as strings). */
  async modelConfig(model: string, version = ''): Promise<Record<string, unknown>> {
    return ((await this.#call('ModelConfig', { name: model, version }))['config'] ?? {}) as Record<
      string,
      unknown
    >;
  }

  /** ModelStatistics, normalised (see stats.ts); no model: every model. */
  async statistics(model = '', version = ''): Promise<ModelStats[]> {
    return normalizeStatistics(await this.#call('ModelStatistics', { name: model, version }));
  }

  /** Builds a ModelInferRequest once per payload, base64-encoding with k6's native encoder. */
  prepareInfer(
    model: string,
    inputs: readonly InferInput[],
    options: GrpcRequestOptions = {},
  ): GrpcInferRequest {
    // Frozen: the Node runtime then encodes it once (see lib/kserve/freeze.ts); nothing changes it later.
    return deepFreeze(buildGrpcInferRequest(model, inputs, { encodeBase64: nativeBase64Encode, ...options }));
  }

  /** ModelInfer with a prepared request; a server that cannot be reached is an UNAVAILABLE outcome. */
  async infer(request: GrpcInferRequest, params: GrpcInferParams = {}): Promise<GrpcInferCall> {
    try {
      this.connect();
      return inferCall(
        await this.client.asyncInvoke(grpcMethod('ModelInfer'), request, this.#params(params)),
      );
    } catch (error) {
      return inferCall(unreachable(error));
    }
  }

  /** The blocking form of infer(), for real k6 (the Node runtime refuses blocking calls). */
  inferSync(request: GrpcInferRequest, params: GrpcInferParams = {}): GrpcInferCall {
    try {
      this.connect();
      return inferCall(this.client.invoke(grpcMethod('ModelInfer'), request, this.#params(params)));
    } catch (error) {
      return inferCall(unreachable(error));
    }
  }

  /** Binds a prepared request for the measured loop: params built and frozen once, responses discarded. */
  bind(request: GrpcInferRequest): BoundGrpcInfer {
    const method = grpcMethod('ModelInfer');
    const params = deepFreeze(this.#params({ discardResponse: true }));
    const failure = (response: grpc.Response) =>
      response.status === grpc.StatusOK ? undefined : grpcErrorText(response);
    return {
      sendSync: () => {
        try {
          this.connect();
          return failure(this.client.invoke(method, request, params));
        } catch (error) {
          return failure(unreachable(error));
        }
      },
      send: async () => {
        try {
          this.connect();
          return failure(await this.client.asyncInvoke(method, request, params));
        } catch (error) {
          return failure(unreachable(error));
        }
      },
    };
  }

  /** Opens a ModelStreamInfer stream; write prepared requests to it. */
  openStream(handlers: StreamHandlers, params: GrpcInferParams = {}): InferStream {
    this.connect();
    return new InferStream(
      new grpc.Stream(this.client, grpcMethod('ModelStreamInfer'), this.#params(params)),
      handlers,
    );
  }

  /** Call params; empty metadata and tags are left out, as k6 reads each one per call. */
  #params(params: GrpcInferParams): grpc.Params {
    const metadata = { ...this.#options.metadata };
    const tags = { ...this.#options.tags, ...params.tags };
    const out: grpc.Params = {
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
      ...(Object.keys(tags).length > 0 ? { tags } : {}),
      timeout: params.timeout ?? this.#options.timeout ?? '60s',
    };
    if (params.discardResponse) out.discardResponseMessage = true;
    return out;
  }

  async #call(method: string, request: object): Promise<Record<string, unknown>> {
    this.connect();
    const response = await this.client.asyncInvoke(grpcMethod(method), request, this.#params({}));
    if (response.status !== grpc.StatusOK) {
      throw new Error(`gRPC ${method} on ${this.#options.address} failed: ${grpcErrorText(response)}`);
    }
    return (response.message ?? {}) as Record<string, unknown>;
  }
}

/** A ModelStreamInfer stream: write() requests, responses arrive through the handlers. */
export class InferStream {
  readonly #stream: grpc.Stream;
  readonly #sentAt = new Map<string, number>();
  #nextId = 0;

  constructor(stream: grpc.Stream, handlers: StreamHandlers) {
    this.#stream = stream;
    stream.on('data', (message) => {
      const read = readStreamInferResponse(message);
      const event: StreamInferEvent = {
        outputs: (options?: DecodeOptions) => {
          if (read.error) throw new Error(`stream infer failed: ${read.error}`);
          return decodeGrpcInferResponse(read.response, { decodeBase64: nativeBase64Decode, ...options });
        },
      };
      if (read.error) event.error = read.error;
      if (read.id !== undefined) {
        event.id = read.id;
        const sent = this.#sentAt.get(read.id);
        if (sent !== undefined) {
          event.latency_ms = Date.now() - sent;
          this.#sentAt.delete(read.id);
        }
      }
      handlers.onResponse?.(event);
    });
    stream.on('error', (error) => {
      const failure = error as { code?: number; message?: string };
      handlers.onError?.({
        code: failure.code ?? grpc.StatusUnknown,
        message: failure.message ?? String(error),
      });
    });
    stream.on('end', () => handlers.onEnd?.());
  }

  /** Sends a request; it gets a fresh id (so its response can be matched) unless `id` is given. */
  write(request: GrpcInferRequest, id?: string): string {
    const requestId = id ?? `s${this.#nextId++}`;
    this.#sentAt.set(requestId, Date.now());
    // A shallow copy: the large base64 strings are shared, only the id differs.
    this.#stream.write({ ...request, id: requestId });
    return requestId;
  }

  /** Requests still waiting for a response. */
  get pending(): number {
    return this.#sentAt.size;
  }

  /**
   * Half-closes the stream: no more writes; responses still arrive. Call it after the last write, not from a
   * response handler: real k6 can run a response after the stream closed, and end() then hangs the VU.
   */
  end(): void {
    this.#stream.end();
  }
}

/**
 * A call that never reached the server (connect, or the call, threw: nobody listens there) as gRPC's
 * UNAVAILABLE response: the measured loop counts a failed request, not an iteration error per request.
 */
function unreachable(error: unknown): grpc.Response {
  const message = error instanceof Error ? error.message : String(error);
  return { status: grpc.StatusUnavailable, error: { message }, message: null } as unknown as grpc.Response;
}

function inferCall(response: grpc.Response): GrpcInferCall {
  let parsed: InferResult | undefined;
  const ok = response.status === grpc.StatusOK;
  return {
    response,
    ok,
    error: () => (ok ? undefined : grpcErrorText(response)),
    outputs: (options?: DecodeOptions) => {
      if (!ok) throw new Error(`infer failed: ${grpcErrorText(response)}`);
      if (!response.message) throw new Error('infer response message was discarded (discardResponse: true)');
      if (!parsed)
        parsed = decodeGrpcInferResponse(response.message, { decodeBase64: nativeBase64Decode, ...options });
      return parsed;
    },
  };
}

function grpcErrorText(response: grpc.Response): string {
  const error = response.error as { message?: string } | null | undefined;
  return `status ${response.status}${error?.message ? `: ${error.message}` : ''}`;
}

/** k6's Go base64 is far faster than JS for multi-megabyte tensors. */
function nativeBase64Encode(bytes: Uint8Array): string {
  const exact =
    bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
      ? bytes.buffer
      : bytes.slice().buffer;
  return encoding.b64encode(exact as ArrayBuffer, 'std');
}

function nativeBase64Decode(text: string): Uint8Array {
  return new Uint8Array(encoding.b64decode(text, 'std'));
}
