/**
 * Payload sets on Node: ensurePayloads() returns a cached set for a model and settings, generating
 * and writing it on first use; importPerfAnalyzer() turns perf_analyzer input data into a set;
 * readPayloads() loads a set (or perf_analyzer file) with the same code k6 runs.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type LoadedPayloads,
  loadPayloadFile,
  type PayloadLoadOptions,
  type PayloadReaders,
} from '../lib/payload/load.ts';
import { parseManifest } from '../lib/payload/manifest.ts';
import { parsePerfAnalyzerData } from '../lib/payload/perf-analyzer.ts';
import { decodeTensor, encodeTensor, type TensorValue } from '../lib/tensor/index.ts';
import { getModel, inputsFor } from '../models/index.ts';
import { applyShapes, parseShapeOverrides } from '../models/shape.ts';
import type { ModelEntry } from '../models/types.ts';
import { readDatasetConfig, validateCategorical } from './dlrm.ts';
import { defaultPrecision, generateSet, type RecipeOptions, resolveBatch } from './generate.ts';
import { listImages } from './image.ts';
import { type EncodedSample, MANIFEST_FILE, writeSet } from './write.ts';

export type { RecipeOptions } from './generate.ts';

/** Where sets are cached by default: payloads/cache/ beside this file (git-ignored). */
export const DEFAULT_CACHE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'cache');
/** Requests per set unless told otherwise. */
export const DEFAULT_COUNT = 8;
/** Seed unless told otherwise. */
export const DEFAULT_SEED = 1;
/** Bumped whenever generators change what they write, so old caches are not reused. */
const GENERATOR_VERSION = 2;

/** Options of ensurePayloads (and of `k6-triton payloads`). */
export interface PayloadOptions extends RecipeOptions {
  /** Catalog id or Triton name, or an entry (e.g. built from a live server by models/live.ts). */
  model: string | ModelEntry;
  /** Rows per request. @default the catalog's defaultBatch (1 for models without a batch dim) */
  batch?: number;
  /** PRECISION name (FP32, FP16, INT32, INT64). @default the model's first precision */
  precision?: string;
  /** Requests in the set. @default 8 */
  count?: number;
  /** @default 1 */
  seed?: number;
  /** Import this perf_analyzer input-data JSON instead of generating. */
  inputData?: string;
  /** Cache root. @default payloads/cache */
  outDir?: string;
  /** Regenerate even when the set is cached. @default false */
  force?: boolean;
}

/** Where a set is. */
export interface PayloadSetRef {
  manifestPath: string;
  dir: string;
  /** True when the set was already in the cache. */
  cached: boolean;
}

function fileHash(path: string, option: string): string {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 16);
  } catch {
    throw new Error(`cannot read ${option} file ${path}`);
  }
}

/** A cheap fingerprint of an image folder: names, sizes and modification times. */
function imagesHash(dir: string): string {
  const h = createHash('sha256');
  for (const file of listImages(dir)) {
    const st = statSync(file);
    h.update(`${basename(file)}:${st.size}:${st.mtimeMs}\n`);
  }
  return h.digest('hex').slice(0, 16);
}

/** The recipe parameters that change the bytes, as recorded in the manifest and hashed into the key. */
function recipeParams(entry: ModelEntry, options: PayloadOptions): Record<string, unknown> {
  const params: Record<string, unknown> = { generator: GENERATOR_VERSION, ...entry.payload };
  const add = (key: string, value: unknown) => {
    if (value !== undefined && value !== false) params[key] = value;
  };
  add('inputs', entry.inputs);
  // Defaults are left out so that the CLI (which fills them in) and callers that omit them share a set.
  add('distribution', options.distribution === 'uniform' ? undefined : options.distribution);
  add('zipf', options.zipf);
  add('hashIndices', options.hashIndices);
  add('random', options.random);
  add('shapes', options.shapes?.length ? options.shapes : undefined);
  if (options.datasetConfig)
    params['datasetConfig'] = {
      path: resolve(options.datasetConfig),
      sha256: fileHash(options.datasetConfig, '--dataset-config'),
    };
  if (options.squad)
    params['squad'] = { path: resolve(options.squad), sha256: fileHash(options.squad, '--squad') };
  if (options.vocab)
    params['vocab'] = { path: resolve(options.vocab), sha256: fileHash(options.vocab, '--vocab') };
  if (options.images)
    params['images'] = { path: resolve(options.images), fingerprint: imagesHash(options.images) };
  if (options.inputData)
    params['inputData'] = {
      path: resolve(options.inputData),
      sha256: fileHash(options.inputData, '--input-data'),
    };
  return params;
}

/** The cache folder name: readable settings plus a hash of everything that changes the bytes. */
export function cacheKey(parts: {
  precision: string;
  batch: number;
  count: number;
  seed: number;
  recipe: unknown;
}): string {
  const hash = createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 12);
  return `${parts.precision.toLowerCase()}-b${parts.batch}-n${parts.count}-s${parts.seed}-${hash}`;
}

