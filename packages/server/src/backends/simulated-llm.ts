/**
 * The simulated generative backend (`simulated_llm`): a decoupled text model whose tokens come from the
 * continuous-batching engine (server/genai). Inputs as the TensorRT-LLM and vLLM backends name them:
 * `text_input` (BYTES, the prompt; its words are its input tokens), `max_tokens` (INT32, tokens to generate;
 * the model never stops early), `stream` (BOOL: true sends one `text_output` response per token, false one
 * response with the whole text). Timing parameters: packages/server/src/genai/timing.ts.
 */
import { decodeBytesTensorAsStrings, encodeBytesTensor } from '@k6-triton/lib/tensor/bytes.ts';
import { GenerationEngine } from '../genai/engine.ts';
import { DEFAULT_MAX_TOKENS, timingFromParameters } from '../genai/timing.ts';
import { countInputTokens, outputToken, promptSeed } from '../genai/tokens.ts';
import { ServerError } from '../errors.ts';
import type { BackendFactory, DecoupledBackend, EngineState, SendResponse, TensorData } from './types.ts';

/** The output every response carries. */
export const TEXT_OUTPUT = 'text_output';

/** A factory of simulated generative backends. */
export const simulatedLlmFactory: BackendFactory = async (ctx) => {
  const engine = new GenerationEngine(timingFromParameters(ctx.config.parameters, ctx.modelName));
  return new SimulatedLlm(engine);
};

class SimulatedLlm implements DecoupledBackend {
  readonly #engine: GenerationEngine;

  constructor(engine: GenerationEngine) {
    this.#engine = engine;
  }

  async execute(): Promise<TensorData[]> {
    throw new ServerError('INTERNAL', 'the simulated_llm backend answers streamed requests only');
  }

  async stream(inputs: TensorData[], send: SendResponse, signal?: AbortSignal): Promise<void> {
    const text = inputText(inputs);
    const maxTokens = inputNumber(inputs, 'max_tokens') ?? DEFAULT_MAX_TOKENS;
    if (!Number.isInteger(maxTokens) || maxTokens < 1) {
      throw new ServerError('INVALID_ARG', `max_tokens must be at least 1, got ${maxTokens}`);
    }
    const streaming = (inputNumber(inputs, 'stream') ?? 0) !== 0;
    const seed = promptSeed(text);
    const words: string[] = [];
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
