/**
 * An input's JSON `data` → tensor bytes, as Triton's HTTP frontend reads it (ReadDataFromJson): flat or
 * nested, depth first, each element of the JSON type its datatype needs, integers cast to the element's width
 * without a range check, BYTES elements length-prefixed. Errors carry Triton's words and codes: its JSON
 * library's refusals are internal (500), the rest invalid arguments (400).
 */
import { DATATYPE_BYTES } from '@k6-triton/lib/tensor/datatypes.ts';
import { encodeBytesTensor } from '@k6-triton/lib/tensor/bytes.ts';
import type { Datatype } from '@k6-triton/lib/tensor/datatypes.ts';
import { Errors, ServerError } from '../errors.ts';
import { INVALID_DATATYPE } from '../infer/types.ts';
import { WholeDouble } from './request-json.ts';

/** Triton's HTTP_MAX_JSON_NESTING_DEPTH: `data` itself is depth 0. */
export const MAX_JSON_DEPTH = 100;

/** What TritonJson says when a value is not of the type asked for. */
export const NOT_A = {
  string: 'attempt to access JSON non-string as string',
  bool: 'attempt to access JSON non-boolean as boolean',
  int: 'attempt to access JSON non-signed-integer as signed-integer',
  uint: 'attempt to access JSON non-unsigned-integer as unsigned-integer',
  number: 'attempt to access JSON non-number as double',
  array: 'attempt to access JSON non-array as array',
} as const;

/** 2^64 and 2^63, exact as doubles: the bounds of uint64 and int64 (exclusive above). */
const TWO_64 = 2 ** 64;
const TWO_63 = 2 ** 63;

/** A JSON number Triton reads as an unsigned integer (not one written as a double: see WholeDouble). */
export function isUint(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < TWO_64;
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= -TWO_63 && v < TWO_63;
}

/** Any JSON number, a whole number written as a double included (rapidjson's IsNumber). */
export function isJsonNumber(v: unknown): v is number | WholeDouble {
  return typeof v === 'number' || v instanceof WholeDouble;
}

const numberOf = (v: number | WholeDouble) => (typeof v === 'number' ? v : v.value);

/** One element: its JSON type check and how it is written. */
type ElementWriter = {
  is: (v: unknown) => boolean;
  not: string;
  write: (view: DataView, at: number, v: never) => void;
};

const WRITERS: Readonly<Partial<Record<Datatype, ElementWriter>>> = {
  BOOL: {
    is: (v) => typeof v === 'boolean',
    not: NOT_A.bool,
    write: (d, i, v: boolean) => d.setUint8(i, v ? 1 : 0),
  },
  UINT8: { is: isUint, not: NOT_A.uint, write: (d, i, v: number) => d.setUint8(i, v) },
  UINT16: { is: isUint, not: NOT_A.uint, write: (d, i, v: number) => d.setUint16(i, v, true) },
  UINT32: { is: isUint, not: NOT_A.uint, write: (d, i, v: number) => d.setUint32(i, v, true) },
  UINT64: { is: isUint, not: NOT_A.uint, write: (d, i, v: number) => d.setBigUint64(i, BigInt(v), true) },
  INT8: { is: isInt, not: NOT_A.int, write: (d, i, v: number) => d.setInt8(i, v) },
  INT16: { is: isInt, not: NOT_A.int, write: (d, i, v: number) => d.setInt16(i, v, true) },
  INT32: { is: isInt, not: NOT_A.int, write: (d, i, v: number) => d.setInt32(i, v, true) },
  INT64: { is: isInt, not: NOT_A.int, write: (d, i, v: number) => d.setBigInt64(i, BigInt(v), true) },
  FP32: {
    is: isJsonNumber,
    not: NOT_A.number,
    write: (d, i, v: number | WholeDouble) => d.setFloat32(i, numberOf(v), true),
  },
  FP64: {
    is: isJsonNumber,
    not: NOT_A.number,
    write: (d, i, v: number | WholeDouble) => d.setFloat64(i, numberOf(v), true),
  },
};

