/**
 * The model catalog's types. A catalog entry is the one place that states a model's
 * tensors; payload generators, scenarios and the embedded server all read it.
 * This folder runs inside k6 too: no Node imports.
 */

/** Triton's tensor datatypes, as the KServe v2 protocol spells them. */
export type Datatype =
  | 'BOOL'
  | 'UINT8'
  | 'UINT16'
  | 'UINT32'
  | 'UINT64'
  | 'INT8'
  | 'INT16'
  | 'INT32'
  | 'INT64'
  | 'FP16'
  | 'BF16'
  | 'FP32'
  | 'FP64'
  | 'BYTES';

/** One input or output tensor; dims exclude the batch dimension when maxBatchSize > 0, -1 marks a variable dim. */
export interface TensorSpec {
  name: string;
  datatype: Datatype;
  dims: number[];
}

/** Precision names a user may pick with PRECISION=..., mapped to the datatypes they give each input. */
export type Precision = 'FP32' | 'FP16' | 'INT32' | 'INT64';

/** How payloads for a model are made (payloads/ reads this; the recipe names no files). */
export type PayloadRecipe =
  | { kind: 'image'; channels: number; height: number; width: number; mean: number[]; std: number[] }
  | { kind: 'dlrm'; numerical: number; cardinalities: number[] }
  | { kind: 'bert'; seqLength: number; docStride: number; maxQueryLength: number }
  | { kind: 'mnist' }
  | { kind: 'random' };

/** Dynamic batcher settings, as in Triton's model config. */
export interface DynamicBatching {
  preferredBatchSize?: number[];
  maxQueueDelayMicroseconds?: number;
  maxQueueSize?: number;
  defaultTimeoutMicroseconds?: number;
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
  deployment: { instanceCount: number; dynamicBatching?: DynamicBatching };
  source: SourceNote;
  /** The embedded server's simulated compute time per batch, calibrated on the seed's published figures. */
  latency?: LatencyProfile;
  /** Other profiles where a precision changes the compute time (ResNeXt's FP16 TensorRT engine). */
  latencyByPrecision?: Partial<Record<Precision, LatencyProfile>>;
}

/** A model's default load: closed-loop levels plus the per-level warm-up and measurement window. */
export interface LoadShape {
  /** Concurrency levels (VUs) swept in closed-loop mode, ascending. */
  concurrency: readonly number[];
  /** Measurement window per level, seconds (perf_analyzer's default --measurement-interval is 5000 ms). */
  window_s: number;
  /** Warm-up before each window, seconds; its samples are tagged apart and never judged. */
  warmup_s: number;
  /** Why these levels: the seed figure they reproduce. */
  note: string;
}

/** perf_analyzer's default measurement window. */
export const DEFAULT_WINDOW_S = 5;
/** Warm-up per level: long enough for in-flight requests of the previous level to drain. */
export const DEFAULT_WARMUP_S = 2;

/** A load shape with the default window and warm-up. */
export function closedLoop(concurrency: readonly number[], note: string): LoadShape {
  return { concurrency, window_s: DEFAULT_WINDOW_S, warmup_s: DEFAULT_WARMUP_S, note };
}

/**
 * Compute time of one batch as a function of its size: [batch size, ms] points in increasing batch
 * order (linear between points, along the last segment past the end), and where they come from.
 */
export interface LatencyProfile {
  points: readonly (readonly [number, number])[];
  source: string;
}
