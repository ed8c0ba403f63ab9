/**
 * k6/websockets' Blob: bytes and a MIME type, built from strings (UTF-8), ArrayBuffers, typed arrays, DataViews
 * and other Blobs, read back through promises (arrayBuffer, bytes, text), slice() and stream(). Its bytes are
 * also readable at once (blobBytes), so WebSocket.send(blob) can send it without waiting, as k6 does.
 */

const encoder = new TextEncoder();

/** A k6/websockets Blob. */
export class Blob {
  readonly #bytes: Uint8Array;
  readonly #type: string;

  constructor(parts?: unknown, options?: unknown) {
    const chunks: Uint8Array[] = [];
    if (parts !== undefined && parts !== null) {
      if (typeof (parts as Iterable<unknown>)[Symbol.iterator] !== 'function')
        throw new Error('failed to process [blobParts]: expected an array');
      for (const part of parts as Iterable<unknown>) chunks.push(partBytes(part));
    }
    if (options !== undefined && (options === null || typeof options !== 'object'))
      throw new Error('[options] must be an object');
    const type = (options as { type?: unknown } | undefined)?.type;
    this.#type = type === undefined ? '' : String(type);
    const total = chunks.reduce((n, c) => n + c.length, 0);
    this.#bytes = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      this.#bytes.set(c, at);
      at += c.length;
    }
  }

  /** The size in bytes. */
  get size(): number {
    return this.#bytes.length;
  }

  /** The MIME type given at construction ('' by default). */
  get type(): string {
    return this.#type;
  }

  /** The bytes as a new ArrayBuffer. */
  arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.#bytes.slice().buffer);
  }

  /** The bytes as a new Uint8Array. */
  bytes(): Promise<Uint8Array> {
    return Promise.resolve(this.#bytes.slice());
  }

  /** The bytes decoded as UTF-8. */
  text(): Promise<string> {
    return Promise.resolve(Buffer.from(this.#bytes).toString('utf8'));
  }

  /** A Blob of bytes [start, end) (a negative end counts from the end), with its own type. */
  slice(start?: unknown, end?: unknown, type?: unknown): Blob {
    const n = this.#bytes.length;
    const from = start === undefined ? 0 : Math.trunc(Number(start)) || 0;
    let to = end === undefined ? n : Math.trunc(Number(end)) || 0;
    if (to < 0) to += n;
    return new Blob([this.#bytes.slice(from, to)], { type: type === undefined ? '' : String(type) });
  }

  /** A ReadableStream of the bytes. */
  stream(): ReadableStream<Uint8Array> {
    const bytes = this.#bytes.slice();
    return new ReadableStream({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
  }

  toString(): string {
    return '[object Blob]';
  }

  /** The blob's bytes, without copying (for WebSocket.send). */
  static bytesOf(blob: Blob): Uint8Array {
    return blob.#bytes;
  }
}

function partBytes(part: unknown): Uint8Array {
  if (typeof part === 'string') return encoder.encode(part);
  if (part instanceof ArrayBuffer) return new Uint8Array(part);
  if (ArrayBuffer.isView(part)) return new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
  if (part instanceof Blob) return Blob.bytesOf(part);
  const type = part === null || part === undefined ? String(part) : typeof part;
  throw new Error(`failed to process [blobParts]: unsupported type: ${type}`);
}
