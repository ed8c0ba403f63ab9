/**
 * Server and model metadata from either protocol (HTTP JSON, or k6 gRPC messages
 * whose int64 shapes arrive as strings), normalised to one shape.
 */
import { isDatatype } from '../tensor/datatypes.ts';
import type { ModelMetadata, ServerMetadata, TensorMetadata } from './types.ts';

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
