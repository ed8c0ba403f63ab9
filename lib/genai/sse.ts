/**
 * A server-sent events decoder (the WHATWG event-stream format): bytes in, whole events out, whatever the
 * chunk boundaries (mid-line, mid-UTF-8 character, a CR here and its LF in the next chunk, several events
 * in one chunk). Lines end in LF, CRLF or CR; a blank line ends an event; `:` lines are comments.
 * Pure; runs inside k6 and on Node. Bytes are split at line ends before they are decoded, and a line end
 * is one byte that never occurs inside a UTF-8 character, so no streaming text decoder is needed.
 */
import { utf8Decode, utf8Encode } from '../tensor/utf8.ts';

/** One dispatched event. */
export interface SseEvent {
  /** The `event:` field; 'message' when absent. */
  event: string;
  /** The `data:` lines joined with LF. */
  data: string;
  /** The last `id:` seen on the stream, if any. */
  id?: string;
  /** A `retry:` field (ms) given with this event. */
  retry?: number;
  /** The last `:` comment line of this event's block, without its leading space (xk6-sse passes it on). */
  comment?: string;
}

const LF = 0x0a;
const CR = 0x0d;

/** Incremental SSE decoder: push chunks as they arrive, get the events each completes. */
export class SseDecoder {
  #pending: Uint8Array = new Uint8Array(0);
  /** The previous chunk ended in CR: an LF starting the next one belongs to that line end. */
  #afterCr = false;
  #firstLine = true;
  #data: string[] = [];
  #event = '';
  #id: string | undefined;
  #retry: number | undefined;
  #comment: string | undefined;
  #fields = false;

  /** Decodes one chunk (bytes, or text already decoded); returns the events it completed. */
  push(chunk: Uint8Array | string): SseEvent[] {
    let bytes = typeof chunk === 'string' ? utf8Encode(chunk) : chunk;
    if (this.#afterCr && bytes.length > 0) {
      if (bytes[0] === LF) bytes = bytes.subarray(1);
      this.#afterCr = false;
    }
    const events: SseEvent[] = [];
    const buffer = this.#pending.length > 0 ? concat(this.#pending, bytes) : bytes;
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const b = buffer[i];
      if (b !== LF && b !== CR) continue;
      this.#line(utf8Decode(buffer, start, i), events);
      if (b === CR) {
        if (i + 1 < buffer.length) {
          if (buffer[i + 1] === LF) i++;
        } else {
          this.#afterCr = true;
        }
      }
      start = i + 1;
    }
    this.#pending = buffer.slice(start);
    return events;
  }

  /** Ends the stream; true when it stopped inside an event (an unfinished line or no closing blank line), which is dropped. */
  end(): { truncated: boolean } {
    const truncated = this.#pending.length > 0 || this.#fields;
    this.#pending = new Uint8Array(0);
    this.#resetEvent();
    return { truncated };
  }

  #line(line: string, events: SseEvent[]): void {
    if (this.#firstLine) {
      this.#firstLine = false;
      if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    }
    if (line === '') {
      this.#dispatch(events);
      return;
    }
    if (line.charCodeAt(0) === 0x3a /* ':' comment */) {
      this.#comment = line.charCodeAt(1) === 0x20 ? line.slice(2) : line.slice(1);
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    this.#fields = true;
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
    else if (field === 'id') {
      if (!value.includes('\0')) this.#id = value;
    } else if (field === 'retry') {
      if (/^\d+$/.test(value)) this.#retry = Number(value);
    }
  }

  #dispatch(events: SseEvent[]): void {
    if (this.#data.length > 0) {
      const event: SseEvent = { event: this.#event || 'message', data: this.#data.join('\n') };
      if (this.#id !== undefined) event.id = this.#id;
      if (this.#retry !== undefined) event.retry = this.#retry;
      if (this.#comment !== undefined) event.comment = this.#comment;
      events.push(event);
    }
    this.#resetEvent();
  }

  #resetEvent(): void {
    this.#data = [];
    this.#event = '';
    this.#retry = undefined;
    this.#comment = undefined;
    this.#fields = false;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
