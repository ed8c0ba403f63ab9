/**
 * The simulated generative model's timing: defaults calibrated on the published table in models/generative.ts,
 * each overridable by a config parameter. At concurrency 1 a request of I input and O output tokens then takes
 * TTFT = I x prefill, ITL = base + per-sequence, latency = TTFT + (O - 1) x ITL.
 */
import { GPT2 } from '../../../../models/generative.ts';
import type { GenerativeTiming } from './scheduler.ts';

/** What one more sequence adds to a decode step, ms: chosen, not published (the table is at concurrency 1). */
const DECODE_PER_SEQUENCE_MS = 0.12;

/**
 * The KV cache, tokens: four requests of the calibration workload (200 + 100 tokens), chosen so the queueing
 * knee falls inside concurrency 1..8.
 */
const KV_CACHE_TOKENS = 4 * (GPT2.calibration.inputTokens + GPT2.calibration.outputTokens);

/** The calibrated defaults. */
export const DEFAULT_TIMING: Readonly<GenerativeTiming> = {
  prefillPerToken_ms: GPT2.calibration.ttft_ms / GPT2.calibration.inputTokens,
  decodeBase_ms: GPT2.calibration.itl_ms - DECODE_PER_SEQUENCE_MS,
  decodePerSequence_ms: DECODE_PER_SEQUENCE_MS,
  kvCache_tokens: KV_CACHE_TOKENS,
};

/** max_tokens when a request sends none (vLLM's SamplingParams default). */
export const DEFAULT_MAX_TOKENS = 16;

/** Config parameter names of each timing field. */
export const TIMING_PARAMETERS: Readonly<Record<keyof GenerativeTiming, string>> = {
  prefillPerToken_ms: 'prefill_ms_per_token',
  decodeBase_ms: 'decode_base_ms',
  decodePerSequence_ms: 'decode_ms_per_sequence',
  kvCache_tokens: 'kv_cache_tokens',
};

/** The timing a model config asks for (its parameters over the defaults); throws naming a bad parameter. */
export function timingFromParameters(
  parameters: Record<string, { string_value: string }> | undefined,
  modelName: string,
  defaults: GenerativeTiming = DEFAULT_TIMING,
): GenerativeTiming {
  const out = { ...defaults };
  for (const key of Object.keys(TIMING_PARAMETERS) as (keyof GenerativeTiming)[]) {
    const raw = parameters?.[TIMING_PARAMETERS[key]]?.string_value;
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) {
      throw new Error(
        `invalid parameter ${TIMING_PARAMETERS[key]}="${raw}" for model '${modelName}'; expected a number >= 0`,
      );
    }
    out[key] = value;
  }
  return out;
}
