/**
 * Tensor validation with messages that name the tensor, what was expected and what came:
 * `invalid tensor "INPUT__0": expected FP32 [1,3,224,224] (602112 bytes), got 1000 bytes`.
 */
import type { Datatype } from './datatypes.ts';
import { decodeBytesTensor } from './bytes.ts';
import { DATATYPE_BYTES, elementCount, formatShape, isDatatype, shapeMatches } from './datatypes.ts';

/** A tensor as it travels: name, datatype, concrete shape and raw bytes. */
export interface RawTensor {
  name: string;
  datatype: Datatype;
  shape: readonly number[];
  data: Uint8Array;
}

/** What a tensor must be: a datatype and dims where -1 matches any size (the batch dim included if any). */
export interface TensorExpectation {
  datatype?: Datatype;
  shape?: readonly number[];
}

/** A validation failure; `message` is the one-line description users see. */
export class TensorError extends Error {
  readonly tensor: string;

  constructor(tensor: string, detail: string) {
    super(`invalid tensor "${tensor}": ${detail}`);
    this.name = 'TensorError';
    this.tensor = tensor;
  }
}

/** "FP32 [1,3,224,224] (602112 bytes)", or "(N elements)" for BYTES. */
export function describeTensor(datatype: Datatype, shape: readonly number[]): string {
  const count = elementCount(shape);
  const elementBytes = DATATYPE_BYTES[datatype];
  const size = elementBytes === 0 ? `${count} elements` : `${count * elementBytes} bytes`;
  return `${datatype} ${formatShape(shape)} (${size})`;
}

/** The first problem with a tensor, as the detail of a TensorError message, or undefined when it is valid. */
export function tensorProblem(tensor: RawTensor, expected: TensorExpectation = {}): string | undefined {
  if (!isDatatype(tensor.datatype)) return `unknown datatype "${String(tensor.datatype)}"`;
  if (expected.datatype !== undefined && expected.datatype !== tensor.datatype) {
    return `expected datatype ${expected.datatype}, got ${tensor.datatype}`;
  }
  if (tensor.shape.some((dim) => !Number.isInteger(dim) || dim < 0)) {
    return `shape ${formatShape(tensor.shape)} has a negative or non-integer dim; send concrete dims`;
  }
  if (expected.shape !== undefined && !shapeMatches(expected.shape, tensor.shape)) {
    return `expected shape ${formatShape(expected.shape)}, got ${formatShape(tensor.shape)}`;
  }
  const count = elementCount(tensor.shape);
  if (tensor.datatype === 'BYTES') {
    let found: number;
    try {
      found = decodeBytesTensor(tensor.data).length;
    } catch (error) {
      return `expected ${describeTensor('BYTES', tensor.shape)}, got malformed BYTES data (${(error as Error).message})`;
    }
    return found === count
      ? undefined
      : `expected ${describeTensor('BYTES', tensor.shape)}, got ${found} elements`;
  }
  const expectedBytes = count * DATATYPE_BYTES[tensor.datatype];
  if (tensor.data.length !== expectedBytes) {
    return `expected ${describeTensor(tensor.datatype, tensor.shape)}, got ${tensor.data.length} bytes`;
  }
  return undefined;
}

/** Throws a TensorError naming the tensor, the expected datatype/shape/size and what was found. */
export function validateTensor(tensor: RawTensor, expected: TensorExpectation = {}): void {
  const problem = tensorProblem(tensor, expected);
  if (problem !== undefined) throw new TensorError(tensor.name, problem);
}
