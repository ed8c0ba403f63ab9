/**
 * Request bodies: read up to a byte limit, then inflated (gzip/deflate) with the same limit on the output.
 * Inflation runs on zlib's thread pool and stops as soon as the output passes the limit, so a compression
 * bomb costs at most `limit_bytes` of memory and never blocks the event loop.
 */
import type http from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Errors } from '../errors.ts';

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);

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

/** Inflates a body by its Content-Encoding; 413 when the inflated size passes `limit_bytes`, 400 when corrupt. */
export async function decompress(
  body: Buffer,
  encoding: string | undefined,
  limit_bytes: number,
): Promise<Buffer> {
  if (!encoding || encoding === 'identity') return body;
  const inflater = encoding === 'gzip' ? gunzip : encoding === 'deflate' ? inflate : undefined;
  if (!inflater) throw Errors.unsupported(`Content-Encoding "${encoding}"`);
  try {
    return await inflater(body, { maxOutputLength: Math.max(1, limit_bytes) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw Errors.inflatedTooLarge(encoding, limit_bytes);
    throw Errors.badRequest(`failed to decompress the ${encoding} request body: ${(err as Error).message}`);
  }
}
