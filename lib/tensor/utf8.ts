/**
 * UTF-8 encode/decode without TextEncoder, which not every k6 release provides.
 * Lone surrogates become U+FFFD, as TextEncoder does.
 */

/** UTF-8 bytes of a string. */
export function utf8Encode(text: string): Uint8Array {
  const out = new Uint8Array(utf8Length(text));
  let o = 0;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        i++;
      } else {
        code = 0xfffd;
      }
    }
    if (code < 0x80) {
      out[o++] = code;
    } else if (code < 0x800) {
      out[o++] = 0xc0 | (code >> 6);
      out[o++] = 0x80 | (code & 0x3f);
    } else if (code < 0x10000) {
      out[o++] = 0xe0 | (code >> 12);
      out[o++] = 0x80 | ((code >> 6) & 0x3f);
      out[o++] = 0x80 | (code & 0x3f);
    } else {
      out[o++] = 0xf0 | (code >> 18);
      out[o++] = 0x80 | ((code >> 12) & 0x3f);
      out[o++] = 0x80 | ((code >> 6) & 0x3f);
      out[o++] = 0x80 | (code & 0x3f);
    }
  }
  return out;
}

/** Number of UTF-8 bytes a string encodes to. */
export function utf8Length(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) length += 1;
    else if (code < 0x800) length += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length += 4;
        i++;
      } else {
        length += 3;
      }
    } else length += 3;
  }
  return length;
}

/** Decodes UTF-8 bytes; malformed sequences become U+FFFD. */
export function utf8Decode(bytes: Uint8Array, start = 0, end = bytes.length): string {
  // UTF-16 units go into a typed array (never more units than bytes) and become a string in slices:
  // a spread or a push per character costs far more under k6's interpreter.
  const units = new Uint16Array(Math.max(0, end - start));
  let n = 0;
  let i = start;
  while (i < end) {
    const byte = bytes[i]!;
    let code = 0xfffd;
    let width = 1;
    if (byte < 0x80) {
      code = byte;
    } else if (byte >= 0xc2 && byte <= 0xdf && i + 1 < end && isContinuation(bytes[i + 1]!)) {
      code = ((byte & 0x1f) << 6) | (bytes[i + 1]! & 0x3f);
      width = 2;
    } else if (
      byte >= 0xe0 &&
      byte <= 0xef &&
      i + 2 < end &&
      isContinuation(bytes[i + 1]!) &&
      isContinuation(bytes[i + 2]!)
    ) {
      const value = ((byte & 0x0f) << 12) | ((bytes[i + 1]! & 0x3f) << 6) | (bytes[i + 2]! & 0x3f);
      if (value >= 0x800 && (value < 0xd800 || value > 0xdfff)) {
        code = value;
        width = 3;
      }
    } else if (
      byte >= 0xf0 &&
      byte <= 0xf4 &&
      i + 3 < end &&
      isContinuation(bytes[i + 1]!) &&
      isContinuation(bytes[i + 2]!) &&
      isContinuation(bytes[i + 3]!)
    ) {
      const value =
        ((byte & 0x07) << 18) |
        ((bytes[i + 1]! & 0x3f) << 12) |
        ((bytes[i + 2]! & 0x3f) << 6) |
        (bytes[i + 3]! & 0x3f);
      if (value >= 0x10000 && value <= 0x10ffff) {
        code = value;
        width = 4;
      }
    }
    i += width;
    if (code >= 0x10000) {
      code -= 0x10000;
      units[n++] = 0xd800 + (code >> 10);
      units[n++] = 0xdc00 + (code & 0x3ff);
    } else {
      units[n++] = code;
    }
  }
  return charCodesToString(units.subarray(0, n));
}

/** String.fromCharCode takes its arguments on the stack: codes are converted in slices this long. */
const CHUNK_UNITS = 8192;

/** The string of UTF-16 code units (or Latin-1 bytes) held in a typed array, without a copy into a number array. */
export function charCodesToString(codes: Uint8Array | Uint16Array): string {
  const parts: string[] = [];
  for (let from = 0; from < codes.length; from += CHUNK_UNITS) {
    parts.push(
      String.fromCharCode.apply(null, codes.subarray(from, from + CHUNK_UNITS) as unknown as number[]),
    );
  }
  return parts.join('');
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}
