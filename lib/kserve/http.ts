/**
 * A small KServe v2 REST client on k6/http. Metadata calls go through http.asyncRequest (the Node
 * runtime has no synchronous requests); infer has a blocking form too, for real k6, where it
 * costs less than a promise per request. Infer bodies are prepared once per payload; responses are
 * parsed only when outputs() is called.
 */
import http, { type Params, type RefinedResponse, type ResponseType } from 'k6/http';
import type { DecodeOptions } from '../tensor/codec.ts';
import { type BinaryInferRequest, buildBinaryInferRequest } from './binary.ts';
import { buildJsonInferRequest, type JsonInferInput, type JsonInferRequest } from './json.ts';
import { normalizeModelMetadata, normalizeServerMetadata } from './metadata.ts';
import { deepFreeze } from './freeze.ts';
import { joinUrl, KSERVE_PATHS } from './paths.ts';
import {
  contentTypeProblem,
  httpErrorMessage,
  INFER_CONTENT_TYPES,
  parseHttpInferResponse,
} from './response.ts';
import { type ModelStats, normalizeStatistics } from './stats.ts';
import type { InferInput, InferRequestOptions, InferResult, ModelMetadata, ServerMetadata } from './types.ts';

/** Client settings. */
export interface KServeHttpOptions {
  /** Server base URL, e.g. http://127.0.0.1:8000. */
  url: string;
  /** Headers sent with every request. @default {} */
  headers?: Record<string, string>;
  /** Request timeout (k6 duration string or milliseconds). @default '60s' */
  timeout?: string | number;
  /** Tags added to every request's metrics. @default {} */
  tags?: Record<string, string>;
}

/** A prepared infer request body with its headers (binary or JSON form). */
export type PreparedHttpRequest = Pick<BinaryInferRequest, 'body' | 'headers'> | JsonInferRequest;

/** Per-call infer settings. */
export interface HttpInferParams {
  version?: string;
  /** Extra metric tags for this call. */
  tags?: Record<string, string>;
  timeout?: string | number;
  /** 'none' discards the body (fastest; outputs() then throws). @default 'binary' */
  responseType?: Extract<ResponseType, 'binary' | 'none'>;
}

/** The outcome of one infer call: the k6 Response, and outputs parsed on demand. */
export interface HttpInferCall {
  response: RefinedResponse<'binary' | 'none'>;
  /** HTTP 200. */
  ok: boolean;
  /** The server's error message on a non-200 status, or k6's transport error. */
  error(): string | undefined;
  /** Parses the outputs (once; later calls return the same result). Throws on a failed call. */
  outputs(options?: DecodeOptions): InferResult;
}

/**
 * An infer request bound once for the measured loop: URL, body and a frozen params object are built
 * ahead, so a send is the k6 call and a status comparison, nothing else.
 */
export interface BoundHttpInfer {
  /** Sends it; undefined on HTTP 200, else what went wrong. Blocking (real k6 only). */
  sendSync(): string | undefined;
  /** The same through http.asyncRequest. */
  send(): Promise<string | undefined>;
}

/** Default request timeout. */
export const DEFAULT_HTTP_TIMEOUT = '60s';

/** KServe v2 REST client for k6 scenarios. */
export class KServeHttp {
  readonly url: string;
  readonly #headers: Record<string, string>;
  readonly #timeout: string | number;
  readonly #tags: Record<string, string>;

  constructor(options: KServeHttpOptions) {
    if (!/^https?:\/\/[^/]/.test(options.url ?? '')) {
      throw new Error(
        `invalid KServe URL "${options.url}"; expected http(s)://host:port, e.g. http://127.0.0.1:8000`,
      );
    }
    this.url = options.url.replace(/\/+$/, '');
    this.#headers = { ...options.headers };
    this.#timeout = options.timeout ?? DEFAULT_HTTP_TIMEOUT;
    this.#tags = { ...options.tags };
  }

