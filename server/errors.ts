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

/** Triton prefixes request errors with the request id when the client gave one. */
function req(id: string | undefined): string {
  return id ? `[request id: ${id}] ` : '';
}

/** Triton's DimsListToString: "[-1,3,224,224]". */
export function dimsToString(dims: readonly number[]): string {
  return `[${dims.join(',')}]`;
}

/**
 * A client's value as an error message shows it, cut short. Arrays and objects are described, not printed:
 * JSON.stringify recurses, and a value nested 100,000 deep would overflow the stack.
 */
export function preview(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value !== null && typeof value === 'object') return 'an object';
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
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
  unknownInput: (id: string | undefined, input: string, model: string) =>
    new ServerError('INVALID_ARG', `${req(id)}unexpected inference input '${input}' for model '${model}'`),
  unknownOutput: (id: string | undefined, output: string, model: string) =>
    new ServerError('INVALID_ARG', `${req(id)}unexpected inference output '${output}' for model '${model}'`),
  duplicateInput: (id: string | undefined, input: string) =>
    new ServerError('INVALID_ARG', `${req(id)}input '${input}' already exists in request`),
  inputCount: (id: string | undefined, model: string, expected: string[], got: string[]) => {
    const missing = expected.filter((n) => !got.includes(n));
    const list = (names: string[]) => `[${names.map((n) => `'${n}'`).join(',')}]`;
    return new ServerError(
      'INVALID_ARG',
      `${req(id)}expected ${expected.length} inputs but got ${got.length} inputs for model '${model}'. ` +
        `Got inputs ${list(got)}, but missing required inputs ${list(missing)}. Please provide all required inputs.`,
    );
  },
  datatype: (id: string | undefined, input: string, got: string, model: string, expected: string) =>
    new ServerError(
      'INVALID_ARG',
      `${req(id)}inference input '${input}' data-type is '${got}', but model '${model}' expects '${expected}'`,
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
  queueFull: () => new ServerError('UNAVAILABLE', 'Exceeds maximum queue size'),
  timeout: () => new ServerError('UNAVAILABLE', 'Request timeout expired'),
  badRequest: (message: string) => new ServerError('INVALID_ARG', message),
  bodyTooLarge: (limit_bytes: number) =>
    new ServerError(
      'TOO_LARGE',
      `request body is larger than the server's limit of ${limit_bytes} bytes; raise --http-max-input-size`,
    ),
  inflatedTooLarge: (encoding: string, limit_bytes: number) =>
    new ServerError(
      'TOO_LARGE',
      `${encoding} request body inflates past the server's limit of ${limit_bytes} bytes; send it smaller or raise --http-max-input-size`,
    ),
  tooDeep: (input: string, max: number) =>
    new ServerError(
      'INVALID_ARG',
      `'data' of input '${input}' is nested deeper than ${max} levels; send it flat or nested as its shape`,
    ),
  badClassification: (output: string, got: unknown) =>
    new ServerError(
      'INVALID_ARG',
      `classification of output '${output}' must be an integer >= 0 (0 = off), got ${preview(got)}`,
    ),
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
  notFound: (path: string) => new ServerError('NOT_FOUND', `Not Found: no endpoint for ${path}`),
  unsupported: (what: string) => new ServerError('UNSUPPORTED', `${what} is not supported`),
  modelControlDisabled: () =>
    new ServerError('UNAVAILABLE', 'explicit model load / unload is not allowed if polling is enabled'),
  serverStopping: () => new ServerError('UNAVAILABLE', 'Server is stopping: no new requests are accepted'),
  internal: (message: string) => new ServerError('INTERNAL', message),
};
