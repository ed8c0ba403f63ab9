/** The default repository's generative models (models/generative.ts) as config.pbtxt would hold them. */
import type { TensorSpec } from '@k6-triton/lib/kserve/types.ts';
import { toConfigDatatype } from '@k6-triton/lib/tensor/datatypes.ts';
import { GENERATIVE, type GenerativeModelEntry } from '../../../../models/generative.ts';
import { parseConfigJson } from './parse.ts';
import type { ModelConfigJson } from './types.ts';

/** A generative entry's config: decoupled, on its backend (simulated_llm or repeat), one instance (it batches itself). */
export function configFromGenerative(entry: GenerativeModelEntry): ModelConfigJson {
  const tensor = (t: TensorSpec) => ({
    name: t.name,
    data_type: toConfigDatatype(t.datatype),
    dims: t.dims,
    ...(entry.optionalInputs.includes(t.name) ? { optional: true } : {}),
  });
  return parseConfigJson(
    {
      name: entry.name,
      backend: entry.backend,
      max_batch_size: 0,
      model_transaction_policy: { decoupled: true },
      input: entry.inputs.map(tensor),
      output: entry.outputs.map(tensor),
      instance_group: [{ count: 1, kind: 'KIND_CPU' }],
    },
    `generative entry ${entry.id}`,
  );
}

/** Every generative entry, for the default repository. */
export function generativeEntries(): GenerativeModelEntry[] {
  return Object.values(GENERATIVE);
}
