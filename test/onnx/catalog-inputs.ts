/**
 * Requests for the catalog's models as the tests send them: every input of an entry at a PRECISION, filled with
 * small deterministic values (pixels in [0, 1), ids and mask bits as integers), the batch dim first when the model
 * batches.
 */
import { encodeTensor } from '../../lib/tensor/codec.ts';
import { batchedShape, elementCount } from '../../lib/tensor/datatypes.ts';
import type { InferInput } from '../../lib/kserve/types.ts';
import { inputsFor } from '../../models/index.ts';
import type { ModelEntry } from '../../models/types.ts';

/** The inputs of one request of `batch` items for `entry`; `seed` varies the values between requests. */
export function catalogInputs(
  entry: ModelEntry,
  options: { precision?: string; batch?: number; seed?: number } = {},
): InferInput[] {
  const seed = options.seed ?? 0;
  return inputsFor(entry, options.precision).map((spec, k) => {
    const shape = batchedShape(spec.dims, options.batch ?? 1, entry.maxBatchSize);
    const count = elementCount(shape);
    const integer = spec.datatype.startsWith('INT') || spec.datatype.startsWith('UINT');
    const values = Array.from({ length: count }, (_, i) => {
      const n = (i * 31 + k * 7 + seed * 13) % 97;
      return integer ? (spec.datatype === 'INT64' ? BigInt(n * 1000) : n) : n / 97;
    });
    return { name: spec.name, datatype: spec.datatype, shape, data: encodeTensor(spec.datatype, values) };
  });
}
