/**
 * A sweep config applied to a model config (Triton's JSON, as GET /v2/models/<m>/config returns it): the
 * load API's "config" parameter replaces the whole config, so the override is the original with a few fields
 * changed, never a fragment. Pure: the caller does the HTTP.
 */
import type { SweepConfig } from './grid.ts';

type Json = Record<string, unknown>;

/** The fields a sweep changes, as a server reports them; read back after each load to check it took. */
export interface AppliedConfig {
  instances: number;
  kind: string;
  max_queue_delay_us: number | null;
  preferred_batch_size: number[];
  max_batch_size: number;
}

function object(value: unknown): Json | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/** Reads the swept fields of a config; numbers may arrive as strings (int64 in JSON). */
export function appliedConfig(config: Json): AppliedConfig {
  const groups = Array.isArray(config.instance_group) ? (config.instance_group as unknown[]).map(object) : [];
  const batching = object(config.dynamic_batching);
  return {
    // Triton runs one instance when the config names no group.
    instances: groups.length === 0 ? 1 : groups.reduce((sum, g) => sum + Number(g?.count ?? 1), 0),
    kind: String(groups[0]?.kind ?? 'KIND_CPU'),
    max_queue_delay_us: batching ? Number(batching.max_queue_delay_microseconds ?? 0) : null,
    preferred_batch_size: Array.isArray(batching?.preferred_batch_size)
      ? (batching.preferred_batch_size as unknown[]).map(Number)
      : [],
    max_batch_size: Number(config.max_batch_size ?? 0),
  };
}

/** The original config with the sweep's fields replaced; the original is not changed. */
export function withOverride(original: Json, c: SweepConfig): Json {
  const config = structuredClone(original);
  const groups = Array.isArray(config.instance_group) ? (config.instance_group as unknown[]) : [];
  // Several groups collapse into one of the first group's kind: the count is the sweep's whole instance count.
  const first = object(groups[0]) ?? { kind: 'KIND_CPU' };
  config.instance_group = [{ ...first, count: c.instances }];
  const batching: Json = { ...(object(config.dynamic_batching) ?? {}) };
  batching.max_queue_delay_microseconds = c.max_queue_delay_us;
  if (c.preferred_batch !== undefined) batching.preferred_batch_size = [c.preferred_batch];
  config.dynamic_batching = batching;
  if (c.max_batch_size !== undefined) config.max_batch_size = c.max_batch_size;
  return config;
}

/** Where the server's config differs from what was asked for, one phrase each; empty when it took. */
export function overrideMismatches(asked: SweepConfig, applied: AppliedConfig): string[] {
  const out: string[] = [];
  if (applied.instances !== asked.instances)
    out.push(`instances ${applied.instances}, asked ${asked.instances}`);
  if (applied.max_queue_delay_us !== asked.max_queue_delay_us)
    out.push(`max_queue_delay_microseconds ${applied.max_queue_delay_us}, asked ${asked.max_queue_delay_us}`);
  if (
    asked.preferred_batch !== undefined &&
    applied.preferred_batch_size.join(',') !== String(asked.preferred_batch)
  )
    out.push(
      `preferred_batch_size [${applied.preferred_batch_size.join(', ')}], asked [${asked.preferred_batch}]`,
    );
  if (asked.max_batch_size !== undefined && applied.max_batch_size !== asked.max_batch_size)
    out.push(`max_batch_size ${applied.max_batch_size}, asked ${asked.max_batch_size}`);
  return out;
}
