/**
 * A catalog entry built from a live server, as perf_analyzer does: the model's metadata
 * (GET /v2/models/M or gRPC ModelMetadata) and config (GET /v2/models/M/config or gRPC ModelConfig).
 * A pure function of the two JSON documents; the config in either protocol's spelling is read by
 * lib/kserve/config.ts. Runs inside k6: no Node imports.
 */
import { type ConfigTensor, normalizeModelConfig } from '../lib/kserve/config.ts';
import { fromConfigDatatype } from '../lib/tensor/datatypes.ts';
import { closedLoop } from '../lib/load/shapes.ts';
import type { Datatype } from '../lib/tensor/datatypes.ts';
import type { ModelEntry } from './types.ts';
import type { TensorSpec } from '../lib/kserve/types.ts';

/** A tensor in model metadata: shape includes the batch dimension (-1) when the model batches. */
export interface MetadataTensorJson {
  name: string;
  datatype: string;
  shape: Array<number | string>;
}

/** GET /v2/models/M (or ModelMetadataResponse). */
export interface ModelMetadataJson {
  name: string;
  versions?: string[];
  platform?: string;
  inputs: MetadataTensorJson[];
  outputs: MetadataTensorJson[];
}

/** A config document in either spelling (see lib/kserve/config.ts, which reads it). */
export type LiveConfigJson = Record<string, unknown>;

/** Maps "FP32" or Triton's config "TYPE_FP32" / "TYPE_STRING" to a KServe datatype; throws naming the tensor. */
function toDatatype(raw: string | undefined, tensor: string): Datatype {
  try {
    return fromConfigDatatype(raw ?? '');
  } catch {
    throw new Error(`tensor ${tensor} has datatype "${raw}", which is not a Triton datatype`);
  }
}

function num(v: number | string | undefined, fallback: number): number {
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  return Number.isFinite(n) ? n : fallback;
}

/** Builds the tensors from metadata (names, datatypes) and config (dims without the batch dim). */
function tensors(
  meta: MetadataTensorJson[],
  config: ConfigTensor[],
  maxBatchSize: number,
  kind: string,
): TensorSpec[] {
  const fromConfig = new Map(config.map((t) => [t.name, t]));
  return meta.map((t) => {
    const cfg = fromConfig.get(t.name);
    const shape = (t.shape ?? []).map((d) => num(d, -1));
    const dims = cfg && cfg.dims.length > 0 ? cfg.dims : maxBatchSize > 0 ? shape.slice(1) : shape;
    if (!t.name) throw new Error(`model metadata lists an ${kind} without a name`);
    return {
      name: t.name,
      datatype: toDatatype(t.datatype || cfg?.dataType, t.name),
      dims,
    };
  });
}

/** Builds a catalog entry (random payloads, batch 1) from a live model's metadata and config documents. */
export function liveModelEntry(metadata: ModelMetadataJson, configDoc: LiveConfigJson = {}): ModelEntry {
  const config = normalizeModelConfig(configDoc);
  const name = metadata?.name || config.name;
  if (!name) throw new Error('model metadata has no "name"; is this GET /v2/models/<model>?');
  if (!Array.isArray(metadata.inputs) || metadata.inputs.length === 0) {
    throw new Error(`model ${name}: metadata lists no inputs; is the model loaded and ready?`);
  }
  const { maxBatchSize, instanceCount, dynamicBatching } = config;
  const inputs = tensors(metadata.inputs, config.inputs, maxBatchSize, 'input');
  return {
    id: name,
    name,
    platform: config.platform || metadata.platform || config.backend || 'unknown',
    maxBatchSize,
    inputs,
    outputs: tensors(metadata.outputs ?? [], config.outputs, maxBatchSize, 'output'),
    // The served datatypes are the only precision a live model has.
    precisions: { [inputs[0]!.datatype]: {} } as ModelEntry['precisions'],
    defaultBatch: 1,
    payload: { kind: 'random' },
    load: closedLoop([1, 2, 4, 8], 'any model: doubling concurrency from perf_analyzer default of 1'),
    scenario: 'generic',
    deployment: dynamicBatching ? { instanceCount, dynamicBatching } : { instanceCount },
    source: { seed: 'live', note: `built from the server's metadata and config of ${name}` },
  };
}
