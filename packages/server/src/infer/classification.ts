/**
 * Triton's classification extension: an output requested with class_count k answers, per batch item, the k largest
 * values as BYTES strings "value:index", the value as C++ std::to_string prints it (an integer as is, a float with
 * 6 decimals), then ":label" when the output's label file has a line for the index. Integer and float outputs only,
 * as Triton (classification.cc).
 */
import { encodeBytesTensor } from '@k6-triton/lib/tensor/bytes.ts';
import { decodeTensor } from '@k6-triton/lib/tensor/codec.ts';
import type { Datatype } from '@k6-triton/lib/tensor/datatypes.ts';
import type { TensorData } from '../backends/types.ts';
import { Errors } from '../errors.ts';

const CLASSIFIABLE = new Set<Datatype>([
  'UINT8',
  'UINT16',
  'UINT32',
  'UINT64',
  'INT8',
  'INT16',
  'INT32',
  'INT64',
  'FP32',
  'FP64',
]);

/** Replaces an output by its top-k classification; `batched` tells whether shape[0] is the batch dimension. */
export function classify(
  output: TensorData,
  k: number,
  batched: boolean,
  labels: readonly string[] = [],
): TensorData {
  if (!CLASSIFIABLE.has(output.datatype)) {
    throw Errors.badRequest(
      `class result not available for output due to unsupported type '${output.datatype}'`,
    );
  }
  // decodeTensor copies with slice(), which on a Buffer is a view: hand it a plain Uint8Array.
  const bytes = Buffer.isBuffer(output.data) ? new Uint8Array(output.data) : output.data;
  const values = decodeTensor(output.datatype, bytes, output.shape, { int64: 'bigint' }) as ArrayLike<
    number | bigint
  >;
  const float = output.datatype === 'FP32' || output.datatype === 'FP64';
  const items = batched ? (output.shape[0] ?? 1) : 1;
  const perItem = items > 0 ? values.length / items : 0;
  const top = Math.min(k, perItem);
  const strings: string[] = [];
  for (let i = 0; i < items; i++) {
    const at = (j: number) => values[i * perItem + j]!;
    // Triton's std::sort leaves equal values in no set order; here they keep their index order.
    const order = Array.from({ length: perItem }, (_, j) => j);
    order.sort((a, b) => (at(b) > at(a) ? 1 : at(b) < at(a) ? -1 : a - b));
    for (let j = 0; j < top; j++) {
      const index = order[j]!;
      const v = at(index);
      // Triton leaves the label off when the file has no line for the index, or an empty one.
      const label = labels[index] ? `:${labels[index]}` : '';
      strings.push(`${float ? cFixed(Number(v)) : String(v)}:${index}${label}`);
    }
  }
  return {
    name: output.name,
    datatype: 'BYTES',
    shape: batched ? [items, top] : [top],
    data: encodeBytesTensor(strings),
  };
}

/** C's "%f", as std::to_string prints a float or double (glibc: exact value, ties to even). */
function cFixed(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  const sign = v < 0 || Object.is(v, -0) ? '-' : '';
  const x = Math.abs(v);
  if (x === Infinity) return `${sign}inf`;
  // toFixed turns to exponent notation from 1e21; such floats are whole numbers.
  if (x >= 1e21) return `${sign}${BigInt(x)}.000000`;
  // toFixed rounds an exact tie (a value with 7 decimals ending in 5) up; C rounds it to even.
  const seven = x.toFixed(7);
  if (seven.endsWith('5') && Number(seven) === x && Number(seven.at(-2)) % 2 === 0) {
    return `${sign}${seven.slice(0, -1)}`;
  }
  return `${sign}${x.toFixed(6)}`;
}
