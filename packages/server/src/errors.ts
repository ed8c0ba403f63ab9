/**
 * One error catalog for both protocols: each error has Triton's status code, which maps to the HTTP status
 * Triton's HTTP frontend answers and to the gRPC status its gRPC frontend answers. Messages follow Triton's words.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';

/** Triton's TRITONSERVER_Error codes, plus the HTTP frontend's body-size limit. */
export type ErrorCode =
  | 'INVALID_ARG'
  | 'NOT_FOUND'
  | 'UNAVAILABLE'
  | 'INTERNAL'
  | 'UNSUPPORTED'
  | 'ALREADY_EXISTS'
  | 'TOO_LARGE'
  | 'CANCELLED'
  | 'TIMEOUT';

/** HTTP status and gRPC status per code, as Triton's frontends map them. */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, { http: number; grpc: GrpcStatus }>> = {
  INVALID_ARG: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  UNAVAILABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  INTERNAL: { http: 500, grpc: GrpcStatus.INTERNAL },
  // http_server.cc HttpCodeFromError: UNSUPPORTED is 501 Not Implemented, ALREADY_EXISTS has no status of its own (400).
  UNSUPPORTED: { http: 501, grpc: GrpcStatus.UNIMPLEMENTED },
  ALREADY_EXISTS: { http: 400, grpc: GrpcStatus.ALREADY_EXISTS },
  TOO_LARGE: { http: 413, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  // Triton has no HTTP status for a cancelled request; 499 is the de facto "client closed request".
  CANCELLED: { http: 499, grpc: GrpcStatus.CANCELLED },
  // The HTTP frontend's header/body deadline (Node answers 408 on its own; the gRPC side has none).
  TIMEOUT: { http: 408, grpc: GrpcStatus.DEADLINE_EXCEEDED },
};

/** An error the server answers with; `code` decides the HTTP and gRPC status. */
export class ServerError extends Error {
  readonly code: ErrorCode;
  /**
   * The request had entered its model's queue when it failed (timed out, cancelled, its backend failed).
   * Triton counts only these in the model's failure statistics, and answers them through the response
   * callback, which flags a stream answer final; a request refused before it was queued (malformed, invalid,
   * queue full) is answered by the frontend and counted nowhere.
   */
  queued = false;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'ServerError';
    this.code = code;
  }
  get httpStatus(): number {
    return STATUS_BY_CODE[this.code].http;
  }
  get grpcCode(): GrpcStatus {
    return STATUS_BY_CODE[this.code].grpc;
  }
}

/**
 * A model version that failed to load, with Triton's reason ("Invalid argument: <message>"): the repository index and
 * model table show the reason, the load API answers "version <v> is at UNAVAILABLE state: <reason>;\n".
 */
export class VersionLoadError extends Error {
  readonly version: string;
  constructor(version: string, reason: string) {
    super(reason);
    this.name = 'VersionLoadError';
    this.version = version;
  }
}

/** Any thrown value as a ServerError (unknown errors are INTERNAL). */
export function asServerError(err: unknown): ServerError {
  if (err instanceof ServerError) return err;
  return new ServerError('INTERNAL', err instanceof Error ? err.message : String(err));
}

/** Triton's LogRequest(): its core's request errors start with the request id, or <id_unknown> when none was given. */
export function requestTag(id: string | undefined): string {
  return `[request id: ${id || '<id_unknown>'}] `;
}

const req = requestTag;

/** Triton's DimsListToString: "[-1,3,224,224]". */
export function dimsToString(dims: readonly number[]): string {
  return `[${dims.join(',')}]`;
}

