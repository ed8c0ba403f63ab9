/**
 * The requests a VU cycles through: a payload set (PAYLOAD=manifest.json or perf_analyzer
 * input data), or for the generic scenario seeded random tensors made from the server's metadata,
 * as perf_analyzer does without --input-data.
 */
import { inputsFor } from '../../models/index.ts';
import type { ModelEntry } from '../../models/types.ts';
import type { TensorSpec } from '../../lib/kserve/types.ts';
import { createRandom } from '../../lib/random/random.ts';
import { randomValues } from '../../lib/random/tensor.ts';
import { loadPayloads, type PayloadLoadOptions } from '../../lib/payload/index.ts';
import type { PayloadSample } from '../../lib/payload/manifest.ts';
import { encodeTensor } from '../../lib/tensor/codec.ts';
import { batchedShape } from '../../lib/tensor/datatypes.ts';
import type { InferInput } from '../../lib/kserve/types.ts';
import type { Settings } from './settings.ts';

/** A sample as the transport takes it, with its expected answer when known. */
export interface Sample {
  inputs: InferInput[];
  label?: number;
}

/** Request shape of an input: the batch dimension first when the model batches. */
export function requestShape(spec: TensorSpec, batch: number, maxBatchSize: number): number[] {
  if (spec.dims.some((d) => d < 0)) {
    throw new Error(
      `input "${spec.name}" has a variable dim ${JSON.stringify(spec.dims)}; give concrete dims with --shape ${spec.name}:d1,d2 or a PAYLOAD file`,
    );
  }
  return batchedShape(spec.dims, batch, maxBatchSize);
}

function fromPayload(sample: PayloadSample): Sample {
  const inputs = sample.inputs.map((t) => ({
    name: t.name,
    datatype: t.datatype,
    shape: t.shape,
    data: new Uint8Array(t.data),
  }));
  return sample.label === undefined ? { inputs } : { inputs, label: sample.label };
}

/**
 * How PAYLOAD is read for a model: its inputs at the run's precision, the batch and whether the model batches.
 * The bench checks the file with these same options before anything starts (payloads/check.ts). A generic
 * model's inputs are the server's, unknown here (its entry lists none): its set is then read unchecked.
 */
export function payloadLoadOptions(
  settings: Pick<Settings, 'batch' | 'precision'>,
  entry: ModelEntry,
): PayloadLoadOptions {
  return {
    ...(entry.inputs.length > 0 ? { inputs: inputsFor(entry, settings.precision) } : {}),
    batch: settings.batch,
    batched: entry.maxBatchSize > 0,
    model: entry.id === 'generic' ? entry.name : entry.id,
  };
}

/** Loads PAYLOAD in the init context; a catalog model without one gets a one-line error naming the fix. */
export function loadSamples(settings: Settings, entry: ModelEntry): Sample[] {
  if (!settings.payload) {
    throw new Error(
      `PAYLOAD is not set for ${entry.id}; generate a set with \`k6-triton payloads --model ${entry.id}\` and pass -e PAYLOAD=<manifest.json>, or run \`make bench-${entry.scenario}\``,
    );
  }
  const set = loadPayloads(settings.payload, payloadLoadOptions(settings, entry));
  if (set.samples.length === 0) throw new Error(`payload file ${settings.payload} holds no samples`);
  return set.samples.map(fromPayload);
}

/** Seeded random requests for tensor specs (generic models); `count` distinct requests. */
export function randomSamples(
  specs: readonly TensorSpec[],
  options: { batch: number; maxBatchSize: number; count?: number; seed?: number },
): Sample[] {
  const rng = createRandom(options.seed ?? 1);
  const samples: Sample[] = [];
  for (let i = 0; i < (options.count ?? 4); i++) {
    const inputs = specs.map((spec) => {
      const shape = requestShape(spec, options.batch, options.maxBatchSize);
      const values = randomValues(rng, spec.datatype, shape, { distribution: 'uniform' });
      return { name: spec.name, datatype: spec.datatype, shape, data: encodeTensor(spec.datatype, values) };
    });
    samples.push({ inputs });
  }
  return samples;
}
