/**
 * The inputs of a streamed text request to a Triton LLM backend, with its output length pinned the way that
 * backend takes it (genai-perf's choices): TensorRT-LLM `max_tokens` with `min_length` the same, vLLM a
 * `sampling_parameters` JSON with `max_tokens`, `min_tokens` and `ignore_eos`; both with
 * `exclude_input_in_output` so the prompt is not streamed back. The simulated gpt2 takes TensorRT-LLM's.
 * Pure; runs inside k6.
 */

import type { LlmBackend } from '../settings/schema.ts';

export { LLM_BACKENDS, type LlmBackend } from '../settings/schema.ts';

/** One input tensor's name, datatype and values (shape [values.length]). */
export interface PromptInput {
  name: string;
  datatype: 'BYTES' | 'INT32' | 'UINT32' | 'BOOL';
  values: (string | number | boolean)[];
}

/** A streamed request's inputs asking for exactly `outputTokens` tokens (the prompt as text, not base64). */
export function promptInputs(backend: LlmBackend, prompt: string, outputTokens: number): PromptInput[] {
  const common: PromptInput[] = [
    { name: 'text_input', datatype: 'BYTES', values: [prompt] },
    { name: 'stream', datatype: 'BOOL', values: [true] },
    { name: 'exclude_input_in_output', datatype: 'BOOL', values: [true] },
  ];
  if (backend === 'vllm') {
    const sampling = { max_tokens: outputTokens, min_tokens: outputTokens, ignore_eos: true };
    return [
      ...common,
      { name: 'sampling_parameters', datatype: 'BYTES', values: [JSON.stringify(sampling)] },
    ];
  }
  return [
    ...common,
    { name: 'max_tokens', datatype: 'INT32', values: [outputTokens] },
    { name: 'min_length', datatype: 'INT32', values: [outputTokens] },
  ];
}

/** The OpenAI request fields asking for `outputTokens` (vLLM's server also takes min_tokens and ignore_eos). */
export function openAiLengthFields(outputTokens: number, backend?: 'vllm'): Record<string, unknown> {
  return backend === 'vllm'
    ? { max_tokens: outputTokens, min_tokens: outputTokens, ignore_eos: true }
    : { max_tokens: outputTokens };
}
