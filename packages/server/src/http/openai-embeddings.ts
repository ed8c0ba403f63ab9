/**
 * OpenAI-compatible `POST /v1/embeddings` in front of a generative model (one with a `text_input` input, such as
 * the simulated gpt2), on the HTTP port, with OpenAI's and vLLM's request and response shapes: `input` a string,
 * a list of strings, a list of token ids or a list of such lists; `encoding_format` float (default) or base64
 * (little-endian float32); `dimensions` (default 768, GPT-2's hidden size). Each input is one pass of the model
 * asked for a single token, so an embedding costs its prefill and queues with the model's other requests; the
 * vector is a unit-length pseudo-random one seeded by the input (the same input, the same vector). Errors are
 * OpenAI's error object under the status.
 */
import type http from 'node:http';
import { encodeBytesTensor } from '@k6-triton/lib/tensor/bytes.ts';
import type { InferenceCore } from '../core.ts';
import { asServerError, ServerError } from '../errors.ts';
import { countInputTokens } from '../genai/tokens.ts';
import { readOpenAiBody, sendError } from './openai.ts';

/** The vector length when a request sets no `dimensions`: GPT-2's hidden size (n_embd). */
export const DEFAULT_EMBEDDING_DIMENSIONS = 768;

/** The longest vector a request may ask for (OpenAI's text-embedding-3-large has 3072). */
const MAX_DIMENSIONS = 4096;

let nextId = 1;

/** One input to embed: its text (token ids joined) and its token count. */
interface EmbeddingInput {
  text: string;
  tokens: number;
}

interface EmbeddingRequest {
  model: string;
  inputs: EmbeddingInput[];
  base64: boolean;
  dimensions: number;
}

/** Serves one embeddings request; answers every error itself. */
export async function openAiEmbeddings(
  core: InferenceCore,
  res: http.ServerResponse,
  body: Buffer,
): Promise<void> {
  let request: EmbeddingRequest;
  try {
    request = readRequest(core, body);
    // Every input is one request to the model: they queue and batch as the model's other requests do.
    await Promise.all(request.inputs.map((input) => prefill(core, request.model, input.text)));
  } catch (err) {
    return sendError(res, asServerError(err));
  }
  const data = request.inputs.map((input, index) => {
    const vector = embed(input.text, request.dimensions);
    return {
      object: 'embedding',
      embedding: request.base64 ? Buffer.from(vector.buffer).toString('base64') : Array.from(vector),
      index,
    };
  });
  const promptTokens = request.inputs.reduce((sum, input) => sum + input.tokens, 0);
  const text = JSON.stringify({
    id: `embd-${nextId++}`,
    object: 'list',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    data,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  });
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** One pass of the model over the text, asking one token: the prefill an embedding costs. */
async function prefill(core: InferenceCore, model: string, text: string): Promise<void> {
  const one = new Uint8Array(4);
  new DataView(one.buffer).setInt32(0, 1, true);
  await core.inferStream(
    {
      modelName: model,
      modelVersion: '',
      id: '',
      inputs: [
        { name: 'text_input', datatype: 'BYTES', shape: [1], data: encodeBytesTensor([text]) },
        { name: 'max_tokens', datatype: 'INT32', shape: [1], data: one },
      ],
      parameters: {},
    },
    () => {},
  );
}

/** A unit-length vector seeded by the text (FNV-1a, then mulberry32): deterministic, spread over the sphere. */
export function embed(text: string, dimensions: number): Float32Array {
  let seed = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) seed = Math.imul(seed ^ text.charCodeAt(i), 0x01000193) >>> 0;
  const vector = new Float32Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const value = ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
    vector[i] = value;
    norm += value * value;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < dimensions; i++) vector[i]! *= scale;
  return vector;
}

/** An `input` entry as text and tokens: a string, or a list of token ids. */
function inputOf(value: unknown): EmbeddingInput | undefined {
  if (typeof value === 'string')
    return value === '' ? undefined : { text: value, tokens: countInputTokens(value) };
  if (Array.isArray(value) && value.length > 0 && value.every((t) => Number.isInteger(t) && t >= 0))
    return { text: value.join(' '), tokens: value.length };
  return undefined;
}

/** The request's fields, checked; the model must be a loaded text model. */
function readRequest(core: InferenceCore, body: Buffer): EmbeddingRequest {
  const { json, model } = readOpenAiBody(core, body);
  const raw = json.input;
  // A list of strings or of token lists is a batch; a string or one token list is a single input.
  const list =
    Array.isArray(raw) && raw.length > 0 && (typeof raw[0] === 'string' || Array.isArray(raw[0]))
      ? raw
      : [raw];
  const inputs = list.map(inputOf);
  if (inputs.some((input) => input === undefined))
    throw new ServerError(
      'INVALID_ARG',
      "'input' must be a non-empty string, a list of token ids, or a non-empty list of either",
    );
  const format = json.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64')
    throw new ServerError(
      'INVALID_ARG',
      `'encoding_format' must be float or base64, got ${JSON.stringify(format)}`,
    );
  const dimensions = json.dimensions ?? DEFAULT_EMBEDDING_DIMENSIONS;
  if (
    typeof dimensions !== 'number' ||
    !Number.isInteger(dimensions) ||
    dimensions < 1 ||
    dimensions > MAX_DIMENSIONS
  )
    throw new ServerError(
      'INVALID_ARG',
      `'dimensions' must be a whole number from 1 to ${MAX_DIMENSIONS}, got ${JSON.stringify(dimensions)}`,
    );
  return { model, inputs: inputs as EmbeddingInput[], base64: format === 'base64', dimensions };
}
