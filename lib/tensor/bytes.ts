/**
 * Triton's BYTES tensor layout: each element is a 4-byte little-endian length
 * followed by that many bytes, elements back to back in row-major order.
 */
import { utf8Decode, utf8Encode } from './utf8.ts';

/** One BYTES element: a string (UTF-8 encoded) or raw bytes. */
export type BytesElement = string | Uint8Array;

/** Serialises BYTES elements as length-prefixed bytes. */
export function encodeBytesTensor(values: ArrayLike<BytesElement>): Uint8Array {
  const encoded: Uint8Array[] = [];
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    const element = typeof value === 'string' ? utf8Encode(value) : value;
    encoded.push(element);
    total += 4 + element.length;
  }
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let offset = 0;
  for (const element of encoded) {
    view.setUint32(offset, element.length, true);
    out.set(element, offset + 4);
    offset += 4 + element.length;
  }
  return out;
}

/**
 * Splits a serialised BYTES tensor into its elements (views into `bytes`, not copies).
 * Throws when a length prefix runs past the end or, with `expectedCount`, when the count differs.
 */
export function decodeBytesTensor(bytes: Uint8Array, expectedCount?: number): Uint8Array[] {
  const elements: Uint8Array[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  while (offset < bytes.length) {
    if (offset + 4 > bytes.length) {
      throw new Error(
        `BYTES tensor truncated: ${bytes.length - offset} trailing bytes where a 4-byte length was expected`,
      );
    }
    const length = view.getUint32(offset, true);
    const start = offset + 4;
    if (start + length > bytes.length) {
      throw new Error(
        `BYTES tensor truncated: element ${elements.length} declares ${length} bytes, ${bytes.length - start} remain`,
      );
    }
    elements.push(bytes.subarray(start, start + length));
    offset = start + length;
  }
  if (expectedCount !== undefined && elements.length !== expectedCount) {
    throw new Error(`BYTES tensor holds ${elements.length} elements, expected ${expectedCount}`);
  }
  return elements;
}

/** Splits a serialised BYTES tensor into UTF-8 strings. */
export function decodeBytesTensorAsStrings(bytes: Uint8Array, expectedCount?: number): string[] {
  return decodeBytesTensor(bytes, expectedCount).map((element) => utf8Decode(element));
}
