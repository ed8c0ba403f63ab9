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

/** One simulated generative model. */
export interface GenerativeModelEntry {
  id: string;
  /** Triton model name. */
  name: string;
  inputs: TensorSpec[];
  /** Optional inputs (Triton's `optional: true`). */
  optionalInputs: string[];
  outputs: TensorSpec[];
  calibration: GenerativeCalibration;
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
  inputs: [
    { name: 'text_input', datatype: 'BYTES', dims: [1] },
    { name: 'max_tokens', datatype: 'INT32', dims: [1] },
    { name: 'stream', datatype: 'BOOL', dims: [1] },
  ],
  optionalInputs: ['max_tokens', 'stream'],
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
  // About 5 requests/s per VU at c1: a 10 s window holds 50 of them; c16 shows the knee.
  load: {
    concurrency: [1, 2, 4, 8, 16],
    window_s: 10,
    warmup_s: 2,
    note: 'the calibration workload at concurrency 1, then the knee as decoding sequences share each step',
  },
};

/** Every simulated generative model, keyed by id. */
export const GENERATIVE: Readonly<Record<string, GenerativeModelEntry>> = { [GPT2.id]: GPT2 };

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
    payload: { kind: 'prompt' },
    load: g.load,
    scenario: 'llm',
    deployment: { instanceCount: 1 },
    source: { seed: '', note: g.calibration.source },
  };
}
