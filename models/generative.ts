/**
 * Generative (text) models the embedded server simulates: their tensors as a text LLM on Triton takes them and
 * the published figures their timing is calibrated on. Apart from catalog.ts because they are served by a
 * decoupled simulated backend, not by the image/tabular scenarios. This folder runs inside k6 too: no Node imports.
 */
import type { TensorSpec } from '../lib/kserve/types.ts';
import type { LoadShape } from '../lib/load/shapes.ts';
import type { ModelEntry } from './types.ts';

/** A published streaming measurement: one workload at one concurrency. */
export interface GenerativeCalibration {
  concurrency: number;
  inputTokens: number;
  outputTokens: number;
  ttft_ms: number;
  itl_ms: number;
  latency_ms: number;
  outputTokens_per_s: number;
  requests_per_s: number;
  source: string;
}

/**
 * Which backend serves the model, and so what its requests carry: `simulated_llm` takes a prompt
 * (`text_input`, `max_tokens`, `stream`), `repeat` (Triton's decoupled test backend) takes the values to send
 * back (`IN`) and the delay before each (`DELAY`, ms), so its timing is the request's own.
 */
export type GenerativeBackend = 'simulated_llm' | 'repeat';

/** One generative model the scenario streams from (simulated by the embedded server, or real Triton's repeat). */
export interface GenerativeModelEntry {
  id: string;
  /** Triton model name. */
  name: string;
  backend: GenerativeBackend;
  inputs: TensorSpec[];
  /** Optional inputs (Triton's `optional: true`). */
  optionalInputs: string[];
  outputs: TensorSpec[];
  calibration: GenerativeCalibration;
  /**
   * Its tokenizer.json (or the folder holding it), from the package root: what counts a prompt's tokens when its
   * workload is made (payloads/prompts.ts). Absent for a model that takes no prompt.
   */
  tokenizer?: string;
  /** The default load of its bench (scenarios/llm.ts): closed-loop levels, window and warm-up. */
  load: LoadShape;
}

/**
 * gpt2 as genai-perf's tutorial serves it (TensorRT-LLM). Inputs as the TensorRT-LLM and vLLM backends name
 * them: `text_input`, `max_tokens`, `stream` (true: one response per token; false: one response with the text).
 */
export const GPT2: GenerativeModelEntry = {
  id: 'gpt2',
  name: 'gpt2',
  backend: 'simulated_llm',
  inputs: [
    { name: 'text_input', datatype: 'BYTES', dims: [1] },
    { name: 'max_tokens', datatype: 'INT32', dims: [1] },
    { name: 'stream', datatype: 'BOOL', dims: [1] },
    { name: 'min_length', datatype: 'INT32', dims: [1] },
    { name: 'exclude_input_in_output', datatype: 'BOOL', dims: [1] },
  ],
  // TensorRT-LLM's length controls are taken and need nothing: the model never stops early nor echoes the prompt.
  optionalInputs: ['max_tokens', 'stream', 'min_length', 'exclude_input_in_output'],
  outputs: [{ name: 'text_output', datatype: 'BYTES', dims: [1] }],
  calibration: {
    concurrency: 1,
    inputTokens: 200,
    outputTokens: 100,
    ttft_ms: 13.68,
    itl_ms: 1.86,
    latency_ms: 203.7,
    outputTokens_per_s: 504,
    requests_per_s: 4.87,
    source:
      "genai-perf README's example run: gpt2 on TensorRT-LLM, 200 input / 100 output tokens, concurrency 1",
  },
  tokenizer: 'packages/server/src/models/gpt2/tokenizer.json',
  // About 5 requests/s per VU at c1: a 10 s window holds 50 of them; c16 shows the knee.
  load: {
    concurrency: [1, 2, 4, 8, 16],
    window_s: 10,
    warmup_s: 2,
    note: 'the calibration workload at concurrency 1, then the knee as decoding sequences share each step',
  },
};

/**
 * Triton's decoupled `repeat` backend (its QA model repeat_int32, which real Triton 2.60.0 and the embedded
 * server both serve): one response per element of IN, each DELAY[i] ms after the previous, then WAIT ms before
 * the request completes. Its "calibration" is what its requests ask for (FIRST_DELAY_MS, TOKEN_DELAY_MS over
 * these), so a run's TTFT and gaps can be checked against the delays requested.
 */
export const REPEAT: GenerativeModelEntry = {
  id: 'repeat',
  name: 'repeat_int32',
  backend: 'repeat',
  inputs: [
    { name: 'IN', datatype: 'INT32', dims: [-1] },
    { name: 'DELAY', datatype: 'UINT32', dims: [-1] },
    { name: 'WAIT', datatype: 'UINT32', dims: [1] },
  ],
  optionalInputs: [],
  outputs: [
    { name: 'OUT', datatype: 'INT32', dims: [1] },
    { name: 'IDX', datatype: 'UINT32', dims: [1] },
  ],
  calibration: {
    concurrency: 1,
    inputTokens: 1,
    outputTokens: 20,
    ttft_ms: 20,
    itl_ms: 5,
    latency_ms: 20 + 19 * 5,
    outputTokens_per_s: 20 / ((20 + 19 * 5) / 1000),
    requests_per_s: 1000 / (20 + 19 * 5),
    source:
      'the delays each request asks for: 20 ms before the first response, 5 ms before each of the other 19',
  },
  load: {
    concurrency: [1, 4],
    window_s: 5,
    warmup_s: 1,
    note: "the requested delays at concurrency 1 and 4 (the repeat backend's requests do not share anything)",
  },
};

/** Every generative model, keyed by id. */
export const GENERATIVE: Readonly<Record<string, GenerativeModelEntry>> = {
  [GPT2.id]: GPT2,
  [REPEAT.id]: REPEAT,
};

/**
 * The run-side view of a generative entry (the ModelEntry the run plan, bench and capacity read), made from
 * it so its tensors and load are stated once: no batch dimension, prompts written by its scenario.
 */
export function generativeModelEntry(g: GenerativeModelEntry): ModelEntry {
  return {
    id: g.id,
    name: g.name,
    platform: '',
    maxBatchSize: 0,
    inputs: g.inputs,
    outputs: g.outputs,
    precisions: {},
    defaultBatch: 1,
    payload: {
      kind: 'prompt',
      inputTokens: g.calibration.inputTokens,
      outputTokens: g.calibration.outputTokens,
      ...(g.backend === 'repeat'
        ? { delays: { first_ms: g.calibration.ttft_ms, token_ms: g.calibration.itl_ms } }
        : {}),
    },
    // A stream lasts its calibrated latency: open-loop levels get VUs for the streams they keep in flight.
    load: { ...g.load, request_s: g.calibration.latency_ms / 1000 },
    scenario: 'llm',
    deployment: { instanceCount: 1 },
    source: { seed: '', note: g.calibration.source },
  };
}
