/**
 * A generative model's request settings, resolved once in the run plan (scenarios/kit/run-plan.ts): the token
 * lengths (INPUT_TOKENS, OUTPUT_TOKENS: a length, mean,stddev or min:max), the prompts' count and seed, the LLM
 * backend, and a repeat model's delays, over the model's calibration. Pure; runs inside k6 and on Node.
 */
import type { Random } from '../random/random.ts';
import type { LengthSpec, PromptSalt } from '../settings/kinds.ts';
import { type Env, read, readOr } from '../settings/read.ts';
import { DEFAULTS, type LlmBackend, S } from '../settings/schema.ts';

/** What a generative model asks when nothing is set: its calibration workload (models/generative.ts). */
export interface PromptDefaults {
  inputTokens: number;
  outputTokens: number;
  /** The repeat backend: the delays its requests ask for, ms. */
  delays?: { first_ms: number; token_ms: number };
}

/** How a generative run's requests are made. */
export interface GenerativeSettings {
  inputTokens: LengthSpec;
  outputTokens: LengthSpec;
  /** Distinct requests when a length varies (PROMPT_COUNT). */
  promptCount: number;
  /** Seed of the lengths drawn (PROMPT_SEED). */
  promptSeed: number;
  backend: LlmBackend;
  /** How prompts are salted (PROMPT_SALT; lib/genai/salt.ts). */
  promptSalt: PromptSalt;
  /** Share of requests cancelled on the wire, 0 to 1 (REQUEST_CANCELLATION_RATE / 100). */
  cancelShare: number;
  /** How long after its send a cancelled request is cancelled, ms (REQUEST_CANCELLATION_DELAY). */
  cancelDelay_ms: number;
  /** The repeat backend: ms before the first response (FIRST_DELAY_MS). */
  firstDelay_ms?: number;
  /** The repeat backend: ms before each other response (TOKEN_DELAY_MS). */
  tokenDelay_ms?: number;
}

/** Reads a generative run's settings over its defaults; one line naming a bad setting. */
export function readGenerativeSettings(env: Env, defaults: PromptDefaults): GenerativeSettings {
  const fixed = (n: number): LengthSpec => ({ mean: n, stddev: 0 });
  const settings: GenerativeSettings = {
    inputTokens: read(env, S.INPUT_TOKENS) ?? fixed(defaults.inputTokens),
    outputTokens: read(env, S.OUTPUT_TOKENS) ?? fixed(defaults.outputTokens),
    promptCount: readOr(env, S.PROMPT_COUNT, DEFAULTS.promptCount),
    promptSeed: readOr(env, S.PROMPT_SEED, DEFAULTS.promptSeed),
    backend: readOr(env, S.LLM_BACKEND, 'trtllm'),
    promptSalt: readOr(env, S.PROMPT_SALT, 'random'),
    cancelShare: readOr(env, S.REQUEST_CANCELLATION_RATE, 0) / 100,
    cancelDelay_ms: readOr(env, S.REQUEST_CANCELLATION_DELAY, 0) * 1000,
  };
  if (defaults.delays) {
    settings.firstDelay_ms = readOr(env, S.FIRST_DELAY_MS, Math.round(defaults.delays.first_ms));
    settings.tokenDelay_ms = readOr(env, S.TOKEN_DELAY_MS, Math.round(defaults.delays.token_ms));
  }
  return settings;
}

/** One length from the spec. */
export function drawLength(spec: LengthSpec, rng: Random): number {
  if ('min' in spec) return spec.min + rng.int(spec.max - spec.min + 1);
  return Math.max(1, Math.round(spec.mean + spec.stddev * rng.normal()));
}
