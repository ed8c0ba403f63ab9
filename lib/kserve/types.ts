/**
 * Shapes shared by the KServe v2 HTTP and gRPC clients. Pure types: importable
 * from k6 scripts, Node and vitest alike.
 */
import type { Datatype } from '../tensor/datatypes.ts';
import type { TensorData } from '../tensor/codec.ts';
import type { RawTensor } from '../tensor/validate.ts';

/** One input or output tensor; dims exclude the batch dimension when maxBatchSize > 0, -1 marks a variable dim. */
export interface TensorSpec {
  name: string;
  datatype: Datatype;
  dims: number[];
}

/** An input tensor with its raw little-endian bytes (a payload sample). */
export type InferInput = RawTensor;

/** A parameter value as the KServe v2 protocol allows it. */
export type ParameterValue = string | number | boolean;

/** An output the request asks for. */
export interface RequestedOutput {
  name: string;
  /** Ask for the output as binary data (HTTP only); defaults to the request's `binaryOutputs`. */
  binary?: boolean;
  /** Triton's classification extension: return the top-N classes instead of the tensor. */
  classification?: number;
}

/** Everything about an infer request besides its inputs. */
export interface InferRequestOptions {
  /** Request id, echoed back by the server. */
  id?: string;
  /** Request-level parameters (sequence_id, priority, timeout...). */
  parameters?: Record<string, ParameterValue>;
  /** Outputs to return; when omitted the server returns every output. */
  outputs?: readonly (string | RequestedOutput)[];
  /**
   * HTTP: return outputs as binary data (`binary_data` per output, or the request-wide
   * `binary_data_output` when no outputs are listed). @default true for binary requests, false for JSON ones
   */
  binaryOutputs?: boolean;
}

/** One decoded output tensor. */
export interface OutputTensor {
  name: string;
  datatype: Datatype;
  shape: number[];
  data: TensorData;
  /** The output's raw bytes when it arrived as binary (HTTP binary extension, gRPC raw contents). */
  bytes?: Uint8Array;
  parameters?: Record<string, unknown>;
}

/** A parsed infer response. */
export interface InferResult {
  modelName: string;
  modelVersion: string;
  id?: string;
  parameters?: Record<string, unknown>;
  outputs: OutputTensor[];
}

/** Tensor metadata as GET /v2/models/M returns it. */
export interface TensorMetadata {
  name: string;
  datatype: Datatype;
  shape: number[];
}

/** GET /v2/models/M (and gRPC ModelMetadata, normalised). */
export interface ModelMetadata {
  name: string;
  versions: string[];
  platform: string;
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
}

/** GET /v2 (and gRPC ServerMetadata). */
export interface ServerMetadata {
  name: string;
  version: string;
  extensions: string[];
}
