/** The server's own request and response records, shared by both transports (decode → validate → queue → encode). */
import type { TensorData } from '../backends/types.ts';

export type { TensorData };

/** One output the client asked for; `binary` is the HTTP binary_data parameter. */
export interface RequestedOutput {
  name: string;
  binary?: boolean;
  /** Triton's classification extension: top-N labels instead of the tensor (not served; rejected as unsupported). */
  classCount?: number;
}

/** An inference request after decoding, before validation. */
export interface InferRequest {
  modelName: string;
  /** '' means the latest ready version. */
  modelVersion: string;
  id: string;
  inputs: TensorData[];
  /** Undefined: every output of the model. */
  outputs?: RequestedOutput[];
  /** Request-level parameters (e.g. "timeout" in microseconds, "binary_data_output"). */
  parameters: Record<string, unknown>;
  /** Aborted when the client goes away (gRPC call cancelled, HTTP socket closed): a queued request is dropped. */
  signal?: AbortSignal;
}

/** A successful inference. Output data are views into the backend's batch output, not copies. */
export interface InferResult {
  modelName: string;
  modelVersion: string;
  id: string;
  outputs: TensorData[];
}
