/** The simulated generative model's timing comes from its config parameters, all four of them. */
import { describe, expect, it } from 'vitest';
import { timingFromParameters } from '../src/genai/timing.ts';

const FULL = {
  prefill_ms_per_token: { string_value: '0.5' },
  decode_base_ms: { string_value: '2' },
  decode_ms_per_sequence: { string_value: '0.25' },
  kv_cache_tokens: { string_value: '100' },
};

describe('simulated_llm timing parameters', () => {
  it('reads each field from its parameter', () => {
    expect(timingFromParameters(FULL, 'm')).toEqual({
      prefillPerToken_ms: 0.5,
      decodeBase_ms: 2,
      decodePerSequence_ms: 0.25,
      kvCache_tokens: 100,
    });
  });

  it('refuses a config that leaves one out, naming it, and a value that is not a number >= 0', () => {
    const { kv_cache_tokens: _, ...partial } = FULL;
    expect(() => timingFromParameters(partial, 'm')).toThrow(
      /model 'm' on simulated_llm needs parameter kv_cache_tokens/,
    );
    expect(() => timingFromParameters({ ...FULL, decode_base_ms: { string_value: '-1' } }, 'm')).toThrow(
      /invalid parameter decode_base_ms="-1" for model 'm'/,
    );
  });
});
