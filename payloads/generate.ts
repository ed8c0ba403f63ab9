/**
 * Generates a payload set's values for a model: dispatches on the catalog recipe (image, dlrm,
 * bert, mnist, random) and returns numbers per tensor per request; encoding happens later.
 */
import { inputsFor } from '../models/index.ts';
import { applyShapes, parseShapeOverrides } from '../models/shape.ts';
import type { ModelEntry } from '../models/types.ts';
import type { TensorSpec } from '../lib/kserve/types.ts';
import { bertFeatures, randomFeature } from './bert.ts';
import { dlrmGenerator, readDatasetConfig, validateCategorical } from './dlrm.ts';
import { imageBatch, listImages } from './image.ts';
import { mnistBatch, MNIST_PIXELS } from './mnist.ts';
import { createRandom } from '../lib/random/random.ts';
import { elements, randomValues } from '../lib/random/tensor.ts';
import type { Distribution, GeneratedSample, TensorValues } from './types.ts';
import { loadVocab } from './wordpiece.ts';

/** Recipe parameters a user may set (all optional; the catalog recipe fills the rest). */
export interface RecipeOptions {
  /** Folder of JPEG/PNG files for image models; random pixels when absent. */
  images?: string;
  /** Distribution of random floats. @default 'uniform' */
  distribution?: Distribution;
  /** Zipf exponent for DLRM categorical ids (e.g. 1.05); uniform ids when absent. */
  zipf?: number;
  /** DLRM: reduce raw ids modulo each table's cardinality. @default false */
  hashIndices?: boolean;
  /** DLRM model_size.json with the embedding table sizes. */
  datasetConfig?: string;
  /** BERT: SQuAD-format JSON file of questions and contexts. */
  squad?: string;
  /** BERT: vocab.txt (or vocab.json). */
  vocab?: string;
  /** Random data even where the recipe has real data (BERT ids, MNIST pixels). @default false */
  random?: boolean;
  /** `name:d1,d2` overrides for variable dims. */
  shapes?: string[];
}

/** A set's resolved settings and its requests. */
export interface GeneratedSet {
  precision: string;
  batch: number;
  /** Inputs with concrete dims (batch excluded) and the precision's datatypes. */
  specs: TensorSpec[];
  samples: GeneratedSample[];
}

/** The precision a set uses when none is given: the first one the catalog lists. */
export function defaultPrecision(entry: ModelEntry): string {
  return Object.keys(entry.precisions)[0] ?? entry.inputs[0]!.datatype;
}

/** Checks a request batch size against the model's max_batch_size; returns the resolved batch. */
export function resolveBatch(entry: ModelEntry, batch: number | undefined): number {
  if (entry.maxBatchSize === 0) {
    if (batch !== undefined && batch !== 1) {
      throw new Error(
        `model ${entry.id} has no batch dimension (max_batch_size 0); drop --batch or use --batch 1`,
      );
    }
    return 1;
  }
  const b = batch ?? entry.defaultBatch;
  if (!Number.isInteger(b) || b < 1 || b > entry.maxBatchSize) {
    throw new Error(
      `invalid --batch ${batch} for model ${entry.id}; expected 1..${entry.maxBatchSize} (max_batch_size)`,
    );
  }
  return b;
}

function shapeOf(entry: ModelEntry, spec: TensorSpec, batch: number): number[] {
  return entry.maxBatchSize > 0 ? [batch, ...spec.dims] : [...spec.dims];
}

function byName(specs: TensorSpec[], name: string, index: number): TensorSpec {
  return specs.find((s) => s.name === name) ?? specs[index]!;
}

