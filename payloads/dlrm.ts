/**
 * DLRM payloads: numerical features as log(1 + x) of non-negative counts (the Criteo preprocessing
 * of NVIDIA's DLRM), categorical ids per embedding table drawn uniformly or Zipf-skewed (real
 * embedding access is skewed) within each table's cardinality, and the deployer's hash_indices
 * option (raw ids from a 31-bit space reduced modulo the cardinality).
 */
import { readFileSync } from 'node:fs';
import { createZipf, type Random } from '../lib/random/random.ts';

/** Generation settings for one DLRM set. */
export interface DlrmSettings {
  /** Number of numerical features per row. */
  numerical: number;
  /** Embedding table sizes, one per categorical feature. */
  cardinalities: number[];
  /** Zipf exponent for categorical ids; undefined means uniform. */
  zipf?: number;
  /** Draw raw ids from a 31-bit space and reduce them modulo each cardinality (the seed's --hash_indices). */
  hashIndices: boolean;
}

/**
 * Reads a model_size.json: the DLRM data preparation writes an object of feature name → table size
 * (the deployer takes `list(json.load(f).values())`); a plain array of sizes is accepted too.
 */
export function readDatasetConfig(path: string): number[] {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(
      `cannot read dataset config ${path}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const values = Array.isArray(doc) ? doc : typeof doc === 'object' && doc !== null ? Object.values(doc) : [];
  if (values.length === 0 || !values.every((v) => Number.isSafeInteger(v) && (v as number) > 0)) {
    throw new Error(
      `dataset config ${path} must map each categorical feature to a positive table size, e.g. {"_c14": 1460, "_c15": 583}`,
    );
  }
  return values as number[];
}

/** Throws naming the table, the id and the cardinality when any id falls outside its table. */
export function validateCategorical(
  ids: ArrayLike<number>,
  cardinalities: readonly number[],
  input = 'categorical',
): void {
  const tables = cardinalities.length;
  for (let i = 0; i < ids.length; i++) {
    const table = i % tables;
    const id = ids[i]!;
    if (!Number.isInteger(id) || id < 0 || id >= cardinalities[table]!) {
      throw new Error(
        `${input} id ${id} (row ${Math.floor(i / tables)}) is outside table ${table}'s cardinality ${cardinalities[table]}; ` +
          'use --hash-indices to fold ids into their tables or fix the dataset config',
      );
    }
  }
}

/** A 32-bit integer mix, so hot Zipf ranks land on scattered rows once hashed. */
function mix32(x: number, salt: number): number {
  let z = (x ^ Math.imul(salt + 1, 0x9e3779b9)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x7feb352d);
  z = Math.imul(z ^ (z >>> 15), 0x846ca68b);
  return (z ^ (z >>> 16)) >>> 0;
}

/** One non-negative count with a heavy tail (log-normal, floored), as click-log counters look. */
function count(rng: Random): number {
  return Math.max(0, Math.floor(Math.exp(1 + 1.5 * rng.normal())) - 1);
}

/** Makes a generator of `rows` rows: numerical [rows × numerical] and categorical [rows × tables]. */
export function dlrmGenerator(settings: DlrmSettings) {
  const { numerical, cardinalities, zipf, hashIndices } = settings;
  const raw = hashIndices ? 2 ** 31 - 1 : undefined;
  // One Zipf sampler per table: rank 1 (the most frequent) maps to id 0 unless hashed.
  const samplers = zipf === undefined ? undefined : cardinalities.map((n) => createZipf(raw ?? n, zipf));
  return (rng: Random, rows: number) => {
    const dense = new Float32Array(rows * numerical);
    for (let i = 0; i < dense.length; i++) dense[i] = Math.log1p(count(rng));
    const sparse = new Float64Array(rows * cardinalities.length);
    for (let r = 0; r < rows; r++) {
      for (let t = 0; t < cardinalities.length; t++) {
        const n = cardinalities[t]!;
        let id: number;
        if (samplers) {
          const rank = samplers[t]!(rng);
          id = raw ? mix32(rank, t) % n : rank - 1;
        } else id = raw ? (rng.uint32() & 0x7fffffff) % n : rng.int(n);
        sparse[r * cardinalities.length + t] = id;
      }
    }
    return { dense, sparse };
  };
}
