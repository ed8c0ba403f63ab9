/**
 * The model catalog as a Triton model repository on disk, for the onnxruntime backend: per catalog model
 * `<dir>/<served name>/config.pbtxt` (from catalog-config.ts, the one place configs come from) and
 * `<dir>/<served name>/1/model.onnx` (the trained MNIST model; a stand-in graph with the catalog's tensors for the
 * others). Real Triton and `k6-triton serve --model-repository` both serve the folder.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { configToPbtxt, parseConfigJson } from '@k6-triton/server';
import { CATALOG, getModel, inputsFor, modelIds, SEQUENCE_MODELS } from '../../models/index.ts';
import { MNIST_MODEL_FILE } from '../../models/mnist/export-onnx.ts';
import type { ModelEntry } from '../../models/types.ts';
import { catalogEntries, configFromCatalog, type ModelConfig } from './catalog-config.ts';
import { standInModel } from './stand-in.ts';

/** A config as config.pbtxt text, checked against Triton's model config schema on the way. */
export function pbtxtOf(config: ModelConfig): string {
  return configToPbtxt(parseConfigJson(config, `model ${config.name}`));
}

/** Which models, at which precisions. */
export interface ExportRepositoryOptions {
  /** Catalog ids, aliases or served names (sequence models too); default every catalog model. */
  models?: readonly string[];
  /** PRECISION per model (id, alias or served name), e.g. { dlrm: 'FP16' }; default the catalog's datatypes. */
  precisions?: Readonly<Record<string, string>>;
}

/** One model written. */
export interface ExportedModel {
  id: string;
  /** Served name: the model's folder. */
  name: string;
  dir: string;
  /** 'trained' for the shipped MNIST network, 'stand-in' for a generated graph, 'backend' for none (identity). */
  kind: 'trained' | 'stand-in' | 'backend';
  precision?: string;
  onnx_bytes: number;
}

/** Writes the catalog's models into `dir` (created if missing; their own folders' files overwritten). */
export async function writeCatalogRepository(
  dir: string,
  options: ExportRepositoryOptions = {},
): Promise<ExportedModel[]> {
  const entries = options.models?.length ? unique(options.models.map(catalogModel)) : catalogEntries();
  const precisions = new Map<string, string>();
  for (const [model, precision] of Object.entries(options.precisions ?? {})) {
    const entry = catalogModel(model);
    inputsFor(entry, precision); // throws naming the precisions the model has
    precisions.set(entry.id, precision.toUpperCase());
  }
  // Everything is made before anything is written, so bad input leaves the folder as it was.
  const models = await Promise.all(entries.map((entry) => modelFiles(entry, precisions.get(entry.id))));
  const written: ExportedModel[] = [];
  for (const model of models) {
    const modelDir = path.join(dir, model.entry.name);
    try {
      await mkdir(path.join(modelDir, '1'), { recursive: true });
      await writeFile(path.join(modelDir, 'config.pbtxt'), model.config);
      if (model.onnx) await writeFile(path.join(modelDir, '1', 'model.onnx'), model.onnx);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new Error(
        `cannot write the model repository into "${dir}" (${code}); pass a folder you can write to`,
      );
    }
    written.push({
      id: model.entry.id,
      name: model.entry.name,
      dir: modelDir,
      kind: !model.onnx ? 'backend' : model.entry.id === 'mnist' ? 'trained' : 'stand-in',
      ...(model.precision ? { precision: model.precision } : {}),
      onnx_bytes: model.onnx?.length ?? 0,
    });
  }
  return written;
}

async function modelFiles(entry: ModelEntry, precision: string | undefined) {
  const config = pbtxtOf(configFromCatalog(entry, 'onnxruntime', precision));
  // A model on a backend of its own (identity) needs no file; MNIST is the one catalog model trained here.
  const onnx = entry.backend
    ? undefined
    : entry.id === 'mnist'
      ? await readFile(MNIST_MODEL_FILE)
      : standInModel(entry, precision);
  return { entry, precision, config, onnx };
}

/** A catalog model by id, alias or served name; throws naming the catalog's ids. */
function catalogModel(idOrName: string): ModelEntry {
  const entries = [...Object.values(CATALOG), ...Object.values(SEQUENCE_MODELS)];
  if (!entries.some((m) => m.id === idOrName || m.name === idOrName || m.aliases?.includes(idOrName))) {
    const known = [...modelIds(), ...Object.keys(SEQUENCE_MODELS)].join(', ');
    throw new Error(`unknown catalog model "${idOrName}"; known models: ${known}`);
  }
  return getModel(idOrName);
}

function unique(entries: ModelEntry[]): ModelEntry[] {
  return [...new Map(entries.map((e) => [e.id, e])).values()];
}