/** Generates `count` requests of `batch` rows for the model, deterministic for `seed`. */
export function generateSet(
  entry: ModelEntry,
  settings: { batch?: number; precision?: string; count: number; seed: number } & RecipeOptions,
): GeneratedSet {
  const precision = (settings.precision ?? defaultPrecision(entry)).toUpperCase();
  const batch = resolveBatch(entry, settings.batch);
  const overrides = parseShapeOverrides(settings.shapes ?? [], entry.inputs);
  const specs = applyShapes(inputsFor(entry, precision), overrides);
  const { count, seed } = settings;
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`invalid --count ${count}; expected an integer >= 1`);
  const rng = createRandom(seed);
  const distribution = settings.distribution ?? 'uniform';
  const rows = entry.maxBatchSize > 0 ? batch : 1;
  const tensor = (spec: TensorSpec, values: TensorValues['values']): TensorValues => ({
    name: spec.name,
    datatype: spec.datatype,
    shape: shapeOf(entry, spec, batch),
    values,
  });
  const samples: GeneratedSample[] = [];
  const recipe = entry.payload;

  if (recipe.kind === 'image') {
    const spec = specs[0]!;
    const files = settings.images ? listImages(settings.images) : undefined;
    const order = rng.fork('image-order');
    let next = order.int(files?.length ?? 1);
    const source = { files, distribution, next: () => next++ };
    const pixels = rng.fork('pixels');
    const [channels, height, width] = spec.dims.slice(-3) as [number, number, number];
    for (let s = 0; s < count; s++) {
      samples.push({
        tensors: [tensor(spec, imageBatch(pixels, { ...recipe, channels, height, width }, rows, source))],
      });
    }
  } else if (recipe.kind === 'dlrm') {
    const dense = byName(specs, 'input__0', 0);
    const sparse = byName(specs, 'input__1', 1);
    const cardinalities = settings.datasetConfig
      ? readDatasetConfig(settings.datasetConfig)
      : recipe.cardinalities;
    if (cardinalities.length !== elements(sparse.dims)) {
      throw new Error(
        `dataset config has ${cardinalities.length} tables but ${sparse.name} takes ${elements(sparse.dims)} categorical features`,
      );
    }
    const make = dlrmGenerator({
      numerical: elements(dense.dims),
      cardinalities,
      zipf: settings.zipf,
      hashIndices: settings.hashIndices ?? false,
    });
    for (let s = 0; s < count; s++) {
      const { dense: d, sparse: c } = make(rng, rows);
      validateCategorical(c, cardinalities, sparse.name);
      samples.push({ tensors: [tensor(dense, d), tensor(sparse, c)] });
    }
  } else if (recipe.kind === 'bert') {
    const ids = byName(specs, 'input_ids', 0);
    const segments = byName(specs, 'segment_ids', 1);
    const mask = byName(specs, 'input_mask', 2);
    const seqLength = ids.dims[ids.dims.length - 1]!;
    const vocab = settings.random ? loadVocab(settings.vocab) : undefined;
    const features = vocab
      ? []
      : bertFeatures(
          rng.fork('order'),
          { ...recipe, seqLength },
          { squad: settings.squad, vocab: settings.vocab, random: false },
        );
    let next = 0;
    for (let s = 0; s < count; s++) {
      const picked = Array.from({ length: rows }, () =>
        vocab ? randomFeature(rng, seqLength, vocab) : features[next++ % features.length]!,
      );
      samples.push({
        tensors: [
          tensor(
            ids,
            picked.flatMap((f) => f.inputIds),
          ),
          tensor(
            segments,
            picked.flatMap((f) => f.segmentIds),
          ),
          tensor(
            mask,
            picked.flatMap((f) => f.inputMask),
          ),
        ],
      });
    }
  } else if (recipe.kind === 'mnist' && !settings.random) {
    const spec = specs[0]!;
    if (elements(spec.dims) !== MNIST_PIXELS * (entry.maxBatchSize > 0 ? 1 : rows)) {
      throw new Error(`input ${spec.name} [${spec.dims.join(',')}] does not hold one 28x28 digit per row`);
    }
    for (let s = 0; s < count; s++) {
      const { values, labels } = mnistBatch(rng, rows);
      samples.push(
        rows === 1
          ? { tensors: [tensor(spec, values)], label: labels[0]! }
          : { tensors: [tensor(spec, values)], labels },
      );
    }
  } else {
    for (let s = 0; s < count; s++) {
      samples.push({
        tensors: specs.map((spec) =>
          tensor(spec, randomValues(rng, spec.datatype, shapeOf(entry, spec, batch), { distribution })),
        ),
      });
    }
  }
  return { precision, batch: rows === 1 && entry.maxBatchSize === 0 ? 1 : batch, specs, samples };
}
