/**
 * Request bodies: read up to a byte limit, then inflated (gzip/deflate) with the same limit on the output.
 * Inflation runs on zlib's thread pool and stops as soon as the output passes the limit, so a compression
 * bomb costs at most `limit_bytes` of memory and never blocks the event loop (Triton inflates without a
 * limit: this one is the embedded server's own).
 */
import type http from 'node:http';
import zlib from 'node:zlib';
import { Errors } from '../errors.ts';

/*
 * Why compressed JSON has a limit of its own (HttpLimits.inflatedJson_bytes, 1 MiB by default). Reading an infer body's JSON (bounds check, JSON.parse,
 * the tensor walk) holds the main thread about 20 ms per inflated MiB of numbers (bench/server/RESULTS.md,
 * "Bounded JSON"), while a compressed body can cost its sender a thousandth of that: 1 MiB keeps one request
 * to tens of milliseconds (text that is not JSON is read again byte by byte, about twice as long). Binary
 * tensors after the JSON header still inflate up to the body limit (no parsing; zlib's thread pool does it).
 */

/** Inflated output per step: Triton's own buffer size, and few enough steps to inflate 64 MiB quickly. */
const INFLATE_CHUNK_BYTES = 1024 * 1024;

/** Reads a whole request body; rejects with 413 past `limit_bytes` (declared or received). */
export function readBody(req: http.IncomingMessage, limit_bytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit_bytes) {
    req.resume();
    return Promise.reject(Errors.bodyTooLarge(limit_bytes));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit_bytes) {
        req.removeAllListeners('data');
        req.resume();
        settle(() => reject(Errors.bodyTooLarge(limit_bytes)));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () =>
      settle(() => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))),
    );
    req.on('error', (err) => settle(() => reject(err)));
    // A socket closed mid-body (client gone, request timeout) ends neither with 'end' nor always with 'error'.
    req.on('close', () => settle(() => reject(Errors.cancelled())));
  });
}

/**
 * Inflates an infer body, its JSON part held to `json_bytes`: a JSON-only body (no
 * Inference-Header-Content-Length) stops inflating there, a declared JSON header longer than that is refused
 * before inflating. Uncompressed bodies come back as they are.
 */
export function decompressInfer(
  body: Buffer,
  encoding: string | undefined,
  declaredJson: string | undefined,
  limit_bytes: number,
  json_bytes: number,
): Promise<Buffer> {
  if (!encoding || encoding === 'identity') return Promise.resolve(body);
  if (declaredJson === undefined) {
    const json = limit_bytes > json_bytes;
    return decompress(body, encoding, json ? json_bytes : limit_bytes, json);
  }
  if (Number.parseInt(declaredJson.trim(), 10) > json_bytes) {
    return Promise.reject(Errors.inflatedTooLarge(encoding, json_bytes, true));
  }
  return decompress(body, encoding, limit_bytes);
}

/**
 * Inflates a body by its Content-Encoding as Triton does: exactly "gzip" or "deflate" (either format is
 * recognised from its header), "" or "identity" as is, anything else 501. A damaged stream is not an error:
 * Triton reads what inflated before the damage. 413 when the output passes `limit_bytes` (`jsonLimit`: that
 * is the compressed JSON limit, and the message says so).
 */
export async function decompress(
  body: Buffer,
  encoding: string | undefined,
  limit_bytes: number,
  jsonLimit = false,
): Promise<Buffer> {
  if (!encoding || encoding === 'identity') return body;
  if (encoding !== 'gzip' && encoding !== 'deflate') throw Errors.unsupportedEncoding();
  if (body.length === 0) throw Errors.badRequest('nothing to be decompressed');
  const chunks: Buffer[] = [];
  let size = 0;
  return new Promise((resolve, reject) => {
    const inflater = zlib.createUnzip({
      finishFlush: zlib.constants.Z_SYNC_FLUSH,
      chunkSize: INFLATE_CHUNK_BYTES,
    });
    inflater.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit_bytes) {
        inflater.destroy();
        reject(Errors.inflatedTooLarge(encoding, limit_bytes, jsonLimit));
      } else chunks.push(chunk);
    });
    const done = () => resolve(Buffer.concat(chunks, Math.min(size, limit_bytes)));
    inflater.on('end', done);
    inflater.on('error', done);
    inflater.end(body);
  });
}
