/**
 * The simulated generative backend (`simulated_llm`): a decoupled text model whose tokens come from the
 * continuous-batching engine (server/genai). Inputs as the TensorRT-LLM and vLLM backends name them:
 * `text_input` (BYTES, the prompt; its words are its input tokens), `max_tokens` (INT32, tokens to generate;
 * the model never stops early), `stream` (BOOL: true sends one `text_output` response per token, false one
 * response with the whole text). Timing parameters: packages/server/src/genai/timing.ts; `prefix_cache_blocks`
 * (optional, 0 or absent: none) sizes its prefix cache (packages/server/src/genai/prefix-cache.ts).
 */
import { decodeBytesTensorAsStrings, encodeBytesTensor } from '@k6-triton/lib/tensor/bytes.ts';
import { GenerationEngine } from '../genai/engine.ts';
import { PrefixCache, type PrefixCacheCounts } from '../genai/prefix-cache.ts';
import { DEFAULT_MAX_TOKENS, timingFromParameters } from '../genai/timing.ts';
import { countInputTokens, outputToken, promptSeed } from '../genai/tokens.ts';
import { ServerError } from '../errors.ts';
import type { BackendFactory, DecoupledBackend, EngineState, SendResponse, TensorData } from './types.ts';
import type { CancelSignal } from '../infer/cancel.ts';

/** The output every response carries. */
export const TEXT_OUTPUT = 'text_output';

/** The config parameter sizing the prefix cache, in blocks of PREFIX_BLOCK_TOKENS tokens. */
export const PREFIX_CACHE_PARAMETER = 'prefix_cache_blocks';

/** A factory of simulated generative backends. */
export const simulatedLlmFactory: BackendFactory = async (ctx) => {
  const engine = new GenerationEngine(timingFromParameters(ctx.config.parameters, ctx.modelName));
  const blocks = prefixCacheBlocks(ctx.config.parameters, ctx.modelName);
  return new SimulatedLlm(engine, blocks > 0 ? new PrefixCache(blocks) : undefined);
};

/** The prefix cache's size a config sets (0 when it sets none); throws naming a bad value. */
function prefixCacheBlocks(
  parameters: Record<string, { string_value: string }> | undefined,
  model: string,
): number {
  const raw = parameters?.[PREFIX_CACHE_PARAMETER]?.string_value;
  if (raw === undefined || raw === '') return 0;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new Error(
      `invalid parameter ${PREFIX_CACHE_PARAMETER}="${raw}" for model '${model}'; expected a whole number >= 0 (0: no prefix cache)`,
    );
  return n;
}

class SimulatedLlm implements DecoupledBackend {
  readonly #engine: GenerationEngine;
  readonly #cache: PrefixCache | undefined;

  constructor(engine: GenerationEngine, cache: PrefixCache | undefined) {
    this.#engine = engine;
    this.#cache = cache;
  }

  /** The prefix cache's counts, when the model has one. */
  prefixCacheCounts(): PrefixCacheCounts | undefined {
    return this.#cache ? { ...this.#cache.counts } : undefined;
  }

  async execute(): Promise<TensorData[]> {
    throw new ServerError('INTERNAL', 'the simulated_llm backend answers streamed requests only');
  }

  async stream(inputs: TensorData[], send: SendResponse, signal?: CancelSignal): Promise<void> {
    const text = inputText(inputs);
    const maxTokens = inputNumber(inputs, 'max_tokens') ?? DEFAULT_MAX_TOKENS;
    if (!Number.isInteger(maxTokens) || maxTokens < 1) {
      throw new ServerError('INVALID_ARG', `max_tokens must be at least 1, got ${maxTokens}`);
    }
    const streaming = (inputNumber(inputs, 'stream') ?? 0) !== 0;
    const seed = promptSeed(text);
    const words: string[] = [];
    const cached = this.#cache?.lookup(inputWords(text)) ?? 0;
    try {
      await this.#engine.generate(
        countInputTokens(text),
        maxTokens,
        (index, last) => {
          const word = outputToken(seed, index);
          if (streaming) send([textOutput(word)]);
          else {
            words.push(word);
            if (last) send([textOutput(words.join(' '))]);
          }
        },
        signal,
        cached,
      );
    } catch (err) {
      if (err instanceof ServerError) throw err;
      throw new ServerError('INVALID_ARG', (err as Error).message);
    }
  }

  engineState(): EngineState {
    return this.#engine.state();
  }

  async close(): Promise<void> {
    this.#engine.close();
  }
}

/** A prompt's input tokens, as countInputTokens counts them: its whitespace-separated words. */
function inputWords(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== '');
}

function textOutput(text: string): TensorData {
  return { name: TEXT_OUTPUT, datatype: 'BYTES', shape: [1], data: encodeBytesTensor([text]) };
}

function inputText(inputs: TensorData[]): string {
  const t = inputs.find((i) => i.name === 'text_input');
  if (!t) throw new ServerError('INVALID_ARG', "the simulated_llm backend needs a 'text_input' input");
  return decodeBytesTensorAsStrings(t.data).join(' ');
}

/** The first element of a numeric or BOOL input, when sent. */
function inputNumber(inputs: TensorData[], name: string): number | undefined {
  const t = inputs.find((i) => i.name === name);
  if (!t || t.data.length === 0) return undefined;
  const view = new DataView(t.data.buffer, t.data.byteOffset, t.data.length);
  switch (t.datatype) {
    case 'BOOL':
    case 'UINT8':
      return view.getUint8(0);
    case 'INT32':
      return view.getInt32(0, true);
    case 'UINT32':
      return view.getUint32(0, true);
    case 'INT64':
      return Number(view.getBigInt64(0, true));
    default:
      throw new ServerError(
        'INVALID_ARG',
        `input '${name}' has datatype ${t.datatype}, expected INT32 or BOOL`,
      );
  }
}
