/**
 * Triton's tensor datatypes: element sizes, shapes with the batch dimension, byte sizes,
 * and the model-config spelling (TYPE_FP32...). Runs inside k6: no Node imports.
 */

/** Triton's tensor datatypes, as the KServe v2 protocol spells them. */
export type Datatype =
  | 'BOOL'
  | 'UINT8'
  | 'UINT16'
  | 'UINT32'
  | 'UINT64'
  | 'INT8'
  | 'INT16'
  | 'INT32'
  | 'INT64'
  | 'FP16'
  | 'BF16'
  | 'FP32'
  | 'FP64'
  | 'BYTES';

/** Every datatype of the KServe v2 protocol as Triton spells it. */
export const DATATYPES: readonly Datatype[] = [
  'BOOL',
  'UINT8',
  'UINT16',
  'UINT32',
  'UINT64',
  'INT8',
  'INT16',
  'INT32',
  'INT64',
  'FP16',
  'BF16',
  'FP32',
  'FP64',
  'BYTES',
];

/** Bytes per element; 0 for BYTES, whose elements are length-prefixed and vary in size (as in Triton). */
export const DATATYPE_BYTES: Readonly<Record<Datatype, number>> = {
  BOOL: 1,
  UINT8: 1,
  UINT16: 2,
  UINT32: 4,
  UINT64: 8,
  INT8: 1,
  INT16: 2,
  INT32: 4,
  INT64: 8,
  FP16: 2,
  BF16: 2,
  FP32: 4,
  FP64: 8,
  BYTES: 0,
};

/** True when `value` is one of Triton's datatype names. */
export function isDatatype(value: unknown): value is Datatype {
  // Object.hasOwn is missing from older k6 JavaScript runtimes.
  return typeof value === 'string' && Object.hasOwn(DATATYPE_BYTES, value);
}

/** Parses a datatype name, throwing an error that lists the valid names. */
export function parseDatatype(value: string): Datatype {
  const upper = value.trim().toUpperCase();
  if (isDatatype(upper)) return upper;
  throw new Error(`unknown datatype "${value}"; expected one of ${DATATYPES.join(', ')}`);
}

/** Number of elements in a concrete shape; [] is a scalar (1 element). Throws on negative or fractional dims. */
export function elementCount(shape: readonly number[]): number {
  let count = 1;
  for (const dim of shape) {
    if (!Number.isInteger(dim) || dim < 0) {
      throw new Error(
        `invalid shape [${shape.join(',')}]: dims must be integers >= 0 (variable dims need a value)`,
      );
    }
    count *= dim;
  }
  return count;
}

/** The request shape of a tensor: the batch dimension goes first when the model batches (maxBatchSize > 0). */
export function batchedShape(dims: readonly number[], batchSize: number, maxBatchSize: number): number[] {
  return maxBatchSize > 0 ? [batchSize, ...dims] : [...dims];
}

/** Elements in a request of `batchSize` samples of a tensor with catalog `dims` (batch dim included when batching). */
export function batchedElementCount(
  dims: readonly number[],
  batchSize: number,
  maxBatchSize: number,
): number {
  return elementCount(batchedShape(dims, batchSize, maxBatchSize));
}

/** Bytes of a fixed-size tensor of `shape`; throws for BYTES, whose size depends on its contents. */
export function byteSize(datatype: Datatype, shape: readonly number[]): number {
  const elementBytes = DATATYPE_BYTES[datatype];
  if (elementBytes === undefined) throw new Error(`unknown datatype "${datatype}"`);
  if (elementBytes === 0) {
    throw new Error('BYTES tensors have no fixed byte size; measure the encoded tensor instead');
  }
  return elementBytes * elementCount(shape);
}

/** True when a concrete shape fits catalog dims, where -1 matches any size. */
export function shapeMatches(expected: readonly number[], actual: readonly number[]): boolean {
  if (expected.length !== actual.length) return false;
  for (let i = 0; i < expected.length; i++) {
    if (expected[i] !== -1 && expected[i] !== actual[i]) return false;
  }
  return true;
}

/** Formats a shape the way error messages print it: [1,3,224,224]. */
export function formatShape(shape: readonly number[]): string {
  return `[${shape.join(',')}]`;
}

/** Model-config spelling of a datatype (config.pbtxt `data_type`): FP32 -> TYPE_FP32, BYTES -> TYPE_STRING. */
export function toConfigDatatype(datatype: Datatype): string {
  return datatype === 'BYTES' ? 'TYPE_STRING' : `TYPE_${datatype}`;
}

/** KServe datatype of a model-config `data_type`: TYPE_FP32 -> FP32, TYPE_STRING -> BYTES. */
export function fromConfigDatatype(configDatatype: string): Datatype {
  if (configDatatype === 'TYPE_STRING') return 'BYTES';
  const name = configDatatype.startsWith('TYPE_') ? configDatatype.slice(5) : configDatatype;
  if (isDatatype(name)) return name;
  throw new Error(
    `unknown model-config data_type "${configDatatype}"; expected TYPE_<datatype>, e.g. TYPE_FP32`,
  );
}
