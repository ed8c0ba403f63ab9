import { closedLoop } from '../lib/load/shapes.ts';
import type { ModelEntry } from './types.ts';

/**
 * The catalog entry of a model the catalog does not know: only its name is given; its tensors
 * and max_batch_size are read from the server (setup() in the generic scenario, models/live.ts
 * in the bench command), as perf_analyzer does.
 */
export function genericEntry(modelName: string | undefined): ModelEntry {
  if (!modelName) {
    throw new Error(
      'MODEL_NAME is not set; the generic scenario needs the served model name (-e MODEL_NAME=<name>)',
    );
  }
  return {
    id: 'generic',
    name: modelName,
    platform: '',
    // Unknown until the server's config is read; the real limit is checked by the server.
    maxBatchSize: Number.MAX_SAFE_INTEGER,
    inputs: [],
    outputs: [],
    precisions: {},
    defaultBatch: 1,
    payload: { kind: 'random' },
    load: closedLoop([1, 2, 4, 8], 'any model: doubling concurrency from perf_analyzer default of 1'),
    scenario: 'generic',
    deployment: { instanceCount: 1 },
    source: { seed: '', note: 'read from the server' },
  };
}
