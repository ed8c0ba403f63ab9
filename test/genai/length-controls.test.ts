/** The output-length inputs per LLM backend (lib/genai/length-controls.ts), as genai-perf sends them. */
import { describe, expect, it } from 'vitest';
import { openAiLengthFields, promptInputs } from '../../lib/genai/length-controls.ts';

describe('output length per backend', () => {
  it('TensorRT-LLM: max_tokens and min_length the same, the prompt not echoed', () => {
    expect(promptInputs('trtllm', 'hi there', 7)).toEqual([
      { name: 'text_input', datatype: 'BYTES', values: ['hi there'] },
      { name: 'stream', datatype: 'BOOL', values: [true] },
      { name: 'exclude_input_in_output', datatype: 'BOOL', values: [true] },
      { name: 'max_tokens', datatype: 'INT32', values: [7] },
      { name: 'min_length', datatype: 'INT32', values: [7] },
    ]);
  });

  it('vLLM: sampling_parameters with max_tokens, min_tokens and ignore_eos', () => {
    const inputs = promptInputs('vllm', 'hi', 5);
    const sampling = inputs.find((t) => t.name === 'sampling_parameters')!;
    expect(JSON.parse(String(sampling.values[0]))).toEqual({
      max_tokens: 5,
      min_tokens: 5,
      ignore_eos: true,
    });
    expect(inputs.map((t) => t.name)).not.toContain('max_tokens');
  });

  it('OpenAI: max_tokens (vLLM also min_tokens, ignore_eos)', () => {
    expect(openAiLengthFields(3)).toEqual({ max_tokens: 3 });
    expect(openAiLengthFields(3, 'vllm')).toEqual({ max_tokens: 3, min_tokens: 3, ignore_eos: true });
  });
});
