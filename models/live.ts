/**
 * A catalog entry built from a live server, as perf_analyzer does: the model's metadata
 * (GET /v2/models/M or gRPC ModelMetadata) and config (GET /v2/models/M/config or gRPC ModelConfig).
 * A pure function of the two JSON documents; the config in either protocol's spelling is read by
 * lib/kserve/config.ts. Runs inside k6: no Node imports.
 */
import { normalizeModelConfig } from '../lib/kserve/config.ts';
import { type MetadataTensorJson, tensorSpecs } from '../lib/kserve/metadata.ts';
import { closedLoop } from '../lib/load/shapes.ts';
import type { ModelEntry } from './types.ts';

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

/** Builds a catalog entry (random payloads, batch 1) from a live model's metadata and config documents. */
export function liveModelEntry(metadata: ModelMetadataJson, configDoc: LiveConfigJson = {}): ModelEntry {
  const config = normalizeModelConfig(configDoc);
  const name = metadata?.name || config.name;
  if (!name) throw new Error('model metadata has no "name"; is this GET /v2/models/<model>?');
  if (!Array.isArray(metadata.inputs) || metadata.inputs.length === 0) {
    throw new Error(`model ${name}: metadata lists no inputs; is the model loaded and ready?`);
  }
  const { maxBatchSize, instanceCount, dynamicBatching } = config;
  const inputs = tensorSpecs(metadata.inputs, config.inputs, maxBatchSize, 'input');
  return {
    id: name,
    name,
    platform: config.platform || metadata.platform || config.backend || 'unknown',
    maxBatchSize,
    inputs,
    outputs: tensorSpecs(metadata.outputs ?? [], config.outputs, maxBatchSize, 'output'),
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
