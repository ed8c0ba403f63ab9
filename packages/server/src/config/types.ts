/**
 * A model's configuration in Triton's JSON form (snake_case), as GET /v2/models/M/config returns it.
 * Only the fields the server reads are typed; config.pbtxt may hold more, which are kept as parsed.
 */

/** One input or output of a model config; data_type is Triton's "TYPE_FP32" spelling. */
export interface ModelTensorConfigJson {
  name: string;
  data_type: string;
  /** Excludes the batch dimension when max_batch_size > 0; -1 marks a variable dim. */
  dims: number[];
  format?: string;
  reshape?: { shape: number[] };
  optional?: boolean;
  label_filename?: string;
  [key: string]: unknown;
}

/** The dynamic_batching section. */
export interface DynamicBatchingJson {
  preferred_batch_size?: number[];
  max_queue_delay_microseconds?: number;
  preserve_ordering?: boolean;
  default_queue_policy?: QueuePolicyJson;
  [key: string]: unknown;
}

/** Queue policy: max_queue_size, default_timeout_microseconds and what happens on timeout. */
export interface QueuePolicyJson {
  timeout_action?: string;
  default_timeout_microseconds?: number;
  allow_timeout_override?: boolean;
  max_queue_size?: number;
}

/** One instance group: `count` instances of `kind`. */
export interface InstanceGroupJson {
  name?: string;
  kind?: string;
  count?: number;
  gpus?: number[];
  [key: string]: unknown;
}

/** A model config as Triton's JSON form spells it (GET v2/models/M/config); backends read input, output, max_batch_size. */
export interface ModelConfigJson {
  name: string;
  platform: string;
  backend: string;
  version_policy?: Record<string, unknown>;
  max_batch_size: number;
  input: ModelTensorConfigJson[];
  output: ModelTensorConfigJson[];
  instance_group: InstanceGroupJson[];
  dynamic_batching?: DynamicBatchingJson;
  /** Triton's free-form parameters: { key: { string_value } }. */
  parameters?: Record<string, { string_value: string }>;
  [key: string]: unknown;
}
