/**
 * gRPC message framing ("Length-Prefixed-Message" of gRPC over HTTP/2): each message is a 1-byte
 * compressed flag, its length as 4 bytes big-endian, then the message. Used by the runtime's unary
 * client.
 */

/** The prefix before each message. */
export const PREFIX_BYTES = 5;

/** One message read from a body. */
export interface GrpcMessage {
  compressed: boolean;
  bytes: Buffer;
}

/** Writes a prefix for a message of `length` bytes into `buf` at `at`. */
export function writePrefix(buf: Buffer, at: number, length: number, compressed = false): void {
  buf[at] = compressed ? 1 : 0;
  buf.writeUInt32BE(length, at + 1);
}

/** The prefix of a message of `length` bytes, on its own. */
export function prefix(length: number, compressed = false): Buffer {
  const out = Buffer.allocUnsafe(PREFIX_BYTES);
  writePrefix(out, 0, length, compressed);
  return out;
}

/** A message with its prefix, in one buffer. */
export function frameMessage(message: Buffer, compressed = false): Buffer {
  const out = Buffer.allocUnsafe(PREFIX_BYTES + message.length);
  writePrefix(out, 0, message.length, compressed);
  message.copy(out, PREFIX_BYTES);
  return out;
}

/** The length a prefix at the start of `buf` announces; -1 while fewer than 5 bytes are there. */
export function announcedLength(buf: Buffer): number {
  return buf.length >= PREFIX_BYTES ? buf.readUInt32BE(1) : -1;
}

/**
 * The first message of a unary answer's body, without its prefix; null when the body is shorter than a
 * prefix. A body cut short gives the bytes that arrived (the message decoder then refuses them).
 */
export function firstMessage(body: Buffer): Buffer | null {
  if (body.length < PREFIX_BYTES) return null;
  return body.subarray(PREFIX_BYTES, PREFIX_BYTES + body.readUInt32BE(1));
}

/**
 * Splits a whole body into its messages. `rest` holds the bytes after the last complete message (an
 * incomplete one, or nothing); the messages share memory with `body`.
 */
export function splitMessages(body: Buffer): { messages: GrpcMessage[]; rest: Buffer } {
  const messages: GrpcMessage[] = [];
  let off = 0;
  while (body.length - off >= PREFIX_BYTES) {
    const length = body.readUInt32BE(off + 1);
    if (body.length - off - PREFIX_BYTES < length) break;
    // Flag 1 is compressed; gRPC implementations read any other value as uncompressed.
    messages.push({
      compressed: body[off] === 1,
      bytes: body.subarray(off + PREFIX_BYTES, off + PREFIX_BYTES + length),
    });
    off += PREFIX_BYTES + length;
  }
  return { messages, rest: body.subarray(off) };
}

/** A message whose prefix announces more bytes than the reader accepts. */
export class GrpcMessageTooLarge extends Error {
  override name = 'GrpcMessageTooLarge';
  constructor(
    readonly length: number,
    readonly max: number,
  ) {
    super(`message of ${length} bytes above the limit of ${max}`);
  }
}

/**
 * Reads messages from a body that arrives in chunks: push() returns the messages each chunk completes.
 * Chunks must stay valid (owned buffers, such as a Node stream's): messages share memory with them, and
 * a message split across chunks is joined once, when its last byte arrives. A prefix announcing more
 * than `maxMessage_bytes` throws GrpcMessageTooLarge before the message is buffered.
 */
export class GrpcMessageDecoder {
  readonly #max: number;
  /** Chunks of an incomplete message, and their total length. */
  #parts: Buffer[] = [];
  #held = 0;
  /** The bytes the incomplete message needs in all (prefix included); -1 until its prefix is in. */
  #need = -1;

  constructor(options: { maxMessage_bytes?: number } = {}) {
    this.#max = options.maxMessage_bytes ?? Number.POSITIVE_INFINITY;
  }

  /** Bytes held for a message not yet complete. */
  get pending_bytes(): number {
    return this.#held;
  }

  /** The messages `chunk` completes. */
  push(chunk: Buffer): GrpcMessage[] {
    if (this.#held > 0) {
      this.#parts.push(chunk);
      this.#held += chunk.length;
      if (this.#need < 0 && this.#held >= PREFIX_BYTES) this.#need = this.#announced();
      if (this.#need < 0 || this.#held < this.#need) return [];
      const joined = Buffer.concat(this.#parts, this.#held);
      this.#parts = [];
      this.#held = 0;
      this.#need = -1;
      return this.#split(joined);
    }
    return this.#split(chunk);
  }

  #split(buf: Buffer): GrpcMessage[] {
    const { messages, rest } = splitMessages(buf);
    for (const m of messages)
      if (m.bytes.length > this.#max) throw new GrpcMessageTooLarge(m.bytes.length, this.#max);
    if (rest.length > 0) {
      this.#parts = [rest];
      this.#held = rest.length;
      this.#need = rest.length >= PREFIX_BYTES ? this.#announced() : -1;
    }
    return messages;
  }

  /** The whole size of the held message, from its prefix; throws when above the limit. */
  #announced(): number {
    const head = this.#parts[0]!.length >= PREFIX_BYTES ? this.#parts[0]! : Buffer.concat(this.#parts);
    const length = head.readUInt32BE(1);
    if (length > this.#max) throw new GrpcMessageTooLarge(length, this.#max);
    return PREFIX_BYTES + length;
  }
}
