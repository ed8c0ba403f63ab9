/**
 * Standard base64 (RFC 4648, with padding): the JSON mapping of protobuf `bytes`
 * fields that k6/net/grpc uses. Pure, so request building is testable outside k6.
 */
import { charCodesToString } from '../tensor/utf8.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;
// protojson also accepts the URL-safe alphabet.
DECODE['-'.charCodeAt(0)] = 62;
DECODE['_'.charCodeAt(0)] = 63;

const ALPHABET_CODES = new Uint8Array(64);
for (let i = 0; i < 64; i++) ALPHABET_CODES[i] = ALPHABET.charCodeAt(i);
const PAD = 61;

/** Base64 text of bytes. */
export function base64Encode(bytes: Uint8Array): string {
  // Character codes go into a byte array first; building strings one character at a time is far slower.
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  const whole = bytes.length - (bytes.length % 3);
  let o = 0;
  for (let i = 0; i < whole; i += 3) {
    const triple = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = ALPHABET_CODES[triple >> 18]!;
    out[o++] = ALPHABET_CODES[(triple >> 12) & 63]!;
    out[o++] = ALPHABET_CODES[(triple >> 6) & 63]!;
    out[o++] = ALPHABET_CODES[triple & 63]!;
  }
  const rest = bytes.length - whole;
  if (rest > 0) {
    const value = (bytes[whole]! << 16) | (rest === 2 ? bytes[whole + 1]! << 8 : 0);
    out[o++] = ALPHABET_CODES[value >> 18]!;
    out[o++] = ALPHABET_CODES[(value >> 12) & 63]!;
    out[o++] = rest === 2 ? ALPHABET_CODES[(value >> 6) & 63]! : PAD;
    out[o++] = PAD;
  }
  return charCodesToString(out);
}

/** Whitespace inside base64 text (payload files wrap it); skipped by base64Decode. */
const SKIP = -2;
for (const c of ' \t\r\n') DECODE[c.charCodeAt(0)] = SKIP;

/**
 * Bytes of base64 text (standard or URL-safe alphabet, padding optional, whitespace skipped); a bad
 * character throws one line naming `what`.
 */
export function base64Decode(text: string, what = 'base64 data'): Uint8Array {
  let end = text.length;
  // Padding and trailing whitespace carry no bits.
  while (end > 0) {
    const c = text.charCodeAt(end - 1);
    if (c !== PAD && DECODE[c] !== SKIP) break;
    end--;
  }
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    const value = code < 128 ? DECODE[code]! : -1;
    if (value < 0) {
      if (value === SKIP) continue;
      throw new Error(`invalid base64 in ${what}: character ${JSON.stringify(text[i])} at offset ${i}`);
    }
    buffer = ((buffer << 6) | value) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
    }
  }
  // Six bits left over: one character too many, not a whole byte (standard or not).
  if (bits === 6) throw new Error(`invalid base64 in ${what}: a trailing single character is no byte`);
  return o === out.length ? out : out.subarray(0, o);
}
