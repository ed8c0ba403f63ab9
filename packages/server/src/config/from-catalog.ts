/** The built-in default repository: one Triton config per catalog entry (models/catalog.ts). */
import { CATALOG, SEQUENCE_MODELS } from '../../../../models/catalog.ts';
import { inputsFor } from '../../../../models/index.ts';
import type { ModelEntry, Precision } from '../../../../models/types.ts';
import type { TensorSpec } from '@k6-triton/lib/kserve/types.ts';
import { toConfigDatatype } from '@k6-triton/lib/tensor/datatypes.ts';
import { precisionProfileName } from '../backends/profiles.ts';
import { parseConfigJson } from './parse.ts';
import type { ModelConfigJson } from './types.ts';

/**
 * A catalog entry's config as a config.pbtxt would hold it, on the given backend (unless the entry names its own,
 * e.g. identity), at a PRECISION; the repository completes it at load as Triton completes what it reads
 * (config/normalize.ts).
 */
export function configFromCatalog(entry: ModelEntry, backend: string, precision?: string): ModelConfigJson {
  const tensor = (t: TensorSpec) => ({ name: t.name, data_type: toConfigDatatype(t.datatype), dims: t.dims });
  const db = entry.deployment.dynamicBatching;
  const served = entry.backend ?? backend;
  const json: Record<string, unknown> = {
    name: entry.name,
    // The simulated backend serves every platform; keep Triton's platform string only for real backends.
    platform: served === 'onnxruntime' ? 'onnxruntime_onnx' : entry.platform,
    backend: served,
    max_batch_size: entry.maxBatchSize,
    input: inputsFor(entry, precision).map(tensor),
    output: entry.outputs.map(tensor),
    instance_group: [{ count: entry.deployment.instanceCount, kind: 'KIND_CPU' }],
  };
  // Only the simulated backend reads a latency profile.
  if (served === 'simulated') {
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
  const sb = entry.deployment.sequenceBatching;
  if (sb) {
    const strategy: Record<string, unknown> = {
      max_queue_delay_microseconds: sb.maxQueueDelayMicroseconds ?? 0,
    };
    if (sb.strategy === 'oldest') strategy.max_candidate_sequences = sb.maxCandidateSequences ?? 1;
    json.sequence_batching = {
      max_sequence_idle_microseconds: sb.maxSequenceIdleMicroseconds,
      [sb.strategy]: strategy,
    };
  }
  return parseConfigJson(json, `catalog entry ${entry.id}`);
}

/** Every catalog entry, for the default repository. */
export function catalogEntries(): ModelEntry[] {
  return Object.values(CATALOG);
}

/** The sequence models (models/catalog.ts SEQUENCE_MODELS), served beside the catalog's. */
export function sequenceEntries(): ModelEntry[] {
  return Object.values(SEQUENCE_MODELS);
}

/** A model with a profile of its own for the precision served (ResNeXt at FP16) gets that one. */
function latencyProfile(entry: ModelEntry, precision: string | undefined): string {
  const own = precision && entry.latencyByPrecision?.[precision.toUpperCase() as Precision];
  return own ? precisionProfileName(entry.id, precision) : entry.id;
}
