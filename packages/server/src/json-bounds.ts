/**
 * Bounds on a JSON body checked over its raw bytes before any parser builds a tree: nesting depth and the
 * number of elements. JSON.parse (and rapidjson in Triton) would build a tree of any shape a body spells;
 * `[`×33M `]`×33M inflates from 64 KB into 33M nested arrays, gigabytes of heap and tens of seconds on the
 * main thread. One pass over the bytes, no allocation, stopping at the first bound passed.
 */
import { Errors } from './errors.ts';

/** How deep and how large a request's JSON may be; every field has a default. */
export interface JsonBounds {
  /**
   * Deepest nesting of arrays and objects, the document's own container being 1. Above Triton's 100 levels
   * of `data` plus the 3 an infer body wraps it in, so Triton's own refusal of deep `data` still answers.
   * @default 128
   */
  maxDepth?: number;
  /** Most elements (array elements and object members, all levels together). @default 16777216 */
  maxElements?: number;
  /** Most arrays and objects: each costs tens of bytes of heap however short it is written. @default 1048576 */
  maxContainers?: number;
  /**
   * Bodies up to this size pass unread: whatever their shape their tree is small (at most 32K containers),
   * and reading them would add a third to JSON.parse's time on a normal MNIST body (bench/server/RESULTS.md).
   * @default 65536
   */
  uncheckedBytes?: number;
}

/** The bounds with their defaults filled in. */
export const DEFAULT_JSON_BOUNDS: Required<JsonBounds> = {
  maxDepth: 128,
  maxElements: 16 * 1024 * 1024,
  maxContainers: 1024 * 1024,
  uncheckedBytes: 64 * 1024,
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Byte classes the check stops at: 1 quote, 2 open, 3 close, 4 comma; 0 the rest, skipped. */
const CLASS = new Uint8Array(256);
CLASS[QUOTE] = 1;
CLASS[0x5b] = 2;
CLASS[0x7b] = 2;
CLASS[0x5d] = 3;
CLASS[0x7d] = 3;
CLASS[0x2c] = 4;

/**
 * Throws 400 when `bytes` (JSON text, valid or not) nests deeper or holds more elements (counted by their
 * commas) or containers than `bounds` allow; small bodies pass unread (`uncheckedBytes`). Strings are
 * skipped with Buffer.indexOf, so long BYTES elements cost little.
 */
export function checkJsonBounds(bytes: Uint8Array, bounds: JsonBounds = {}): void {
  // The common case, a small body, returns before anything is allocated.
  if (bytes.length <= (bounds.uncheckedBytes ?? DEFAULT_JSON_BOUNDS.uncheckedBytes)) return;
  const { maxDepth, maxElements, maxContainers } = { ...DEFAULT_JSON_BOUNDS, ...bounds };
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const n = buf.length;
  let depth = 0;
  let elements = 0;
  let containers = 0;
  for (let i = 0; i < n; i++) {
    const c = CLASS[buf[i]!];
    if (c === 0) continue;
    if (c === 1) {
      i = closingQuote(buf, i + 1);
    } else if (c === 2) {
      depth += 1;
      containers += 1;
      if (depth > maxDepth) throw Errors.jsonTooDeep(maxDepth);
      if (containers > maxContainers) throw Errors.jsonTooLarge('arrays and objects', maxContainers);
    } else if (c === 3) {
      depth -= 1;
    } else {
      elements += 1;
      if (elements > maxElements) throw Errors.jsonTooLarge('elements', maxElements);
    }
  }
}

/** The index of the quote ending the string whose text starts at `from` (the end of the text if none). */
function closingQuote(buf: Buffer, from: number): number {
  let at = buf.indexOf(QUOTE, from);
  while (at > 0) {
    // An odd run of backslashes before the quote escapes it.
    let slashes = 0;
    while (buf[at - 1 - slashes] === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return at;
    at = buf.indexOf(QUOTE, at + 1);
  }
  return buf.length;
}
