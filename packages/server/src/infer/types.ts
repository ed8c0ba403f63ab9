/** The server's own request and response records, shared by both transports (decode → validate → queue → encode). */
import type { Datatype } from '@k6-triton/lib/tensor/datatypes.ts';
import type { TensorData } from '../backends/types.ts';
import type { CancelSignal } from './cancel.ts';

export type { TensorData };

/** Triton's name for a datatype it does not know, as its messages print it. */
export const INVALID_DATATYPE = '<invalid>';

/** An input as the client sent it, before validation. */
export interface RequestInput extends Omit<TensorData, 'datatype'> {
  datatype: Datatype | typeof INVALID_DATATYPE;
  /** The name Triton's messages give the input when it differs from `name` ('raw_input' for a raw HTTP body). */
  label?: string;
}

/** One output the client asked for; `binary` is the HTTP binary_data parameter. */
export interface RequestedOutput {
  name: string;
  binary?: boolean;
  /** Triton's classification extension: the top N classes instead of the tensor (0 or absent: off). */
  classCount?: number;
}

/** An inference request after decoding, before validation. */
export interface InferRequest {
  modelName: string;
  /** '' means the latest ready version. */
  modelVersion: string;
  id: string;
  inputs: RequestInput[];
  /** Undefined: every output of the model. */
  outputs?: RequestedOutput[];
  /** Request-level parameters (e.g. "timeout" in microseconds, "binary_data_output"). */
  parameters: Record<string, unknown>;
  /** Aborted when the client goes away (gRPC call cancelled, HTTP socket closed): a queued request is dropped. */
  signal?: CancelSignal;
}

/** A successful inference. Output data are views into the backend's batch output, not copies. */
export interface InferResult {
  modelName: string;
  modelVersion: string;
  id: string;
  outputs: TensorData[];
}
