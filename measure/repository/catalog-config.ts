/**
 * The catalog's models as Triton model configs (JSON, what a config.pbtxt holds), the one place configs come
 * from: the built-in repository the tool hands to the embedded server (built-in.ts) and the repository it exports
 * for real Triton (export.ts). Also the catalog's latency profiles, which the simulated backend looks up by name.
 */
import type { TensorSpec } from '../../lib/kserve/types.ts';
import { toConfigDatatype } from '../../lib/tensor/datatypes.ts';
import { CATALOG, SEQUENCE_MODELS } from '../../models/catalog.ts';
import { inputsFor } from '../../models/index.ts';
import type { LatencyProfile, ModelEntry, Precision } from '../../models/types.ts';

/** A model config in Triton's JSON form; `name` names the model. */
export type ModelConfig = { name: string } & Record<string, unknown>;

/**
 * A catalog entry's config on the given backend (unless the entry names its own, e.g. identity), at a PRECISION;
 * the server completes it at load as Triton completes what it reads.
 */
export function configFromCatalog(entry: ModelEntry, backend: string, precision?: string): ModelConfig {
  const tensor = (t: TensorSpec) => ({ name: t.name, data_type: toConfigDatatype(t.datatype), dims: t.dims });
  const db = entry.deployment.dynamicBatching;
  const served = entry.backend ?? backend;
  const json: ModelConfig = {
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
  // With max_batch_size 0 Triton cannot batch: a dynamic_batching section would load (Triton 2.60.0 takes it)
  // and do nothing, so a config that says it batches is not written.
  if (db && entry.maxBatchSize > 0) {
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
  return json;
}

/** Every catalog entry, for the default repository. */
export function catalogEntries(): ModelEntry[] {
  return Object.values(CATALOG);
}

/** The sequence models (models/catalog.ts SEQUENCE_MODELS), served beside the catalog's. */
export function sequenceEntries(): ModelEntry[] {
  return Object.values(SEQUENCE_MODELS);
}

/** The profile name of a catalog model at a precision with a profile of its own: `<id>-fp16`. */
export function precisionProfileName(id: string, precision: string): string {
  return `${id}-${precision.toLowerCase()}`;
}

/**
 * The catalog's latency profiles by name: each model's `latency` under its id, and `<id>-<precision>` for its
 * `latencyByPrecision` (ServerOptions.latencyProfiles).
 */
export function catalogLatencyProfiles(): Record<string, LatencyProfile> {
  return Object.fromEntries(
    catalogEntries().flatMap((entry) => [
      ...(entry.latency ? [[entry.id, entry.latency] as const] : []),
      ...Object.entries(entry.latencyByPrecision ?? {}).map(
        ([precision, profile]) => [precisionProfileName(entry.id, precision), profile] as const,
      ),
    ]),
  );
}

/** A model with a profile of its own for the precision served (ResNeXt at FP16) gets that one. */
function latencyProfile(entry: ModelEntry, precision: string | undefined): string {
  const own = precision && entry.latencyByPrecision?.[precision.toUpperCase() as Precision];
  return own ? precisionProfileName(entry.id, precision) : entry.id;
}
