/** `k6/encoding`: b64encode and b64decode with k6's signatures and encodings (std, rawstd, url, rawurl). */

type B64Encoding = 'std' | 'rawstd' | 'url' | 'rawurl';

function toBuffer(input: unknown): Buffer {
  if (typeof input === 'string') return Buffer.from(input, 'utf8');
  if (input instanceof ArrayBuffer) return Buffer.from(input);
  if (ArrayBuffer.isView(input)) return Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  throw new Error(`b64encode: input must be a string or ArrayBuffer, got ${typeof input}`);
}

/** Base64-encodes a string (UTF-8) or ArrayBuffer; a null or empty encoding is std, as in k6. */
export function b64encode(input: string | ArrayBuffer, encoding: B64Encoding | null | '' = 'std'): string {
  const buf = toBuffer(input);
  switch (encoding) {
    case null:
    case '':
    case 'std':
      return buf.toString('base64');
    case 'rawstd':
      return buf.toString('base64').replace(/=+$/, '');
    case 'url':
      return buf.toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
    case 'rawurl':
      return buf.toString('base64url');
    default:
      throw new Error(`b64encode: unknown encoding "${encoding}" (std, rawstd, url, rawurl)`);
  }
}

/** Decodes base64 to an ArrayBuffer, or to a string when format is 's'; a null or empty encoding is std, as in k6. */
export function b64decode(
  input: string,
  encoding: B64Encoding | null | '' = 'std',
  format?: 's',
): ArrayBuffer | string {
  if (encoding === null || encoding === '') encoding = 'std';
  if (!['std', 'rawstd', 'url', 'rawurl'].includes(encoding)) {
    throw new Error(`b64decode: unknown encoding "${encoding}" (std, rawstd, url, rawurl)`);
  }
  const buf = Buffer.from(
    String(input),
    encoding === 'url' || encoding === 'rawurl' ? 'base64url' : 'base64',
  );
  if (format === 's') return buf.toString('utf8');
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
}

export default { b64encode, b64decode };
