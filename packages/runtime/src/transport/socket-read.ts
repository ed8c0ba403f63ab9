/**
 * How the lean HTTP/2 connection (http2-connection.ts) reads: net's `onread` into one
 * buffer per thread, skipping the Readable stream a 'data' listener needs (a fresh buffer, push and emit
 * per read). The bytes handed over are valid only until the callback returns: what a connection keeps
 * of them (a body, a split head or frame) it copies.
 */
import type { OnReadOpts } from 'node:net';

const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/** The `onread` option of a connection whose bytes go to `onData`. */
export function sharedRead(onData: (chunk: Buffer) => void): OnReadOpts {
  return {
    buffer: READ_BUFFER,
    callback: (n: number, buffer: Uint8Array) => {
      onData(Buffer.from(buffer.buffer, buffer.byteOffset, n));
      return true;
    },
  };
}
