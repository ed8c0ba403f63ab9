/**
 * A model's configuration from either protocol, normalised once: HTTP's GET /v2/models/M/config is
 * Triton's snake_case JSON with numbers; k6's gRPC ModelConfigResponse wraps a camelCase message whose
 * 64-bit integers are strings. The live catalog (models/live.ts) and setup() read only this shape.
 */

/** Dynamic batcher settings, as in Triton's model config. */
export interface DynamicBatching {
  preferredBatchSize?: number[];
  maxQueueDelayMicroseconds?: number;
  maxQueueSize?: number;
  defaultTimeoutMicroseconds?: number;
}

/** One input or output of a config; dims exclude the batch dimension, -1 is variable. */
export interface ConfigTensor {
  name: string;
  /** Triton's config spelling, e.g. TYPE_FP32. */
  dataType: string;
  dims: number[];
}

/** The parts of a model configuration the suite reads. */
export interface ModelConfig {
  name: string;
  platform: string;
  backend: string;
  maxBatchSize: number;
  /** Sum of the instance groups' counts (1 when the config names none). */
  instanceCount: number;
  dynamicBatching?: DynamicBatching;
  inputs: ConfigTensor[];
  outputs: ConfigTensor[];
}

type Loose = Record<string, unknown> | undefined;

/** A field in either spelling: Triton's JSON (snake_case) or protojson (camelCase). */
function field<T>(object: Loose, snake: string): T | undefined {
  const camel = snake.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
  return (object?.[snake] ?? object?.[camel]) as T | undefined;
}

/** A number that may arrive as an int64 string; `fallback` when absent or not a number. */
function num(value: unknown, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = Number(value);
  return Number.isFinite(n) ? n : fallback;
}

function tensors(list: Loose[] | undefined): ConfigTensor[] {
  return (list ?? []).map((t) => ({
    name: String(t?.['name'] ?? ''),
    dataType: String(field<string>(t, 'data_type') ?? ''),
    dims: (field<unknown[]>(t, 'dims') ?? []).map((d) => num(d, -1)),
  }));
}

function batching(raw: Loose): DynamicBatching | undefined {
  if (!raw) return undefined;
  const out: DynamicBatching = {};
  const preferred = field<unknown[]>(raw, 'preferred_batch_size');
  if (preferred?.length) out.preferredBatchSize = preferred.map((v) => num(v, 0));
  const delay = field<unknown>(raw, 'max_queue_delay_microseconds');
  if (delay !== undefined) out.maxQueueDelayMicroseconds = num(delay, 0);
  const policy = field<Loose>(raw, 'default_queue_policy');
  const queue = field<unknown>(policy, 'max_queue_size');
  if (queue !== undefined) out.maxQueueSize = num(queue, 0);
  const timeout = field<unknown>(policy, 'default_timeout_microseconds');
  if (timeout !== undefined) out.defaultTimeoutMicroseconds = num(timeout, 0);
  return out;
}

/** Normalises a config document from HTTP, or gRPC's ModelConfigResponse (`{ config }`) or its message. */
export function normalizeModelConfig(doc: unknown): ModelConfig {
  const outer = (doc ?? {}) as Record<string, unknown>;
  const config = (outer['config'] ?? outer) as Record<string, unknown>;
  const groups = field<Loose[]>(config, 'instance_group') ?? [];
  const dynamicBatching = batching(field<Loose>(config, 'dynamic_batching'));
  return {
    name: String(config['name'] ?? ''),
    platform: String(config['platform'] ?? ''),
    backend: String(config['backend'] ?? ''),
    maxBatchSize: num(field(config, 'max_batch_size'), 0),
    instanceCount: groups.reduce((n, g) => n + num(g?.['count'], 1), 0) || 1,
    ...(dynamicBatching ? { dynamicBatching } : {}),
    inputs: tensors(config['input'] as Loose[] | undefined),
    outputs: tensors(config['output'] as Loose[] | undefined),
  };
}
