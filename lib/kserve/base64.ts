/**
 * Standard base64 (RFC 4648, with padding): the JSON mapping of protobuf `bytes`
 * fields that k6/net/grpc uses. Pure, so request building is testable outside k6.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;
// protojson also accepts the URL-safe alphabet.
DECODE['-'.charCodeAt(0)] = 62;
DECODE['_'.charCodeAt(0)] = 63;

const CHUNK_CHARS = 16384;

/** Base64 text of bytes. */
export function base64Encode(bytes: Uint8Array): string {
  const parts: string[] = [];
  let chars: string[] = [];
  const whole = bytes.length - (bytes.length % 3);
  for (let i = 0; i < whole; i += 3) {
    const triple = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    chars.push(
      ALPHABET[triple >> 18]!,
      ALPHABET[(triple >> 12) & 63]!,
      ALPHABET[(triple >> 6) & 63]!,
      ALPHABET[triple & 63]!,
    );
    // Join in chunks: one huge array of one-character strings costs more than a few joins.
    if (chars.length >= CHUNK_CHARS) {
      parts.push(chars.join(''));
      chars = [];
    }
  }
  const rest = bytes.length - whole;
  if (rest === 1) {
    const value = bytes[whole]! << 16;
    chars.push(ALPHABET[value >> 18]!, ALPHABET[(value >> 12) & 63]!, '==');
  } else if (rest === 2) {
    const value = (bytes[whole]! << 16) | (bytes[whole + 1]! << 8);
    chars.push(ALPHABET[value >> 18]!, ALPHABET[(value >> 12) & 63]!, ALPHABET[(value >> 6) & 63]!, '=');
  }
  parts.push(chars.join(''));
  return parts.join('');
}

/** Bytes of base64 text (standard or URL-safe alphabet, padding optional). */
export function base64Decode(text: string): Uint8Array {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61) end--;
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    const value = code < 128 ? DECODE[code]! : -1;
    if (value < 0) throw new Error(`invalid base64: unexpected character at offset ${i}`);
    buffer = ((buffer << 6) | value) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
    }
  }
  return o === out.length ? out : out.subarray(0, o);
}
