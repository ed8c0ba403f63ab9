/**
 * OpenAI-compatible `/v1/chat/completions` and `/v1/completions` in front of a generative model (one with a
 * `text_input` input, such as the simulated gpt2), on the HTTP port. With `stream: true`: SSE `data: <json>`
 * chunks, a role-only first chat chunk, one chunk per token, a finish chunk (`finish_reason: "length"`: the
 * simulated model always writes max_tokens), with `stream_options.include_usage` a chunk with `choices: []` and
 * `usage`, then `data: [DONE]`; a failure after the first chunk is a `data: {"error": {...}}` event. Without it,
 * one completion object with usage. A request refused up front gets OpenAI's error object under its status.
 */
import { checkJsonBounds } from '../json-bounds.ts';
import type http from 'node:http';
import { encodeBytesTensor } from '@k6-triton/lib/tensor/bytes.ts';
import { DEFAULT_MAX_TOKENS } from '../genai/timing.ts';
import { countInputTokens } from '../genai/tokens.ts';
import type { InferenceCore } from '../core.ts';
import { asServerError, ServerError } from '../errors.ts';
import type { InferResult } from '../infer/types.ts';
import { EVENT_STREAM_TYPE } from './generate.ts';

/** Which OpenAI endpoint. */
export type OpenAiKind = 'chat' | 'completions';

let nextId = 1;

/** Serves one OpenAI request; answers every error itself. */
export async function openAi(
  core: InferenceCore,
  kind: OpenAiKind,
  res: http.ServerResponse,
  body: Buffer,
): Promise<void> {
  let request: OpenAiRequest;
  try {
    request = readRequest(core, kind, body);
  } catch (err) {
    return sendError(res, asServerError(err));
  }
  const id = `${kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${nextId++}`;
  const created = Math.floor(Date.now() / 1000);
  const base = {
    id,
    object: kind === 'chat' ? 'chat.completion.chunk' : 'text_completion',
    created,
    model: request.model,
  };
  const choice = (text: string | undefined, finish: string | null, role?: string) =>
    kind === 'chat'
      ? {
          index: 0,
          delta: { ...(role ? { role } : {}), ...(text !== undefined ? { content: text } : {}) },
          logprobs: null,
          finish_reason: finish,
        }
      : { index: 0, text: text ?? '', logprobs: null, finish_reason: finish };
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const words: string[] = [];
  const event = (value: unknown) => {
    if (!res.headersSent) res.writeHead(200, { 'Content-Type': EVENT_STREAM_TYPE });
    if (!res.writableEnded)
      res.write(`data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`);
  };
  if (request.stream && kind === 'chat') event({ ...base, choices: [choice('', null, 'assistant')] });
  try {
    await core.inferStream(
      {
        modelName: request.model,
        modelVersion: '',
        id: '',
        inputs: [
          { name: 'text_input', datatype: 'BYTES', shape: [1], data: encodeBytesTensor([request.prompt]) },
          { name: 'max_tokens', datatype: 'INT32', shape: [1], data: int32(request.maxTokens) },
          { name: 'stream', datatype: 'BOOL', shape: [1], data: new Uint8Array([1]) },
        ],
        parameters: {},
        signal: abort.signal,
      },
      (result) => {
        const word = textOf(result);
        words.push(word);
        if (request.stream) event({ ...base, choices: [choice(word, null)] });
      },
    );
  } catch (err) {
    const e = asServerError(err);
    if (res.headersSent) {
      event({ error: errorObject(e) });
      res.end();
    } else sendError(res, e);
    return;
  }
  const usage = {
    prompt_tokens: request.inputTokens,
    completion_tokens: words.length,
    total_tokens: request.inputTokens + words.length,
  };
  if (!request.stream) {
    const message =
      kind === 'chat'
        ? {
            index: 0,
            message: { role: 'assistant', content: words.join(' ') },
            logprobs: null,
            finish_reason: 'length',
          }
        : { index: 0, text: words.join(' '), logprobs: null, finish_reason: 'length' };
    const text = JSON.stringify({
      ...base,
      object: kind === 'chat' ? 'chat.completion' : 'text_completion',
      choices: [message],
      usage,
    });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  event({ ...base, choices: [choice(kind === 'chat' ? undefined : '', 'length')] });
  if (request.includeUsage) event({ ...base, choices: [], usage });
  event('[DONE]');
  res.end();
}

interface OpenAiRequest {
  model: string;
  prompt: string;
  inputTokens: number;
  maxTokens: number;
  stream: boolean;
  includeUsage: boolean;
}

/** An OpenAI request's JSON body and its `model`, which must be a loaded text model (every endpoint's check). */
export function readOpenAiBody(
  core: InferenceCore,
  body: Buffer,
): { json: Record<string, unknown>; model: string } {
  let json: Record<string, unknown>;
  checkJsonBounds(body);
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ServerError('INVALID_ARG', 'the request body is not JSON');
  }
  const model = typeof json.model === 'string' ? json.model : '';
  const target = core.inferTarget(model, '');
  if (!target.decoupled || !target.config.input.some((t) => t.name === 'text_input')) {
    throw new ServerError(
      'INVALID_ARG',
      `model '${model}' is not a generative model (no text_input, not decoupled)`,
    );
  }
  return { json, model };
}

/** The request's fields, checked; the model must be a loaded text model. */
function readRequest(core: InferenceCore, kind: OpenAiKind, body: Buffer): OpenAiRequest {
  const { json, model } = readOpenAiBody(core, body);
  let prompt: string;
  if (kind === 'chat') {
    if (!Array.isArray(json.messages) || json.messages.length === 0) {
      throw new ServerError('INVALID_ARG', "'messages' must be a non-empty array");
    }
    prompt = (json.messages as { content?: unknown }[])
      .map((m) => (typeof m.content === 'string' ? m.content : ''))
      .join('\n');
  } else {
    if (typeof json.prompt !== 'string') throw new ServerError('INVALID_ARG', "'prompt' must be a string");
    prompt = json.prompt;
  }
  const max = json.max_completion_tokens ?? json.max_tokens ?? DEFAULT_MAX_TOKENS;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) {
    throw new ServerError(
      'INVALID_ARG',
      `'max_tokens' must be a whole number >= 1, got ${JSON.stringify(max)}`,
    );
  }
  const options = json.stream_options as { include_usage?: unknown } | undefined;
  return {
    model,
    prompt,
    inputTokens: countInputTokens(prompt),
    maxTokens: max,
    stream: json.stream === true,
    includeUsage: options?.include_usage === true,
  };
}

function int32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setInt32(0, value, true);
  return out;
}

function textOf(result: InferResult): string {
  const data = result.outputs[0]?.data;
  if (!data || data.length < 4) return '';
  const length = new DataView(data.buffer, data.byteOffset, data.length).getUint32(0, true);
  return Buffer.from(data.buffer, data.byteOffset + 4, length).toString('utf8');
}

/** OpenAI's error object. */
function errorObject(e: ServerError): { message: string; type: string; code: number } {
  return {
    message: e.message,
    type: e.httpStatus === 404 ? 'NotFoundError' : 'BadRequestError',
    code: e.httpStatus,
  };
}

/** Answers OpenAI's error object under the error's status. */
export function sendError(res: http.ServerResponse, e: ServerError): void {
  const text = JSON.stringify({ error: errorObject(e) });
  res.writeHead(e.httpStatus, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
