/**
 * The simulated generative model's timing, read from its config parameters (all four required: the server
 * holds no calibration of its own; the tool writes the catalog's into gpt2's config). At concurrency 1 a
 * request of I input and O output tokens then takes TTFT = I x prefill, ITL = base + per-sequence,
 * latency = TTFT + (O - 1) x ITL.
 */
import type { GenerativeTiming } from './scheduler.ts';

/** max_tokens when a request sends none (vLLM's SamplingParams default). */
export const DEFAULT_MAX_TOKENS = 16;

/** Config parameter names of each timing field. */
export const TIMING_PARAMETERS: Readonly<Record<keyof GenerativeTiming, string>> = {
  prefillPerToken_ms: 'prefill_ms_per_token',
  decodeBase_ms: 'decode_base_ms',
  decodePerSequence_ms: 'decode_ms_per_sequence',
  kvCache_tokens: 'kv_cache_tokens',
};

/** The timing a model config sets; throws naming a missing or bad parameter. */
export function timingFromParameters(
  parameters: Record<string, { string_value: string }> | undefined,
  modelName: string,
): GenerativeTiming {
  const out: Partial<GenerativeTiming> = {};
  for (const key of Object.keys(TIMING_PARAMETERS) as (keyof GenerativeTiming)[]) {
    const raw = parameters?.[TIMING_PARAMETERS[key]]?.string_value;
    if (raw === undefined || raw === '') {
      throw new Error(
        `model '${modelName}' on simulated_llm needs parameter ${TIMING_PARAMETERS[key]} ` +
          `(all of ${Object.values(TIMING_PARAMETERS).join(', ')})`,
      );
    }
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) {
      throw new Error(
        `invalid parameter ${TIMING_PARAMETERS[key]}="${raw}" for model '${modelName}'; expected a number >= 0`,
      );
    }
    out[key] = value;
  }
  return out as GenerativeTiming;
}
