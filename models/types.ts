/**
 * The model catalog's types. A catalog entry is the one place that states a model's
 * tensors; payload generators, scenarios and the embedded server all read it. The protocol types it
 * is made of (datatypes, tensor specs, batcher settings, load shapes) live below it in lib/.
 * This folder runs inside k6 too: no Node imports.
 */
import type { PromptDefaults } from '../lib/genai/settings.ts';
import type { DynamicBatching } from '../lib/kserve/config.ts';
import type { TensorSpec } from '../lib/kserve/types.ts';
import type { LoadShape } from '../lib/load/shapes.ts';
import type { Datatype } from '../lib/tensor/datatypes.ts';

/** Precision names a user may pick with PRECISION=..., mapped to the datatypes they give each input. */
export type Precision = 'FP32' | 'FP16' | 'INT32' | 'INT64';

/** How payloads for a model are made (payloads/ reads this; the recipe names no files). */
export type PayloadRecipe =
  | { kind: 'image'; channels: number; height: number; width: number; mean: number[]; std: number[] }
  | { kind: 'dlrm'; numerical: number; cardinalities: number[] }
  | { kind: 'bert'; seqLength: number; docStride: number; maxQueryLength: number }
  | { kind: 'mnist' }
  | { kind: 'random' }
  /**
   * Generative models: the scenario writes its prompt itself (scenarios/kit/genai/stream-test.ts); no payload set. The
   * lengths (and a repeat model's delays) its requests ask for when no setting says otherwise.
   */
  | ({ kind: 'prompt' } & PromptDefaults)
  /** Sequence models: each request carries [sequence id, step] for the echo check (lib/sequence/); no payload set. */
  | { kind: 'sequence' };

/**
 * Triton's sequence batcher (config.pbtxt `sequence_batching`): requests carry a correlation id and START/END
 * flags; a live sequence holds a slot until its END or until it idles longer than maxSequenceIdleMicroseconds.
 */
export interface SequenceBatching {
  /** Direct: one slot per batch position (max_batch_size per instance); Oldest: batches the oldest candidates. */
  strategy: 'direct' | 'oldest';
  maxSequenceIdleMicroseconds: number;
  /** How long a batch waits for more sequences' requests. @default 0 */
  maxQueueDelayMicroseconds?: number;
  /** Oldest only: sequences each instance batches from. */
  maxCandidateSequences?: number;
}

/** Where a model's published figures come from (a seed write-up). */
export interface SourceNote {
  seed: string;
  note: string;
}

/** One catalog entry. */
export interface ModelEntry {
  /** Key users type (MODEL=...). */
  id: string;
  /** Triton model name as NVIDIA's deployers export it. */
  name: string;
  /** Triton platform string (config.pbtxt `platform`). */
  platform: string;
  /**
   * A Triton backend that serves the model as is, on both servers, with no model file (`identity`); absent: the
   * embedded server simulates it and `k6-triton repository` writes an ONNX stand-in.
   */
  backend?: string;
  /** 0 means the model has no batch dimension. */
  maxBatchSize: number;
  inputs: TensorSpec[];
  outputs: TensorSpec[];
  /** Datatypes each input takes per PRECISION; inputs not named keep their catalog datatype. */
  precisions: Partial<Record<Precision, Record<string, Datatype>>>;
  /** Default request batch size (perf_analyzer -b). */
  defaultBatch: number;
  payload: PayloadRecipe;
  /** The default load: closed-loop levels, window and warm-up, and the seed figure they reproduce. */
  load: LoadShape;
  /** The k6 entry that runs this model: scenarios/<scenario>.ts (bundled to dist/<scenario>.js). */
  scenario: string;
  /** Short names the commands and make targets take too (`make bench-resnext`). */
  aliases?: string[];
  /** Server-side settings of the default deployment (the embedded server's default repository). */
  deployment: {
    instanceCount: number;
    dynamicBatching?: DynamicBatching;
    sequenceBatching?: SequenceBatching;
  };
  source: SourceNote;
  /** The embedded server's simulated compute time per batch, calibrated on the seed's published figures. */
  latency?: LatencyProfile;
  /** Other profiles where a precision changes the compute time (ResNeXt's FP16 TensorRT engine). */
  latencyByPrecision?: Partial<Record<Precision, LatencyProfile>>;
}

/**
 * Compute time of one batch as a function of its size: [batch size, ms] points in increasing batch
 * order (linear between points, along the last segment past the end), and where they come from.
 */
export interface LatencyProfile {
  points: readonly (readonly [number, number])[];
  source: string;
}
