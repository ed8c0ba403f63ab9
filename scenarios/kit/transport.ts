/**
 * One face for the three ways a scenario talks to the server (binary HTTP, JSON HTTP, gRPC),
 * so exec functions never branch on the protocol. Requests are prepared once per sample, in
 * the init context; the hot path only sends them.
 */
import { KServeGrpc } from '../../lib/kserve/grpc.ts';
import type { GrpcInferRequest } from '../../lib/kserve/grpc-messages.ts';
import { KServeHttp, type PreparedHttpRequest } from '../../lib/kserve/http.ts';
import { grpcNoResponse, httpNoResponse } from '../../lib/kserve/no-response.ts';
import type { ModelStats } from '../../lib/kserve/stats.ts';
import type { InferInput, InferResult, ModelMetadata, ParameterValue } from '../../lib/kserve/types.ts';
import type { Settings } from './settings.ts';

/** One sent request's outcome. */
export interface InferOutcome {
  ok: boolean;
  error(): string | undefined;
  outputs(): InferResult;
}

/** A prepared request bound for the measured loop; send*() return the failure, if any. */
export interface BoundRequest {
  sendSync(): string | undefined;
  send(): Promise<string | undefined>;
}

/** What exec functions need from a protocol. */
export interface Transport {
  /** Where requests go, for error messages. */
  readonly target: string;
  /** Builds a request; `parameters` are its request-level parameters (sequence_id, sequence_start...). */
  prepare(inputs: readonly InferInput[], parameters?: Record<string, ParameterValue>): unknown;
  /** Sends a prepared request; tags are added to its metrics. */
  infer(prepared: unknown, tags?: Record<string, string>): Promise<InferOutcome>;
  /** infer() as a blocking call, for real k6. */
  inferSync(prepared: unknown, tags?: Record<string, string>): InferOutcome;
  /** Binds a prepared request for the measured loop. */
  bind(prepared: unknown): BoundRequest;
  /** Whether a failure (as send() words it) got no answer from the server: refused, reset, timed out. */
  noResponse(error: string): boolean;
  serverLive(): Promise<boolean>;
  modelReady(): Promise<boolean>;
  modelMetadata(): Promise<ModelMetadata>;
  modelConfig(): Promise<Record<string, unknown>>;
  statistics(): Promise<ModelStats[]>;
}

/** Builds the transport the settings ask for; call in the init context (gRPC loads its protos there). */
export function createTransport(settings: Settings): Transport {
  const model = settings.modelName;
  const version = settings.modelVersion || undefined;
  if (settings.protocol === 'grpc') {
    const client = new KServeGrpc({
      address: settings.grpcUrl,
      metadata: settings.headers,
      plaintext: !settings.grpcTls,
    });
    return {
      target: `${settings.grpcTls ? 'grpcs' : 'grpc'}://${settings.grpcUrl}`,
      prepare: (inputs, parameters) =>
        client.prepareInfer(model, inputs, {
          ...(version ? { version } : {}),
          ...(parameters ? { parameters } : {}),
        }),
      infer: (prepared, tags) => client.infer(prepared as GrpcInferRequest, tags ? { tags } : {}),
      inferSync: (prepared, tags) => client.inferSync(prepared as GrpcInferRequest, tags ? { tags } : {}),
      bind: (prepared) => client.bind(prepared as GrpcInferRequest),
      noResponse: grpcNoResponse,
      serverLive: () => client.serverLive(),
      modelReady: () => client.modelReady(model, version),
      modelMetadata: () => client.modelMetadata(model, version),
      modelConfig: () => client.modelConfig(model, version),
      statistics: () => client.statistics(model, version),
    };
  }
  const client = new KServeHttp({ url: settings.url, headers: settings.headers });
  const json = settings.protocol === 'http-json';
  return {
    target: settings.url,
    prepare: (inputs, parameters) => {
      const options = parameters ? { parameters } : {};
      return json ? client.prepareJson(inputs, options) : client.prepareBinary(inputs, options);
    },
    infer: (prepared, tags) => client.infer(model, prepared as PreparedHttpRequest, { version, tags }),
    inferSync: (prepared, tags) =>
      client.inferSync(model, prepared as PreparedHttpRequest, { version, tags }),
    bind: (prepared) => client.bind(model, prepared as PreparedHttpRequest, version),
    noResponse: httpNoResponse,
    serverLive: () => client.serverLive(),
    modelReady: () => client.modelReady(model, version),
    modelMetadata: () => client.modelMetadata(model, version),
    modelConfig: () => client.modelConfig(model, version),
    statistics: () => client.statistics(model, version),
  };
}
