/**
 * Folds a stream's read events into the request's record (lib/genai/metrics.ts GenerationRecord) with the
 * arrival time of the network read that completed them, one rule per protocol, so every transport records
 * the same way. Events read from one network chunk share its time (genai-perf likewise merges responses that
 * arrive together). The first error fails the request and ends it. Pure; runs inside k6 and on Node.
 */
import type { DecoupledResponse } from './decoupled.ts';
import type { GenerateEvent } from './generate-stream.ts';
import type { GenerationRecord } from './metrics.ts';
import type { OpenAiEvent } from './openai-stream.ts';

/** A request's record before any response. */
export function newRecord(sent_ms: number, inputTokens: number): GenerationRecord {
  return { sent_ms, inputTokens, chunks: [] };
}

/** Fails the request (the first error is kept) and ends it at `at_ms`. */
export function failRecord(record: GenerationRecord, message: string, at_ms: number): void {
  if (record.error !== undefined) return;
  record.error = message;
  record.done_ms = at_ms;
}

/**
 * OpenAI events: a choice's chunk counts `countTokens(text)` tokens (by default 1 for any text, 0 for a
 * role-only or finish-only chunk), usage gives the server's token counts, [DONE] ends the request, an error
 * or a malformed event fails it.
 */
export function recordOpenAi(
  record: GenerationRecord,
  events: readonly OpenAiEvent[],
  at_ms: number,
  countTokens: (text: string) => number = (text) => (text === '' ? 0 : 1),
): void {
  for (const e of events) {
    if (record.error !== undefined) return;
    if (e.kind === 'chunk') record.chunks.push({ at_ms, tokens: countTokens(e.text) });
    else if (e.kind === 'usage') {
      if (e.usage.completionTokens !== undefined) record.outputTokens = e.usage.completionTokens;
      if (e.usage.promptTokens !== undefined) record.inputTokens = e.usage.promptTokens;
    } else if (e.kind === 'done') record.done_ms = at_ms;
    else if (e.kind === 'error') failRecord(record, e.message, at_ms);
    else failRecord(record, `malformed event: ${e.reason}`, at_ms);
  }
}

/**
 * generate_stream events: a response counts `countTokens(body)` tokens (by default 1: one response per token,
 * as the LLM backends stream), an error or a malformed event fails the request. The stream's end (the server
 * closing it) is the caller's to record with `done_ms`.
 */
export function recordGenerate(
  record: GenerationRecord,
  events: readonly GenerateEvent[],
  at_ms: number,
  countTokens: (body: Record<string, unknown>) => number = () => 1,
): void {
  for (const e of events) {
    if (record.error !== undefined) return;
    if (e.kind === 'response') record.chunks.push({ at_ms, tokens: countTokens(e.body) });
    else if (e.kind === 'error') failRecord(record, e.message, at_ms);
    else failRecord(record, `malformed event: ${e.reason}`, at_ms);
  }
}

/**
 * One decoupled ModelStreamInfer message: a response with outputs counts `tokens` (by default 1), the empty
 * final response counts none and ends the request, an error fails it. Returns whether the request is over.
 */
export function recordDecoupled(
  record: GenerationRecord,
  message: DecoupledResponse,
  at_ms: number,
  tokens = message.outputs > 0 ? 1 : 0,
): boolean {
  if (record.error !== undefined) return true;
  if (message.error !== undefined) {
    failRecord(record, message.error, at_ms);
    return true;
  }
  record.chunks.push({ at_ms, tokens });
  if (message.final) record.done_ms = at_ms;
  return message.final;
}
