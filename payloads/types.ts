/**
 * What generators produce before encoding: numbers (or strings for BYTES) per tensor, so that
 * generating and byte layout stay separate (payloads/encode.ts turns values into bytes last).
 */
import type { Datatype } from '../lib/tensor/datatypes.ts';

/** One tensor's values in row-major order; shape includes the batch dimension when the model batches. */
export interface TensorValues {
  name: string;
  datatype: Datatype;
  shape: number[];
  values: ArrayLike<number> | string[];
}

/** One request's tensors, with expected classes when the data is labelled. */
export interface GeneratedSample {
  tensors: TensorValues[];
  label?: number;
  labels?: number[];
}

export type { Distribution } from '../lib/random/tensor.ts';
