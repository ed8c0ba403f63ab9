/**
 * OpenAI chat and completions streaming (`stream: true`) as servers frame it: SSE `data: <json>` chunks
 * (`chat.completion.chunk` with `choices[].delta`, `text_completion` with `choices[].text`), a role-only first
 * chat chunk, a finish chunk, with `stream_options.include_usage` a last chunk with `choices: []` and `usage`,
 * then `data: [DONE]`. Errors arrive as events: `{"error": {...}}` (OpenAI, Triton's frontend, vLLM),
 * `{"object": "error", ...}` (older vLLM) or an `event: error`. Pure; runs inside k6 and on Node.
 */
import { type SseEvent, SseDecoder } from './sse.ts';

/** Token counts of a usage chunk. */
export interface StreamUsage {
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
}

/** One OpenAI stream event, read. */
export type OpenAiEvent =
  /** A choice's delta: text '' for a role-only or finish-only chunk. */
  | { kind: 'chunk'; index: number; text: string; role?: string; finishReason?: string }
  | { kind: 'usage'; usage: StreamUsage }
  | { kind: 'done' }
  | { kind: 'error'; message: string }
  /** Data that is not a JSON object, or anything after [DONE]. */
  | { kind: 'malformed'; reason: string; data: string };

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

function errorMessage(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && 'message' in error) return String(error.message);
  return JSON.stringify(error);
}

/** Reads one SSE event of an OpenAI stream: a data chunk can hold several choices and a usage. */
export function readOpenAiEvent(event: SseEvent): OpenAiEvent[] {
  if (event.data === '[DONE]') return [{ kind: 'done' }];
  let body: unknown;
  try {
    body = JSON.parse(event.data);
  } catch {
    if (event.event === 'error') return [{ kind: 'error', message: event.data }];
    return [{ kind: 'malformed', reason: 'data is not JSON', data: event.data }];
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return [{ kind: 'malformed', reason: 'data is not a JSON object', data: event.data }];
  }
  const chunk = body as Record<string, unknown>;
  if ('error' in chunk) return [{ kind: 'error', message: errorMessage(chunk.error) }];
  if (chunk.object === 'error' || event.event === 'error')
    return [{ kind: 'error', message: errorMessage(chunk) }];
  const out: OpenAiEvent[] = [];
  const choices = Array.isArray(chunk.choices) ? (chunk.choices as Record<string, unknown>[]) : [];
  for (const [position, choice] of choices.entries()) {
    const delta = (choice.delta ?? {}) as Record<string, unknown>;
    const text =
      typeof delta.content === 'string' ? delta.content : typeof choice.text === 'string' ? choice.text : '';
    const read: OpenAiEvent = { kind: 'chunk', index: num(choice.index) ?? position, text };
    if (typeof delta.role === 'string') read.role = delta.role;
    if (typeof choice.finish_reason === 'string') read.finishReason = choice.finish_reason;
    out.push(read);
  }
  const usage = chunk.usage as Record<string, unknown> | null | undefined;
  if (usage && typeof usage === 'object') {
    out.push({
      kind: 'usage',
      usage: {
        promptTokens: num(usage.prompt_tokens),
        completionTokens: num(usage.completion_tokens),
        totalTokens: num(usage.total_tokens),
      },
    });
  }
  return out;
}

/** Decodes an OpenAI streaming body chunk by chunk into read events; events after [DONE] are malformed. */
export class OpenAiStreamDecoder {
  readonly #sse = new SseDecoder();
  #done = false;

  /** The events a chunk completes. */
  push(chunk: Uint8Array | string): OpenAiEvent[] {
    const out: OpenAiEvent[] = [];
    for (const event of this.#sse.push(chunk)) {
      if (this.#done) {
        out.push({ kind: 'malformed', reason: 'event after [DONE]', data: event.data });
        continue;
      }
      for (const read of readOpenAiEvent(event)) {
        if (read.kind === 'done') this.#done = true;
        out.push(read);
      }
    }
    return out;
  }

  /** Ends the stream: truncated when it stopped inside an event; done when [DONE] arrived. */
  end(): { truncated: boolean; done: boolean } {
    return { ...this.#sse.end(), done: this.#done };
  }
}
