/**
 * The pre-flight's known-delay stream (preflight.ts): a decoupled text model whose backend sends a fixed
 * number of tokens, the first FIRST_MS after it got the request and each next GAP_MS after the previous, aimed
 * at one timeline, and notes when each was really sent (performance.now(), in this process). What a client
 * measures above those real send times is the generator's and the stream's own cost on this machine.
 */
import type { BackendFactory, DecoupledBackend, ModelDefinition, SendResponse } from '@k6-triton/server';
import type { SentStream } from '../../lib/genai/error-bar.ts';
import { encodeBytesTensor } from '../../lib/tensor/bytes.ts';
import { configFromGenerative } from '../repository/generative-config.ts';
import { GPT2 } from '../../models/generative.ts';

/** A known stream: the first token after first_ms, then one every gap_ms, tokens in all (max_tokens ignored). */
export interface KnownStream {
  first_ms: number;
  gap_ms: number;
  tokens: number;
}

/** The pre-flight's stream: short, so a few seconds hold about a hundred requests. */
export const KNOWN_STREAM: KnownStream = { first_ms: 10, gap_ms: 2, tokens: 16 };

/** The backend's name in the pre-flight server. */
export const KNOWN_DELAY_BACKEND = 'known_delay';

/** The known-delay model's definition, served under `name` (the benched model's, so the scenario's requests fit). */
export function knownDelayModel(name: string): ModelDefinition {
  return { config: { ...configFromGenerative(GPT2), name, backend: KNOWN_DELAY_BACKEND, parameters: {} } };
}

/** A factory of known-delay backends sending `stream`, each finished request's real send times appended to `log`. */
export function knownDelayBackend(log: SentStream[], stream: KnownStream = KNOWN_STREAM): BackendFactory {
  return async () => new KnownDelay(log, stream);
}

class KnownDelay implements DecoupledBackend {
  readonly #log: SentStream[];
  readonly #known: KnownStream;

  constructor(log: SentStream[], known: KnownStream) {
    this.#log = log;
    this.#known = known;
  }

  async execute(): Promise<never> {
    throw new Error('the known-delay model answers streamed requests only');
  }

  async stream(_inputs: unknown, send: SendResponse, signal?: AbortSignal): Promise<void> {
    const start = performance.now();
    const sends_ms: number[] = [];
    const known = this.#known;
    for (let i = 0; i < known.tokens; i++) {
      // Each token is aimed at its planned time from the start, so timer lateness never adds up.
      const due = start + known.first_ms + i * known.gap_ms;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      if (signal?.aborted) return;
      sends_ms.push(performance.now() - start);
      send([{ name: 'text_output', datatype: 'BYTES', shape: [1], data: encodeBytesTensor([`t${i}`]) }]);
    }
    this.#log.push({ sends_ms });
  }

  async close(): Promise<void> {}
}
