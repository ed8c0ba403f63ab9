/**
 * Server and model metadata from either protocol (HTTP JSON, or k6 gRPC messages
 * whose int64 shapes arrive as strings), normalised to one shape.
 */
import { type Datatype, fromConfigDatatype, isDatatype } from '../tensor/datatypes.ts';
import type { ConfigTensor } from './config.ts';
import type { ModelMetadata, ServerMetadata, TensorMetadata, TensorSpec } from './types.ts';

type Loose = Record<string, unknown>;

/** Normalises GET /v2 JSON or a gRPC ServerMetadataResponse. */
export function normalizeServerMetadata(response: unknown): ServerMetadata {
  const object = (response ?? {}) as Loose;
  return {
    name: String(object['name'] ?? ''),
    version: String(object['version'] ?? ''),
    extensions: ((object['extensions'] as unknown[] | undefined) ?? []).map(String),
  };
}

/** Normalises GET /v2/models/M JSON or a gRPC ModelMetadataResponse; throws on unknown datatypes. */
export function normalizeModelMetadata(response: unknown): ModelMetadata {
  const object = (response ?? {}) as Loose;
  const name = String(object['name'] ?? '');
  const tensors = (key: string): TensorMetadata[] =>
    ((object[key] as Loose[] | undefined) ?? []).map((tensor) => {
      const datatype = String(tensor['datatype'] ?? '');
      if (!isDatatype(datatype)) {
        throw new Error(
          `model "${name}" metadata: tensor "${String(tensor['name'])}" has unknown datatype "${datatype}"`,
        );
      }
      return {
        name: String(tensor['name'] ?? ''),
        datatype,
        shape: ((tensor['shape'] as unknown[] | undefined) ?? []).map(Number),
      };
    });
  return {
    name,
    versions: ((object['versions'] as unknown[] | undefined) ?? []).map(String),
    platform: String(object['platform'] ?? ''),
    inputs: tensors('inputs'),
    outputs: tensors('outputs'),
  };
}

/** A tensor as model metadata lists it: the shape includes the batch dimension (-1) when the model batches. */
export interface MetadataTensorJson {
  name: string;
  datatype: string;
  shape: ReadonlyArray<number | string>;
}

/**
 * A model's tensors as the catalog states them, from its metadata (names, datatypes) and config (dims
 * without the batch dimension; the metadata's shape less its batch dimension where the config has none),
 * as perf_analyzer reads a live model. `kind` ('input', 'output') names the tensors in errors.
 */
export function tensorSpecs(
  metadata: readonly MetadataTensorJson[],
  config: readonly ConfigTensor[],
  maxBatchSize: number,
  kind: string,
): TensorSpec[] {
  const fromConfig = new Map(config.map((t) => [t.name, t]));
  return metadata.map((t) => {
    if (!t.name) throw new Error(`model metadata lists an ${kind} without a name`);
    const cfg = fromConfig.get(t.name);
    const shape = (t.shape ?? []).map((d) => dim(d));
    const dims = cfg && cfg.dims.length > 0 ? cfg.dims : maxBatchSize > 0 ? shape.slice(1) : shape;
    return { name: t.name, datatype: specDatatype(t.datatype || cfg?.dataType, t.name), dims };
  });
}

/** A metadata dim; anything not a number (gRPC's int64 strings are numbers) is variable, -1. */
function dim(v: number | string): number {
  if (v === '') return -1;
  const n = Number(v);
  return Number.isFinite(n) ? n : -1;
}

/** "FP32" or Triton's config "TYPE_FP32" / "TYPE_STRING" as a KServe datatype; throws naming the tensor. */
function specDatatype(raw: string | undefined, tensor: string): Datatype {
  try {
    return fromConfigDatatype(raw ?? '');
  } catch {
    throw new Error(`tensor ${tensor} has datatype "${raw}", which is not a Triton datatype`);
  }
}
