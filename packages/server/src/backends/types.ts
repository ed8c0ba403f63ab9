import type { Datatype } from '@k6-triton/lib/tensor/datatypes.ts';
import type { ModelConfigJson } from '../config/types.ts';
import type { PrefixCacheCounts } from '../genai/prefix-cache.ts';
import type { CancelSignal } from '../infer/cancel.ts';

export type { ModelConfigJson } from '../config/types.ts';

/** A tensor as backends see it: raw little-endian row-major bytes (BYTES: 4-byte length-prefixed elements). */
export interface TensorData {
  name: string;
  datatype: Datatype;
  shape: number[];
  data: Uint8Array;
}

/** What a backend is given when its model loads. */
export interface BackendContext {
  modelName: string;
  version: string;
  /** <repo>/<model>/<version>; holds model files such as model.onnx. */
  versionDir: string;
  /** The model's config (Triton's JSON form, snake_case, as GET /v2/models/M/config returns it). */
  config: ModelConfigJson;
  /** Instance index within the instance group (one Backend per instance). */
  instance: number;
}

/** One model instance: runs one batch at a time. Inputs are validated and concatenated along the batch dimension. */
export interface Backend {
  execute(inputs: TensorData[], outputNames: string[]): Promise<TensorData[]>;
  close(): Promise<void>;
}

/** A generative engine's scheduler state now (served as TensorRT-LLM's nv_trt_llm_* metrics). */
export interface EngineState {
  /** Sequences in the batch. */
  running: number;
  /** Requests waiting for KV cache. */
  waiting: number;
  kvUsed_tokens: number;
  kvCapacity_tokens: number;
}

/** Sends one response of a decoupled model: its outputs. */
export type SendResponse = (outputs: TensorData[]) => void;

/** A decoupled model's instance: any number of responses per request, requests run side by side. */
export interface DecoupledBackend extends Backend {
  /** Runs one request, sending each response as it is made; resolves after the last (or when `signal` aborts). */
  stream(inputs: TensorData[], send: SendResponse, signal?: CancelSignal): Promise<void>;
  /** A generative engine's prefix-cache counts (tokens), when it keeps a prefix cache. */
  prefixCacheCounts?(): PrefixCacheCounts | undefined;
  /** A generative engine's scheduler state, for the engine metrics; absent on other decoupled backends. */
  engineState?(): EngineState;
}

/** True for a backend that streams (a decoupled model's). */
export function isDecoupledBackend(backend: Backend): backend is DecoupledBackend {
  return typeof (backend as Partial<DecoupledBackend>).stream === 'function';
}

/** Creates one backend instance for a loaded model. */
export type BackendFactory = (ctx: BackendContext) => Promise<Backend>;
