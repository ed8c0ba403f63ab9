/**
 * Whether a model's payload set fits in a ConfigMap beside the bundle. Kubernetes caps a ConfigMap at
 * 1 MiB (etcd's object limit, data and binaryData together, binaryData stored base64), so DLRM's 4096-row
 * requests or ResNet's images never fit, and those runners generate their payloads from the seed instead.
 * Estimated from the catalog's shapes, so the decision costs no generation.
 */
import { batchedShape, byteSize } from '../../lib/tensor/datatypes.ts';
import { inputsFor } from '../../models/index.ts';
import type { ModelEntry } from '../../models/types.ts';

/** Kubernetes' ConfigMap size limit (data + binaryData), bytes. */
export const CONFIGMAP_LIMIT_BYTES = 1024 * 1024;
/** Room kept for object metadata, keys and the manifest JSON files. */
export const CONFIGMAP_MARGIN_BYTES = 64 * 1024;

/** Bytes binaryData takes for `raw` bytes (base64: 4 characters per 3 bytes). */
export function base64Bytes(raw: number): number {
  return 4 * Math.ceil(raw / 3);
}

/** The tensor bytes of a set of `count` requests, or undefined when the size depends on the data (BYTES, -1 dims). */
export function payloadBytes(
  entry: ModelEntry,
  settings: { batch: number; precision: string; count: number },
): number | undefined {
  let perRequest = 0;
  for (const input of inputsFor(entry, settings.precision || undefined)) {
    if (input.datatype === 'BYTES' || input.dims.some((d) => d < 0)) return undefined;
    perRequest += byteSize(input.datatype, batchedShape(input.dims, settings.batch, entry.maxBatchSize));
  }
  return perRequest * settings.count;
}

/** True when the payloads (as binaryData) and `otherBytes` of text fit one ConfigMap with the margin kept. */
export function payloadsFit(payload_bytes: number | undefined, otherBytes: number): boolean {
  if (payload_bytes === undefined) return false;
  return base64Bytes(payload_bytes) + otherBytes + CONFIGMAP_MARGIN_BYTES <= CONFIGMAP_LIMIT_BYTES;
}
