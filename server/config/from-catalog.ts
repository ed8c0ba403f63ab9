/** The built-in default repository: one Triton config per catalog entry (models/catalog.ts). */
import { CATALOG } from '../../models/catalog.ts';
import { inputsFor } from '../../models/index.ts';
import type { ModelEntry, Precision } from '../../models/types.ts';
import type { TensorSpec } from '../../lib/kserve/types.ts';
import { toConfigDatatype } from '../../lib/tensor/datatypes.ts';
import { precisionProfileName } from '../backends/profiles.ts';
import { parseConfigJson } from './parse.ts';
import type { ModelConfigJson } from './types.ts';

/**
 * A catalog entry's config as a config.pbtxt would hold it, on the given backend, at a PRECISION; the repository
 * completes it at load as Triton completes what it reads (config/normalize.ts).
 */
export function configFromCatalog(entry: ModelEntry, backend: string, precision?: string): ModelConfigJson {
  const tensor = (t: TensorSpec) => ({ name: t.name, data_type: toConfigDatatype(t.datatype), dims: t.dims });
  const db = entry.deployment.dynamicBatching;
  const json: Record<string, unknown> = {
    name: entry.name,
    // The simulated backend serves every platform; keep Triton's platform string only for real backends.
    platform: backend === 'onnxruntime' ? 'onnxruntime_onnx' : entry.platform,
    backend,
    max_batch_size: entry.maxBatchSize,
    input: inputsFor(entry, precision).map(tensor),
    output: entry.outputs.map(tensor),
    instance_group: [{ count: entry.deployment.instanceCount, kind: 'KIND_CPU' }],
  };
  // Only the simulated backend reads a latency profile.
  if (backend === 'simulated') {
    json.parameters = { latency_profile: { string_value: latencyProfile(entry, precision) } };
  }
  if (db) {
    json.dynamic_batching = {
      preferred_batch_size: db.preferredBatchSize ?? [],
      max_queue_delay_microseconds: db.maxQueueDelayMicroseconds ?? 0,
      default_queue_policy: {
        max_queue_size: db.maxQueueSize ?? 0,
        default_timeout_microseconds: db.defaultTimeoutMicroseconds ?? 0,
      },
    };
  }
  return parseConfigJson(json, `catalog entry ${entry.id}`);
}

/** Every catalog entry, for the default repository. */
export function catalogEntries(): ModelEntry[] {
  return Object.values(CATALOG);
}

/** A model with a profile of its own for the precision served (ResNeXt at FP16) gets that one. */
function latencyProfile(entry: ModelEntry, precision: string | undefined): string {
  const own = precision && entry.latencyByPrecision?.[precision.toUpperCase() as Precision];
  return own ? precisionProfileName(entry.id, precision) : entry.id;
}
