/**
 * A catalog entry built from a live server, as perf_analyzer does: the model's metadata
 * (GET /v2/models/M or gRPC ModelMetadata) and config (GET /v2/models/M/config or gRPC ModelConfig).
 * A pure function of the two JSON documents; accepts Triton's snake_case JSON and the camelCase,
 * int64-as-string form k6's gRPC client returns. Runs inside k6: no Node imports.
 */
import { fromConfigDatatype } from '../lib/tensor/datatypes.ts';
import {
  closedLoop,
  type Datatype,
  type DynamicBatching,
  type ModelEntry,
  type TensorSpec,
} from './types.ts';

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

/** The parts of a model config this reads, in either JSON spelling. */
export interface LiveConfigJson {
  name?: string;
  platform?: string;
  backend?: string;
  max_batch_size?: number | string;
  maxBatchSize?: number | string;
  input?: LiveConfigTensor[];
  output?: LiveConfigTensor[];
  dynamic_batching?: Record<string, unknown>;
  dynamicBatching?: Record<string, unknown>;
  instance_group?: Array<{ count?: number | string }>;
  instanceGroup?: Array<{ count?: number | string }>;
  /** gRPC's ModelConfigResponse wraps the config. */
  config?: LiveConfigJson;
}

/** One input/output of a config; data_type is "TYPE_FP32" style. */
export interface LiveConfigTensor {
  name: string;
  data_type?: string;
  dataType?: string;
  dims?: Array<number | string>;
}

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

function pick<T>(obj: Record<string, unknown> | undefined, snake: string, camel: string): T | undefined {
  return (obj?.[snake] ?? obj?.[camel]) as T | undefined;
}

/** Builds the tensors from metadata (names, datatypes) and config (dims without the batch dim). */
function tensors(
  meta: MetadataTensorJson[],
  config: LiveConfigTensor[] | undefined,
  maxBatchSize: number,
  kind: string,
): TensorSpec[] {
  const fromConfig = new Map((config ?? []).map((t) => [t.name, t]));
  return meta.map((t) => {
    const cfg = fromConfig.get(t.name);
    const shape = (t.shape ?? []).map((d) => num(d, -1));
    const dims = cfg?.dims ? cfg.dims.map((d) => num(d, -1)) : maxBatchSize > 0 ? shape.slice(1) : shape;
    if (!t.name) throw new Error(`model metadata lists an ${kind} without a name`);
    return {
      name: t.name,
      datatype: toDatatype(t.datatype || cfg?.data_type || cfg?.dataType, t.name),
      dims,
    };
  });
}

/** Maps Triton's dynamic_batching section onto the catalog's DynamicBatching. */
function batching(raw: Record<string, unknown> | undefined): DynamicBatching | undefined {
  if (!raw) return undefined;
  const out: DynamicBatching = {};
  const preferred = pick<Array<number | string>>(raw, 'preferred_batch_size', 'preferredBatchSize');
  if (preferred?.length) out.preferredBatchSize = preferred.map((v) => num(v, 0));
  const delay = pick<number | string>(raw, 'max_queue_delay_microseconds', 'maxQueueDelayMicroseconds');
  if (delay !== undefined) out.maxQueueDelayMicroseconds = num(delay, 0);
  const policy = pick<Record<string, unknown>>(raw, 'default_queue_policy', 'defaultQueuePolicy');
  const queue = pick<number | string>(policy, 'max_queue_size', 'maxQueueSize');
  if (queue !== undefined) out.maxQueueSize = num(queue, 0);
  const timeout = pick<number | string>(policy, 'default_timeout_microseconds', 'defaultTimeoutMicroseconds');
  if (timeout !== undefined) out.defaultTimeoutMicroseconds = num(timeout, 0);
  return out;
}

/** Builds a catalog entry (random payloads, batch 1) from a live model's metadata and config documents. */
export function liveModelEntry(metadata: ModelMetadataJson, configDoc: LiveConfigJson = {}): ModelEntry {
  const config = configDoc.config ?? configDoc;
  const name = metadata?.name || config.name;
  if (!name) throw new Error('model metadata has no "name"; is this GET /v2/models/<model>?');
  if (!Array.isArray(metadata.inputs) || metadata.inputs.length === 0) {
    throw new Error(`model ${name}: metadata lists no inputs; is the model loaded and ready?`);
  }
  const maxBatchSize = num(config.max_batch_size ?? config.maxBatchSize, 0);
  const groups = config.instance_group ?? config.instanceGroup ?? [];
  const instanceCount = groups.reduce((n, g) => n + num(g.count, 1), 0) || 1;
  const dynamicBatching = batching(config.dynamic_batching ?? config.dynamicBatching);
  const inputs = tensors(metadata.inputs, config.input, maxBatchSize, 'input');
  return {
    id: name,
    name,
    platform: config.platform || metadata.platform || config.backend || 'unknown',
    maxBatchSize,
    inputs,
    outputs: tensors(metadata.outputs ?? [], config.output, maxBatchSize, 'output'),
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