/** Triton's GetElementCount: 0 for a shape without dimensions or with a 0, -3 past int64. */
export function jsonElementCount(shape: readonly number[]): number {
  if (shape.length === 0 || shape.includes(0)) return 0;
  let count = 1;
  for (const d of shape) {
    if (count * d >= TWO_63) return -3;
    count *= d;
  }
  return count;
}

/** The bytes of an input's `data` (already known to be an array), `elements` > 0 of them. */
export function jsonTensorBytes(
  name: string,
  datatype: Datatype | typeof INVALID_DATATYPE,
  data: unknown[],
  elements: number,
  maxInput_bytes: number,
): Uint8Array {
  let strings: string[] | undefined;
  let byteSize: number;
  if (datatype === 'BYTES') {
    strings = [];
    collectStrings(data, 0, strings);
    byteSize = strings.reduce((n, s) => n + 4 + Buffer.byteLength(s), 0);
  } else byteSize = elements * (datatype === INVALID_DATATYPE ? 0 : DATATYPE_BYTES[datatype]);
  if (byteSize > maxInput_bytes) {
    throw Errors.badRequest(
      `JSON input '${name}' has a byte_size (${byteSize} bytes) that exceeds the maximum allowed value of ` +
        `${maxInput_bytes} bytes. Use --http-max-input-size to increase the limit.`,
    );
  }
  if (datatype === 'FP16' || datatype === 'BF16') {
    throw Errors.badRequest(
      `receiving ${datatype} data via JSON is not supported. Please use the binary data format for input ${name}`,
    );
  }
  if (datatype === INVALID_DATATYPE) throw Errors.badRequest(`invalid datatype for input ${name}`);
  if (strings) return encodeBytesTensor(strings);
  const out = new Uint8Array(byteSize);
  const walk = {
    view: new DataView(out.buffer),
    writer: WRITERS[datatype]!,
    size: DATATYPE_BYTES[datatype],
    count: 0,
    elements,
  };
  try {
    writeElements(data, 0, walk);
  } catch (err) {
    if (err instanceof ServerError) throw new ServerError(err.code, `Unable to parse 'data': ${err.message}`);
    throw err;
  }
  if (walk.count !== elements) throw shapeMismatch(true);
  return out;
}

interface Walk {
  view: DataView;
  writer: ElementWriter;
  size: number;
  count: number;
  elements: number;
}

function tooDeep(): ServerError {
  return Errors.badRequest(`JSON nesting depth exceeds maximum allowed limit (${MAX_JSON_DEPTH})`);
}

function shapeMismatch(prefixed = false): ServerError {
  const message = "Shape does not match true shape of 'data' field";
  return Errors.internal(prefixed ? `Unable to parse 'data': ${message}` : message);
}

/** Depth first, as Triton's recursion: an element's own errors come before any later element's. */
function writeElements(value: unknown, depth: number, walk: Walk): void {
  if (depth >= MAX_JSON_DEPTH) throw tooDeep();
  if (Array.isArray(value)) {
    for (const v of value) writeElements(v, depth + 1, walk);
    return;
  }
  if (walk.count >= walk.elements) throw shapeMismatch();
  if (!walk.writer.is(value)) throw Errors.internal(walk.writer.not);
  walk.writer.write(walk.view, walk.count * walk.size, value as never);
  walk.count += 1;
}

/** Triton's JsonBytesArrayByteSize: every leaf must be a string. */
function collectStrings(value: unknown, depth: number, out: string[]): void {
  if (depth >= MAX_JSON_DEPTH) throw tooDeep();
  if (Array.isArray(value)) {
    for (const v of value) collectStrings(v, depth + 1, out);
    return;
  }
  if (typeof value !== 'string') throw Errors.internal(`Unable to parse JSON bytes array: ${NOT_A.string}`);
  out.push(value);
}
