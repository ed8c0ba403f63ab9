/**
 * KServe v2 clients for k6 scenarios. This entry imports k6 modules (http.ts, grpc.ts);
 * Node code and unit tests import the pure files (binary.ts, json.ts, response.ts,
 * grpc-messages.ts, outputs.ts, stats.ts, metadata.ts) directly.
 */
export { base64Decode, base64Encode } from './base64.ts';
export {
  type BinaryInferRequest,
  buildBinaryInferRequest,
  HEADER_LENGTH_HEADER,
  parseBinaryInferResponse,
} from './binary.ts';
export {
  buildGrpcInferRequest,
  decodeGrpcInferResponse,
  fromInferParameters,
  GRPC_SERVICE,
  type GrpcDecodeOptions,
  type GrpcInferParameter,
  type GrpcInferRequest,
  type GrpcRequestOptions,
  grpcMethod,
  readStreamInferResponse,
  type StreamInferMessage,
  toInferParameter,
  toInferParameters,
} from './grpc-messages.ts';
export {
  DEFAULT_GRPC_MAX_MESSAGE_BYTES,
  type GrpcInferCall,
  type GrpcInferParams,
  InferStream,
  KServeGrpc,
  type KServeGrpcOptions,
  type StreamHandlers,
  type StreamInferEvent,
} from './grpc.ts';
export {
  DEFAULT_HTTP_TIMEOUT,
  type HttpInferCall,
  type HttpInferParams,
  KServeHttp,
  type KServeHttpOptions,
  type PreparedHttpRequest,
} from './http.ts';
export {
  buildJsonInferRequest,
  type JsonInferInput,
  type JsonInferRequest,
  parseJsonInferResponse,
} from './json.ts';
export { normalizeModelMetadata, normalizeServerMetadata } from './metadata.ts';
export { type OutputCheckOptions, outputProblems, outputsMatch } from './outputs.ts';
export { headerValue, joinUrl, KSERVE_PATHS, modelPath } from './paths.ts';
export {
  type HttpResponseLike,
  httpErrorMessage,
  type InferResponseJson,
  parseHttpInferResponse,
  parseInferResponseBody,
  parseInferResponseJson,
} from './response.ts';
export {
  type BatchStats,
  INFER_STAGES,
  type InferStage,
  type ModelStats,
  normalizeStatistics,
  type StatDuration,
} from './stats.ts';
export type {
  InferInput,
  InferRequestOptions,
  InferResult,
  ModelMetadata,
  OutputTensor,
  ParameterValue,
  RequestedOutput,
  ServerMetadata,
  TensorMetadata,
} from './types.ts';
