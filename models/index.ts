import { CATALOG, SEQUENCE_MODELS } from './catalog.ts';
import { GENERATIVE, generativeModelEntry } from './generative.ts';
import type { Datatype } from '../lib/tensor/datatypes.ts';
import type { ModelEntry, Precision } from './types.ts';
import type { TensorSpec } from '../lib/kserve/types.ts';

export { CATALOG, SEQUENCE_MODELS } from './catalog.ts';
export type * from './types.ts';

/** Catalog ids, sorted, for error messages and --help. */
export function modelIds(): string[] {
  return Object.keys(CATALOG).sort();
}

/** The id (catalog, sequence or generative) of the entry served under `name`, or undefined. */
export function servedModelId(name: string): string | undefined {
  const all = [...Object.values(CATALOG), ...Object.values(SEQUENCE_MODELS), ...Object.values(GENERATIVE)];
  return all.find((m) => m.name === name)?.id;
}

/** Finds a model by catalog id or by Triton model name; throws a one-line error listing the known models. */
export function getModel(idOrName: string): ModelEntry {
  const entry =
    CATALOG[idOrName] ??
    Object.values(CATALOG).find((m) => m.name === idOrName || m.aliases?.includes(idOrName));
  if (entry) return entry;
  const sequence =
    SEQUENCE_MODELS[idOrName] ??
    Object.values(SEQUENCE_MODELS).find((m) => m.name === idOrName || m.aliases?.includes(idOrName));
  if (sequence) return sequence;
  // Generative models (models/generative.ts) run their own scenario; the catalog lists the tensor models.
  const generative = GENERATIVE[idOrName] ?? Object.values(GENERATIVE).find((g) => g.name === idOrName);
  if (generative) return generativeModelEntry(generative);
  const known = [...modelIds(), ...Object.keys(SEQUENCE_MODELS), ...Object.keys(GENERATIVE)].join(', ');
  throw new Error(`unknown model "${idOrName}"; known models: ${known} (or use generic with MODEL_NAME)`);
}

/** The model's inputs with the datatypes a precision gives them; throws naming the precisions the model has. */
export function inputsFor(entry: ModelEntry, precision?: string): TensorSpec[] {
  if (!precision) return entry.inputs;
  const overrides = entry.precisions[precision.toUpperCase() as Precision];
  if (!overrides) {
    const known = Object.keys(entry.precisions).join(', ');
    throw new Error(`invalid PRECISION "${precision}" for model ${entry.id}; expected one of: ${known}`);
  }
  return entry.inputs.map((t) => ({ ...t, datatype: (overrides[t.name] ?? t.datatype) as Datatype }));
}
