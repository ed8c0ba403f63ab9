/**
 * Triton's classification extension: an output requested with class_count k answers, per batch item, the k largest
 * values as BYTES strings "value:index" (value printed as C++ std::to_string prints a float, 6 decimals).
 */
import { encodeBytesTensor } from '../../lib/tensor/bytes.ts';
import { decodeTensor } from '../../lib/tensor/codec.ts';
import type { TensorData } from '../backends/types.ts';
import { Errors } from '../errors.ts';

/** Replaces an output by its top-k classification; `batched` tells whether shape[0] is the batch dimension. */
export function classify(output: TensorData, k: number, batched: boolean): TensorData {
  if (output.datatype === 'BYTES') {
    throw Errors.badRequest(
      `class result not available for output '${output.name}' due to unsupported type 'BYTES'`,
    );
  }
  // decodeTensor copies with slice(), which on a Buffer is a view: hand it a plain Uint8Array.
  const bytes = Buffer.isBuffer(output.data) ? new Uint8Array(output.data) : output.data;
  const values = decodeTensor(output.datatype, bytes, output.shape, {
    int64: 'number',
  }) as ArrayLike<number>;
  const items = batched ? (output.shape[0] ?? 1) : 1;
  const perItem = items > 0 ? values.length / items : 0;
  const top = Math.min(k, perItem);
  const strings: string[] = [];
  for (let i = 0; i < items; i++) {
    const order = Array.from({ length: perItem }, (_, j) => j);
    order.sort((a, b) => Number(values[i * perItem + b]) - Number(values[i * perItem + a]) || a - b);
    for (let j = 0; j < top; j++)
      strings.push(`${Number(values[i * perItem + order[j]!]).toFixed(6)}:${order[j]}`);
  }
  return {
    name: output.name,
    datatype: 'BYTES',
    shape: batched ? [items, top] : [top],
    data: encodeBytesTensor(strings),
  };
}
