/**
 * Random values for any tensor spec (the generic scenario and live catalog entries), as
 * perf_analyzer's random mode but seeded: floats uniform in [0,1) or standard normal, integers
 * uniform within a small non-negative range that every integer type holds (so index-like inputs
 * stay plausible), BOOL 0/1, BYTES as short random ASCII strings.
 */
import type { Datatype } from '../tensor/datatypes.ts';
import type { Random } from './random.ts';

/** Distribution of random floats. */
export type Distribution = 'uniform' | 'normal';

/** Upper bounds (exclusive) of random integers per datatype. */
const INT_RANGE: Partial<Record<Datatype, number>> = {
  BOOL: 2,
  UINT8: 256,
  INT8: 128,
  UINT16: 1000,
  INT16: 1000,
  UINT32: 1000,
  INT32: 1000,
  UINT64: 1000,
  INT64: 1000,
};

/** Element count of a shape. */
export function elements(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** Random values for one tensor (numbers, or strings for BYTES). */
export function randomValues(
  rng: Random,
  datatype: Datatype,
  shape: readonly number[],
  options: { distribution: Distribution; stringLength?: number },
): Float64Array | string[] {
  const n = elements(shape);
  if (datatype === 'BYTES') {
    const length = options.stringLength ?? 16;
    return Array.from({ length: n }, () =>
      Array.from({ length }, () => String.fromCharCode(97 + rng.int(26))).join(''),
    );
  }
  const out = new Float64Array(n);
  const range = INT_RANGE[datatype];
  for (let i = 0; i < n; i++) {
    if (range !== undefined) out[i] = rng.int(range);
    else out[i] = options.distribution === 'normal' ? rng.normal() : rng.float();
  }
  return out;
}