/** Every error the server raises, named by cause. */
export const Errors = {
  unknownModel: (model: string, version?: string) =>
    new ServerError(
      'NOT_FOUND',
      version
        ? `Request for unknown model: '${model}' version ${version} is not found`
        : `Request for unknown model: '${model}' is not found`,
    ),
  modelNotReady: (model: string, version?: string) =>
    version
      ? new ServerError(
          'UNAVAILABLE',
          `Request for unknown model: '${model}' version ${version} is not at ready state`,
        )
      : new ServerError('NOT_FOUND', `Request for unknown model: '${model}' has no available versions`),
  // The model's own lookups (Triton's Model::GetInput / GetOutput) carry no request id.
  unknownInput: (input: string, model: string) =>
    new ServerError('INVALID_ARG', `unexpected inference input '${input}' for model '${model}'`),
  unknownOutput: (output: string, model: string) =>
    new ServerError('INVALID_ARG', `unexpected inference output '${output}' for model '${model}'`),
  duplicateInput: (id: string | undefined, input: string) =>
    new ServerError('INVALID_ARG', `${req(id)}input '${input}' already exists in request`),
  inputCount: (
    id: string | undefined,
    model: string,
    config: readonly { name: string; optional: boolean }[],
    got: readonly string[],
  ) => {
    // Triton appends "'name'," per name and drops the last character: with nothing missing, the "[" goes
    // and the list prints as "]".
    const missing = config
      .filter((t) => !t.optional && !got.includes(t.name))
      .map((t) => `'${t.name}',`)
      .join('');
    const required = config.filter((t) => !t.optional).length;
    const expected =
      required === config.length
        ? `expected ${config.length} inputs`
        : `expected number of inputs between ${required} and ${config.length}`;
    return new ServerError(
      'INVALID_ARG',
      `${req(id)}${expected} but got ${got.length} inputs for model '${model}'. ` +
        `Got input(s) [${got.map((n) => `'${n}'`).join(',')}], but missing required input(s) ` +
        `${`[${missing}`.slice(0, -1)}]. Please provide all required input(s).`,
    );
  },
  /** `got` is the request's datatype as Triton prints it ('<invalid>' for a name it does not know). */
  datatype: (id: string | undefined, input: string, got: string, model: string, expected: string) =>
    new ServerError(
      'INVALID_ARG',
      `${req(id)}inference input '${input}' data-type is '${got}', but model '${model}' expects '${expected}'`,
    ),
  wildcardDim: (id: string | undefined, input: string, model: string, got: readonly number[]) =>
    new ServerError(
      'INVALID_ARG',
      `${req(id)}All input dimensions should be specified for input '${input}' for model '${model}', got ${dimsToString(got)}`,
    ),
  shape: (
    id: string | undefined,
    input: string,
    model: string,
    expected: number[],
    got: number[],
    batched: boolean,
  ) =>
    new ServerError(
      'INVALID_ARG',
      `${req(id)}unexpected shape for input '${input}' for model '${model}'. Expected ${dimsToString(expected)}, ` +
        `got ${dimsToString(got)}. ` +
        (batched
          ? 'NOTE: Setting a non-zero max_batch_size in the model config requires a batch dimension to be ' +
            'prepended to each input shape. If you want to specify the full shape including the batch dim in ' +
            'your input dims config, try setting max_batch_size to zero. See the model configuration docs for ' +
            'more info on max_batch_size.'
          : ''),
    ),
  noBatchDim: (id: string | undefined, input: string, model: string) =>
    new ServerError(
      'INVALID_ARG',
      `${req(id)}input '${input}' has no shape but model requires batch dimension for '${model}'`,
    ),
  batchMismatch: (id: string | undefined, input: string, model: string) =>
    new ServerError(
      'INVALID_ARG',
      `${req(id)}input '${input}' batch size does not match other inputs for '${model}'`,
    ),
  batchTooLarge: (id: string | undefined, max: number, model: string) =>
    new ServerError('INVALID_ARG', `${req(id)}inference request batch-size must be <= ${max} for '${model}'`),
  byteSize: (id: string | undefined, input: string, model: string, expected: number, got: number) =>
    new ServerError(
      'INVALID_ARG',
      `${req(id)}input byte size mismatch for input '${input}' for model '${model}'. Expected ${expected}, got ${got}`,
    ),
  stringIndicator: (id: string | undefined, input: string, model: string, available: number) =>
    new ServerError(
      'INVALID_ARG',
      `${req(id)}incomplete string length indicator for inference input '${input}' for model '${model}', ` +
        `expecting 4 bytes but only ${available} bytes available. Please make sure the string length indicator is in one buffer.`,
    ),
  tooManyStrings: (id: string | undefined, count: number, input: string, model: string, expected: number) =>
    new ServerError(
      'INVALID_ARG',
      `${req(id)}unexpected number of string elements ${count} for inference input '${input}' for model '${model}', expecting ${expected}`,
    ),
  stringCount: (id: string | undefined, expected: number, input: string, model: string, got: number) =>
    new ServerError(
      'INVALID_ARG',
      `${req(id)}expected ${expected} string elements for inference input '${input}' for model '${model}', got ${got}`,
    ),
  rawInputCount: (model: string, configInputs: number) =>
    new ServerError(
      'INVALID_ARG',
      `${req('')}Raw request must only have 1 input (found 1) to be deduced but got ${configInputs} inputs in '${model}' model configuration`,
    ),
  rawShape: (input: string) =>
    new ServerError(
      'INVALID_ARG',
      `${req('')}The shape of the raw input '${input}' can not be deduced because there are more than one variable-sized dimension`,
    ),
  rawBytesShape: (input: string) =>
    new ServerError(
      'INVALID_ARG',
      `${req('')}For BYTE datatype raw input '${input}', the model must have input shape [1]`,
    ),
  queueFull: (id: string | undefined) =>
    new ServerError('UNAVAILABLE', `${req(id)}Exceeds maximum queue size`),
  timeout: () => new ServerError('UNAVAILABLE', 'Request timeout expired'),
  badRequest: (message: string) => new ServerError('INVALID_ARG', message),
  unknownSharedMemory: (region: string) =>
    new ServerError('NOT_FOUND', `Unable to find shared memory region: '${region}'`),
  /** A body that is not JSON, in rapidjson's words: Triton answers its JSON library's errors as internal (500). */
  jsonSyntax: (message: string, offset: number) =>
    new ServerError('INTERNAL', `failed to parse the request JSON buffer: ${message} at ${offset}`),
  /** A request field of the wrong JSON type, as Triton's JSON library refuses it (500). */
  jsonField: (context: string, detail: string) => new ServerError('INTERNAL', `${context}: ${detail}`),
  bodyTooLarge: (limit_bytes: number) =>
    new ServerError(
      'TOO_LARGE',
      `request body is larger than the server's limit of ${limit_bytes} bytes; raise --http-max-input-size`,
    ),
  /** `json`: the limit is the one on compressed JSON (http/body.ts), which no flag raises. */
  inflatedTooLarge: (encoding: string, limit_bytes: number, json = false) =>
    new ServerError(
      'TOO_LARGE',
      json
        ? `${encoding} request JSON inflates past the server's limit of ${limit_bytes} bytes for compressed JSON; send it uncompressed, its tensors in binary, or raise --http-max-inflated-json-size`
        : `${encoding} request body inflates past the server's limit of ${limit_bytes} bytes; send it smaller or raise --http-max-input-size`,
    ),
  /** A JSON body nested deeper than the server reads (checked over its bytes before parsing). */
  jsonTooDeep: (limit: number) =>
    new ServerError('INVALID_ARG', `request JSON nests deeper than the server's limit of ${limit} levels`),
  /** A JSON body with more elements or containers than the server reads. */
  jsonTooLarge: (what: string, limit: number) =>
    new ServerError('INVALID_ARG', `request JSON holds more ${what} than the server's limit of ${limit}`),
  cancelled: () => new ServerError('CANCELLED', 'Request was cancelled by the client before it executed'),
  requestTimeout: (limit_ms: number) =>
    new ServerError(
      'TIMEOUT',
      `request headers or body not received within ${limit_ms} ms; send faster or raise --http-request-timeout-ms`,
    ),
  tooManyConnections: (limit: number) =>
    new ServerError(
      'UNAVAILABLE',
      `too many open connections (limit ${limit}); close idle ones or raise --http-max-connections`,
    ),
  notFound: () => new ServerError('NOT_FOUND', 'Not Found'),
  /** An infer body's Content-Encoding Triton does not read (it also answers Accept-Encoding: gzip, deflate). */
  unsupportedEncoding: () => new ServerError('UNSUPPORTED', 'Unsupported compression type'),
  /** A decoupled model asked for one answer (Triton's words per endpoint). */
  decoupledHttp: () =>
    new ServerError('UNSUPPORTED', "HTTP end point doesn't support models with decoupled transaction policy"),
  decoupledModelInfer: () =>
    new ServerError('UNSUPPORTED', "ModelInfer RPC doesn't support models with decoupled transaction policy"),
  /** /generate got other than one response from a decoupled model. */
  generateNotOneResponse: () =>
    new ServerError(
      'INTERNAL',
      'generate expects model to produce exactly 1 response, use generate stream for model that generates various number of responses',
    ),
  unsupported: (what: string) => new ServerError('UNSUPPORTED', `${what} is not supported`),
  modelControlDisabled: () =>
    new ServerError('UNAVAILABLE', 'explicit model load / unload is not allowed if polling is enabled'),
  /** Triton says only "failed to poll" (the reason goes to its log); the embedded server adds the reason. */
  pollFailed: (model: string, reason: string) =>
    new ServerError('INTERNAL', `failed to load '${model}', failed to poll from model repository: ${reason}`),
  loadFailed: (model: string, detail: string) =>
    new ServerError('INVALID_ARG', `load failed for model '${model}': ${detail}\n`),
  repositoryName: () => new ServerError('UNSUPPORTED', "'repository_name' specification is not supported"),
  statsUnavailable: (model: string) =>
    new ServerError('INVALID_ARG', `requested model '${model}' is not available`),
  statsVersionUnavailable: (model: string) =>
    new ServerError('INVALID_ARG', `requested model version is not available for model '${model}'`),
  modelVersionNotReady: () => new ServerError('INVALID_ARG', 'Model version not ready'),
  /** Triton's JSON reader, when a repository request's member has the wrong type (HTTP). */
  jsonType: (expected: 'string' | 'boolean' | 'object') =>
    new ServerError(
      'INTERNAL',
      expected === 'object'
        ? 'attempt to get members for non-object'
        : `attempt to access JSON non-${expected} as ${expected}`,
    ),
  /** HTTP load parameters other than "config" and "file:..." (Triton's words). */
  unknownLoadParameterHttp: () =>
    new ServerError('INTERNAL', 'unexpected error on creating Triton parameter'),
  unrecognizedLoadParameter: (name: string) =>
    new ServerError('INVALID_ARG', `unrecognized load parameter '${name}'.`),
  loadParameterType: (name: string, expected: string) =>
    new ServerError('INVALID_ARG', `invalid value type for load parameter '${name}', expected ${expected}.`),
  unloadDependentsType: () =>
    new ServerError(
      'INVALID_ARG',
      "invalid value type for 'unload_dependents' parameter, expected bool_param.",
    ),
  // The sequence batcher's refusals (sequence_batch_scheduler.cc), in the order it checks them.
  sequenceBatchSize: (model: string) =>
    new ServerError(
      'INVALID_ARG',
      `inference request to model '${model}' must specify batch-size 1 due to requirements of sequence batcher`,
    ),
  sequenceNoCorrelationId: (model: string) =>
    new ServerError(
      'INVALID_ARG',
      `inference request to model '${model}' must specify a non-zero or non-empty correlation ID`,
    ),
  sequenceNoStart: (sequence: string, model: string) =>
    new ServerError(
      'INVALID_ARG',
      `inference request for sequence ${sequence} to model '${model}' must specify the START flag on the first request of the sequence`,
    ),
  /** A CORRID control input whose data_type is not the kind of id the request carries ('UINT64' or 'BYTES'). */
  sequenceCorrIdType: (
    id: string | undefined,
    control: string,
    got: string,
    model: string,
    expected: string,
  ) =>
    new ServerError(
      'INVALID_ARG',
      `${req(id)}sequence batching control '${control}' data-type is '${got}', but model '${model}' expects '${expected}'`,
    ),
  /** A backend that reads the correlation id as a number (identity) given a string id. */
  correlationIdNotUint: (id: string | undefined) =>
    new ServerError('INVALID_ARG', `${req(id)}correlation ID in request is not an unsigned int`),
  serverStopping: () => new ServerError('UNAVAILABLE', 'Server is stopping: no new requests are accepted'),
  internal: (message: string) => new ServerError('INTERNAL', message),
};
