/**
 * Standard base64 (RFC 4648, with padding) for payload bytes, written without Node's Buffer
 * or k6/encoding so that the same code runs in k6, in the Node runtime and in vitest.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

/** Encodes bytes as standard padded base64. */
export function base64Encode(bytes: Uint8Array): string {
  const parts: string[] = [];
  let chunk = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    chunk += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]! + ALPHABET[(n >>> 6) & 63]! + ALPHABET[n & 63]!;
    // Flush now and then: repeated concatenation of one huge string is slow in some engines.
    if (chunk.length >= 8192) {
      parts.push(chunk);
      chunk = '';
    }
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    chunk += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]! + '==';
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    chunk += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]! + ALPHABET[(n >>> 6) & 63]! + '=';
  }
  parts.push(chunk);
  return parts.join('');
}

/** Decodes standard base64 (padding optional, whitespace ignored); throws naming `what` on a bad character. */
export function base64Decode(text: string, what = 'base64 data'): Uint8Array {
  const clean = text.replace(/[\s=]+/g, '');
  if (clean.length % 4 === 1)
    throw new Error(`invalid base64 in ${what}: length ${clean.length} is impossible`);
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < clean.length; i++) {
    const code = clean.charCodeAt(i);
    const v = code < 128 ? LOOKUP[code]! : -1;
    if (v < 0) throw new Error(`invalid base64 in ${what}: character "${clean[i]}" at ${i}`);
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >>> bits) & 0xff;
    }
  }
  return out;
}
