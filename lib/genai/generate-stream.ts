/**
 * Triton's generate extension streamed (`POST /v2/models/<m>/generate_stream`): `text/event-stream;
 * charset=utf-8`, every event `data: <json>\n\n`, no `event:` or `id:` lines, no `[DONE]`; the stream ends
 * when the server closes it. The HTTP status is the first response's, so a failure after it arrives as
 * `data: {"error":"..."}` under a 200 and every event is checked (a failure before any response comes the same
 * way under a 4xx; requests Triton rejects up front get a plain JSON body instead). Pure; runs inside k6 and on Node.
 */
import { type SseEvent, SseDecoder } from './sse.ts';

/** One generate_stream event, read. */
export type GenerateEvent =
  /** A response: the model's outputs by name (e.g. text_output, or OUT and IDX) plus model_name, model_version. */
  | { kind: 'response'; body: Record<string, unknown> }
  /** `{"error": "..."}`: the request failed. */
  | { kind: 'error'; message: string }
  /** Data that is not a JSON object, or an event type Triton does not send. */
  | { kind: 'malformed'; reason: string; data: string };

/** Reads one SSE event of a generate_stream response. */
export function readGenerateEvent(event: SseEvent): GenerateEvent {
  if (event.event !== 'message') {
    return { kind: 'malformed', reason: `unexpected event type "${event.event}"`, data: event.data };
  }
  let body: unknown;
  try {
    body = JSON.parse(event.data);
  } catch {
    return { kind: 'malformed', reason: 'data is not JSON', data: event.data };
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { kind: 'malformed', reason: 'data is not a JSON object', data: event.data };
  }
  const record = body as Record<string, unknown>;
  if ('error' in record) return { kind: 'error', message: String(record.error) };
  return { kind: 'response', body: record };
}

/** Decodes a generate_stream body chunk by chunk into read events. */
export class GenerateStreamDecoder {
  readonly #sse = new SseDecoder();

  /** The events a chunk completes. */
  push(chunk: Uint8Array | string): GenerateEvent[] {
    return this.#sse.push(chunk).map(readGenerateEvent);
  }

  /** Ends the stream; truncated when it stopped inside an event. */
  end(): { truncated: boolean } {
    return this.#sse.end();
  }
}
