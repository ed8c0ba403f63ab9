/**
 * The catalog's generative models (models/generative.ts) as Triton model configs, with the simulated model's
 * timing calibrated on its published figures written into its config parameters (the server reads them there).
 */
import type { TensorSpec } from '../../lib/kserve/types.ts';
import { toConfigDatatype } from '../../lib/tensor/datatypes.ts';
import { type GenerativeTiming, PREFIX_CACHE_PARAMETER, TIMING_PARAMETERS } from '@k6-triton/server';
import { GENERATIVE, type GenerativeModelEntry } from '../../models/generative.ts';
import type { ModelConfig } from './catalog-config.ts';

/**
 * The simulated model's prefix cache, in 16-token blocks: chosen, 65,536 tokens, so a default workload's 100
 * prompts of 200 tokens fit whole and an unsalted rerun finds every prompt cached (vLLM caches by default).
 */
const PREFIX_CACHE_BLOCKS = 4096;

/** What one more sequence adds to a decode step, ms: chosen, not published (the table is at concurrency 1). */
const DECODE_PER_SEQUENCE_MS = 0.12;

/**
 * The timing calibrated on an entry's published figures: TTFT / input tokens per prefilled token, a one-sequence
 * step at the published ITL, and a KV cache of four calibration requests (so the queueing knee falls inside
 * concurrency 1..8).
 */
export function simulatedLlmTiming(entry: GenerativeModelEntry): GenerativeTiming {
  const c = entry.calibration;
  return {
    prefillPerToken_ms: c.ttft_ms / c.inputTokens,
    decodeBase_ms: c.itl_ms - DECODE_PER_SEQUENCE_MS,
    decodePerSequence_ms: DECODE_PER_SEQUENCE_MS,
    kvCache_tokens: 4 * (c.inputTokens + c.outputTokens),
  };
}

/** A generative entry's config: decoupled, on its backend (simulated_llm or repeat), one instance (it batches itself). */
export function configFromGenerative(entry: GenerativeModelEntry): ModelConfig {
  const tensor = (t: TensorSpec) => ({
    name: t.name,
    data_type: toConfigDatatype(t.datatype),
    dims: t.dims,
    ...(entry.optionalInputs.includes(t.name) ? { optional: true } : {}),
  });
  const config: ModelConfig = {
    name: entry.name,
    backend: entry.backend,
    max_batch_size: 0,
    model_transaction_policy: { decoupled: true },
    input: entry.inputs.map(tensor),
    output: entry.outputs.map(tensor),
    instance_group: [{ count: 1, kind: 'KIND_CPU' }],
  };
  if (entry.backend === 'simulated_llm') {
    const timing = simulatedLlmTiming(entry);
    config.parameters = {
      ...Object.fromEntries(
        (Object.keys(TIMING_PARAMETERS) as (keyof GenerativeTiming)[]).map((key) => [
          TIMING_PARAMETERS[key],
          { string_value: String(timing[key]) },
        ]),
      ),
      [PREFIX_CACHE_PARAMETER]: { string_value: String(PREFIX_CACHE_BLOCKS) },
    };
  }
  return config;
}

/** Every generative entry, for the default repository. */
export function generativeEntries(): GenerativeModelEntry[] {
  return Object.values(GENERATIVE);
}