  /** GET /v2/health/live: true on HTTP 200. */
  async serverLive(): Promise<boolean> {
    return (await this.#get(KSERVE_PATHS.serverLive(), 'text')).status === 200;
  }

  /** GET /v2/health/ready: true on HTTP 200. */
  async serverReady(): Promise<boolean> {
    return (await this.#get(KSERVE_PATHS.serverReady(), 'text')).status === 200;
  }

  /** GET /v2/models/M[/versions/V]/ready: true on HTTP 200. */
  async modelReady(model: string, version?: string): Promise<boolean> {
    return (await this.#get(KSERVE_PATHS.modelReady(model, version), 'text')).status === 200;
  }

  /** GET /v2. */
  async serverMetadata(): Promise<ServerMetadata> {
    return normalizeServerMetadata(await this.#getJson(KSERVE_PATHS.serverMetadata()));
  }

  /** GET /v2/models/M[/versions/V]. */
  async modelMetadata(model: string, version?: string): Promise<ModelMetadata> {
    return normalizeModelMetadata(await this.#getJson(KSERVE_PATHS.modelMetadata(model, version)));
  }

  /** GET /v2/models/M[/versions/V]/config: Triton's model configuration JSON, as returned. */
  async modelConfig(model: string, version?: string): Promise<Record<string, unknown>> {
    return (await this.#getJson(KSERVE_PATHS.modelConfig(model, version))) as Record<string, unknown>;
  }

  /** GET /v2/models[/M[/versions/V]]/stats, normalised (see stats.ts). */
  async statistics(model?: string, version?: string): Promise<ModelStats[]> {
    return normalizeStatistics(await this.#getJson(KSERVE_PATHS.modelStatistics(model, version)));
  }

  /** Builds a binary-extension request once per payload, with this client's headers merged in. */
  prepareBinary(inputs: readonly InferInput[], options: InferRequestOptions = {}): PreparedHttpRequest {
    const built = buildBinaryInferRequest(inputs, options);
    return { body: built.body, headers: { ...this.#headers, ...built.headers } };
  }

  /** Builds a JSON request once per payload, with this client's headers merged in. */
  prepareJson(
    inputs: readonly (InferInput | JsonInferInput)[],
    options: InferRequestOptions = {},
  ): PreparedHttpRequest {
    const built = buildJsonInferRequest(inputs, options);
    return { body: built.body, headers: { ...this.#headers, ...built.headers } };
  }

  /** POST /v2/models/M[/versions/V]/infer with a prepared body. */
  async infer(
    model: string,
    request: PreparedHttpRequest,
    params: HttpInferParams = {},
  ): Promise<HttpInferCall> {
    const url = this.url + KSERVE_PATHS.infer(model, params.version);
    return inferCall(await http.asyncRequest('POST', url, request.body, this.#inferParams(request, params)));
  }

  /** The blocking form of infer(), for real k6 (the Node runtime refuses blocking calls). */
  inferSync(model: string, request: PreparedHttpRequest, params: HttpInferParams = {}): HttpInferCall {
    const url = this.url + KSERVE_PATHS.infer(model, params.version);
    return inferCall(http.request('POST', url, request.body, this.#inferParams(request, params)));
  }

  /**
   * Binds a prepared request for the measured loop: params built and frozen once, response bodies
   * discarded (the status and Content-Type are all a measured request checks).
   */
  bind(model: string, request: PreparedHttpRequest, version?: string): BoundHttpInfer {
    const url = this.url + KSERVE_PATHS.infer(model, version);
    const { body } = request;
    const params = deepFreeze(this.#inferParams(request, { responseType: 'none' }));
    return {
      sendSync: () => failure(http.post(url, body, params)),
      send: async () => failure(await http.asyncRequest('POST', url, body, params)),
    };
  }

  /** Infer params; k6's defaults (60 s timeout, no tags) are left out, as k6 parses each one per request. */
  #inferParams(request: PreparedHttpRequest, params: HttpInferParams): Params {
    const timeout = params.timeout ?? this.#timeout;
    const tags = { ...this.#tags, ...params.tags };
    return {
      headers: { ...request.headers },
      ...(timeout === DEFAULT_HTTP_TIMEOUT ? {} : { timeout }),
      ...(Object.keys(tags).length > 0 ? { tags } : {}),
      responseType: params.responseType ?? 'binary',
    };
  }

  async #get<RT extends ResponseType>(path: string, responseType: RT): Promise<RefinedResponse<RT>> {
    return http.asyncRequest('GET', joinUrl(this.url, path), null, {
      headers: this.#headers,
      timeout: this.#timeout,
      tags: this.#tags,
      responseType,
    });
  }

  async #getJson(path: string): Promise<unknown> {
    const response = await this.#get(path, 'text');
    if (response.status !== 200) {
      const reason =
        response.status === 0
          ? response.error
          : `HTTP ${response.status}: ${httpErrorMessage(response) ?? ''}`;
      throw new Error(`GET ${this.url}${path} failed: ${reason}`.trim());
    }
    try {
      return JSON.parse(String(response.body));
    } catch {
      throw new Error(`GET ${this.url}${path} returned a body that is not JSON`);
    }
  }
}

const [JSON_TYPE, BINARY_TYPE] = INFER_CONTENT_TYPES;

/**
 * undefined for HTTP 200 with an infer response's Content-Type; else why not: the status, k6's transport error
 * for a request that got no answer, or an invalid response. The measured path's check on every response: two
 * string comparisons when the server sends Triton's exact types.
 */
function failure(response: {
  status: number;
  error: string;
  headers: Record<string, string>;
}): string | undefined {
  if (response.status === 200) {
    const type = response.headers['Content-Type'];
    return type === JSON_TYPE || type === BINARY_TYPE ? undefined : contentTypeProblem(type);
  }
  return response.status === 0 ? response.error || 'request failed' : `HTTP ${response.status}`;
}

function inferCall(response: RefinedResponse<'binary' | 'none'>): HttpInferCall {
  let parsed: InferResult | undefined;
  const ok = response.status === 200;
  return {
    response,
    ok,
    error: () => {
      if (ok) return undefined;
      if (response.status === 0) return response.error || 'request failed';
      return `HTTP ${response.status}: ${httpErrorMessage(response) ?? 'no error message'}`;
    },
    outputs: (options?: DecodeOptions) => {
      if (!parsed) parsed = parseHttpInferResponse(response, options);
      return parsed;
    },
  };
}
