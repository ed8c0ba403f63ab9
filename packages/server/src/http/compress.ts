/**
 * Response compression as Triton's HTTP frontend does it for inference answers: the encoding is the first of
 * gzip, deflate and identity with the highest q in Accept-Encoding (CompressionTypeUsed), and the whole body,
 * JSON header and binary outputs alike, is compressed (Inference-Header-Content-Length keeps the JSON's own size).
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const gzip = promisify(zlib.gzip);
const deflate = promisify(zlib.deflate);

/** Bodies up to this size are compressed on the event loop: the thread pool hop costs more than the work. */
const SYNC_LIMIT_BYTES = 16 * 1024;

/** The encoding Triton answers with for an Accept-Encoding header; undefined for identity. */
export function responseEncoding(accept: string | undefined): 'gzip' | 'deflate' | undefined {
  if (!accept) return undefined;
  let chosen = 'identity';
  let weight = 0;
  for (const entry of accept.split(',')) {
    // Triton's reading: leading spaces skipped, ";q=" exactly, the rest of the entry the type (no trimming).
    const start = entry.search(/[^ ]/);
    const q = entry.indexOf(';q=');
    if (start < 0 || (q >= 0 && start >= q)) continue;
    const type = q < 0 ? entry.slice(start) : entry.slice(start, q);
    const typeWeight = q < 0 ? 1 : leadingNumber(entry.slice(q + 3));
    if (Number.isNaN(typeWeight)) continue;
    if ((type === 'identity' || type === 'gzip' || type === 'deflate') && typeWeight > weight) {
      chosen = type;
      weight = typeWeight;
    }
  }
  return chosen === 'identity' ? undefined : (chosen as 'gzip' | 'deflate');
}

/** std::stod: the number at the start of the text (after spaces), NaN when there is none. */
function leadingNumber(text: string): number {
  const m = /^\s*[+-]?(\d+\.?\d*(e[+-]?\d+)?|\.\d+(e[+-]?\d+)?|inf(inity)?|nan)/i.exec(text);
  return m ? Number.parseFloat(m[0].replace(/inf(inity)?/i, 'Infinity')) : Number.NaN;
}

/** The body compressed with `encoding` (zlib's default level, as Triton). */
export async function compressBody(chunks: Uint8Array[], encoding: 'gzip' | 'deflate'): Promise<Buffer> {
  const body = Buffer.concat(chunks);
  if (body.length <= SYNC_LIMIT_BYTES)
    return encoding === 'gzip' ? zlib.gzipSync(body) : zlib.deflateSync(body);
  return encoding === 'gzip' ? gzip(body) : deflate(body);
}
