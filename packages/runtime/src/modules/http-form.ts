/**
 * k6's object request bodies: URL-encoded (Go's url.Values, keys sorted), or multipart/form-data as soon as
 * one field is an `http.file()`. Parts are written as Go's mime/multipart writes them (a random 60-hex-digit
 * boundary, headers in key order, CRLF framing); k6 walks a Go map, so its part order is random: here it is
 * the object's own order, one of k6's.
 */
import { randomBytes } from 'node:crypto';
import { encodeValues } from './go-values.ts';

/** k6's FileData: what http.file() returns (field names as k6 exposes them). */
export class FileData {
  constructor(
    readonly data: string | ArrayBuffer,
    readonly filename: string,
    readonly content_type: string,
  ) {}
}

/** k6's http.file(data, [filename], [contentType]): a file part for a multipart body. */
export function file(data: unknown, filename?: unknown, contentType?: unknown): FileData {
  if (typeof data !== 'string' && !(data instanceof ArrayBuffer)) {
    const kind =
      data === null || data === undefined
        ? '<nil>'
        : ArrayBuffer.isView(data)
          ? 'map[string]interface {}'
          : typeof data;
    throw new Error(`invalid type ${kind}, expected string or ArrayBuffer`);
  }
  // k6's default name is the time in nanoseconds.
  const name = filename === undefined ? String(BigInt(Date.now()) * 1_000_000n) : String(filename);
  return new FileData(
    data,
    name,
    contentType === undefined ? 'application/octet-stream' : String(contentType),
  );
}

/** Go's %v of a number as sobek exports it: integers as int64, others as float64 (%g, shortest). */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  const [mantissa = '', e = '0'] = n.toExponential().split('e');
  const exp = Number(e);
  if (exp < -4 || exp >= 21 || (exp >= 6 && !Number.isInteger(n))) {
    const digits = String(Math.abs(exp)).padStart(2, '0');
    return `${mantissa}e${exp < 0 ? '-' : '+'}${digits}`;
  }
  return String(n);
}

/** k6's formatFormVal (v2.2.0): Go's %v of the exported value (null is <nil>, an object map[k:v ...] by key). */
function formValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v);
  if (Array.isArray(v)) return `[${v.map(formValue).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o)
      .sort()
      .map((k) => `${k}:${formValue(o[k])}`)
      .join(' ')}]`;
  }
  return String(v);
}

/** Go's quote escaping in a Content-Disposition parameter. */
const escapeQuotes = (s: string): string => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');

/** The body and Content-Type k6 makes of an object body. */
export function formBody(data: Record<string, unknown>): { body: string | Buffer; contentType: string } {
  const entries = Object.entries(data);
  if (!entries.some(([, v]) => v instanceof FileData)) {
    const values = new Map<string, string[]>();
    for (const [k, v] of entries) values.set(k, Array.isArray(v) ? v.map(formValue) : [formValue(v)]);
    return { body: encodeValues(values), contentType: 'application/x-www-form-urlencoded' };
  }
  const boundary = randomBytes(30).toString('hex');
  const chunks: Buffer[] = [];
  entries.forEach(([k, v], i) => {
    const head =
      v instanceof FileData
        ? `Content-Disposition: form-data; name="${k}"; filename="${escapeQuotes(v.filename)}"\r\nContent-Type: ${v.content_type}\r\n`
        : `Content-Disposition: form-data; name="${escapeQuotes(k)}"\r\n`;
    chunks.push(Buffer.from(`${i === 0 ? '' : '\r\n'}--${boundary}\r\n${head}\r\n`));
    if (v instanceof FileData)
      chunks.push(typeof v.data === 'string' ? Buffer.from(v.data) : Buffer.from(v.data));
    else chunks.push(Buffer.from(formValue(v)));
  });
  chunks.push(Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