/** Encodes generated values (numbers or strings) to raw little-endian bytes, last. */
function encodeSamples(samples: ReturnType<typeof generateSet>['samples']): EncodedSample[] {
  return samples.map((s) => ({
    ...s,
    tensors: s.tensors.map((t) => ({
      name: t.name,
      datatype: t.datatype,
      shape: t.shape,
      bytes: encodeTensor(t.datatype, t.values as ArrayLike<TensorValue>),
    })),
  }));
}

/** Reads perf_analyzer input data as encoded requests for the model (DLRM ids checked against the tables). */
function readPerfAnalyzerSamples(
  entry: ModelEntry,
  options: PayloadOptions,
  precision: string,
  batch: number,
): EncodedSample[] {
  const file = options.inputData!;
  const base = inputsFor(entry, precision);
  // Without --shape, variable dims are taken from each entry's "shape" field, as perf_analyzer does.
  const readSpecs = options.shapes?.length
    ? applyShapes(base, parseShapeOverrides(options.shapes, entry.inputs))
    : base;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`cannot read --input-data file ${file}`);
  }
  const samples = parsePerfAnalyzerData(text, {
    file,
    inputs: readSpecs,
    batch,
    batched: entry.maxBatchSize > 0,
  });
  const recipe = entry.payload;
  if (recipe.kind === 'dlrm') {
    const cardinalities = options.datasetConfig
      ? readDatasetConfig(options.datasetConfig)
      : recipe.cardinalities;
    const sparse = entry.inputs[1]!;
    for (const sample of samples) {
      const t = sample.inputs.find((x) => x.name === sparse.name)!;
      validateCategorical(
        decodeTensor(t.datatype, new Uint8Array(t.data)) as number[],
        cardinalities,
        `${file} ${t.name}`,
      );
    }
  }
  return samples.map((s) => ({
    tensors: s.inputs.map((t) => ({
      name: t.name,
      datatype: t.datatype,
      shape: t.shape,
      bytes: new Uint8Array(t.data),
    })),
  }));
}

/** Where the set of `options` lives and what its cache key was made from. */
export interface SetLocation {
  entry: ModelEntry;
  precision: string;
  batch: number;
  count: number;
  seed: number;
  recipe: Record<string, unknown>;
  /** <cache root>/<model>/<cache key>: the same options always map to the same folder. */
  dir: string;
}

/** Resolves the folder a set's options map to (no file written); throws one line for a bad option. */
export function setLocation(options: PayloadOptions): SetLocation {
  const entry = typeof options.model === 'string' ? getModel(options.model) : options.model;
  if (entry.payload.kind === 'prompt') {
    throw new Error(
      `model ${entry.id} is generative: bench ${entry.id} makes its prompt workload (--input-tokens, --output-tokens, --dataset), it has no payload set`,
    );
  }
  const precision = (options.precision ?? defaultPrecision(entry)).toUpperCase();
  inputsFor(entry, precision); // fails early, naming the model's precisions
  const batch = resolveBatch(entry, options.batch);
  const count = options.count ?? DEFAULT_COUNT;
  const seed = options.seed ?? DEFAULT_SEED;
  const recipe = recipeParams(entry, options);
  const key = cacheKey({ precision, batch, count: options.inputData ? 0 : count, seed, recipe });
  const dir = join(
    resolve(options.outDir ?? DEFAULT_CACHE_DIR),
    entry.id.replace(/[^A-Za-z0-9._-]/g, '_'),
    key,
  );
  return { entry, precision, batch, count, seed, recipe, dir };
}

/**
 * Returns the payload set for a model and settings, generating it into the cache when missing
 * (or when `force`); the same options always map to the same folder.
 */
export async function ensurePayloads(options: PayloadOptions): Promise<PayloadSetRef> {
  const { entry, precision, batch, count, seed, recipe, dir } = setLocation(options);
  const manifestPath = join(dir, MANIFEST_FILE);
  if (!options.force && existsSync(manifestPath)) {
    parseManifest(readFileSync(manifestPath, 'utf8'), manifestPath);
    return { manifestPath, dir, cached: true };
  }
  const samples = options.inputData
    ? readPerfAnalyzerSamples(entry, options, precision, batch)
    : encodeSamples(generateSet(entry, { ...options, precision, batch, count, seed }).samples);
  const written = writeSet(
    dir,
    { model: entry.id, modelName: entry.name, precision, batch, seed, recipe },
    samples,
    { batched: entry.maxBatchSize > 0, replace: options.force ?? false },
  );
  return { manifestPath: written, dir, cached: false };
}

/** Reads a file on Node; an unreadable one throws its errno alone (ENOENT, EACCES), which errors quote. */
function readOrErrno(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error((err as NodeJS.ErrnoException).code ?? (err as Error).message);
  }
}

/** The payload loader's readers on Node, as k6's open() serves it inside the scenario. */
export const NODE_READERS: PayloadReaders = {
  readText: (p) => readOrErrno(p).toString('utf8'),
  readBytes: (p) => {
    const buf = readOrErrno(p);
    return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
  },
};

/** Loads a manifest (with its .bin files) or a perf_analyzer file on Node, through the k6 loader's code. */
export function readPayloads(path: string, options: PayloadLoadOptions = {}): LoadedPayloads {
  return loadPayloadFile(path, NODE_READERS, options);
}
