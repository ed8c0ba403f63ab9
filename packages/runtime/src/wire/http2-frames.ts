/**
 * HTTP/2 framing (RFC 9113) for a client connection: the frame types, flags, error codes and settings it
 * uses, writers for the frames it sends, and a decoder that turns the bytes read from a socket into
 * frames: one event per frame, padding removed, a header block gathered from HEADERS and CONTINUATION and
 * decoded with HPACK. Pure: no sockets, streams or timers; what a frame means for a stream is the
 * connection's business (packages/runtime/src/transport/http2-connection.ts).
 */
import { HpackDecoder, HpackError } from './hpack.ts';

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
export const FRAME_HEADER_BYTES = 9;

/** Frame types (section 6). */
export const DATA = 0x0;
export const HEADERS = 0x1;
export const PRIORITY_FRAME = 0x2;
export const RST_STREAM = 0x3;
export const SETTINGS = 0x4;
export const PUSH_PROMISE = 0x5;
export const PING = 0x6;
export const GOAWAY = 0x7;
export const WINDOW_UPDATE = 0x8;
export const CONTINUATION = 0x9;

/** Flags. */
export const END_STREAM = 0x1;
export const ACK = 0x1;
export const END_HEADERS = 0x4;
export const PADDED = 0x8;
export const PRIORITY = 0x20;

/** Error codes (section 7). */
export const NO_ERROR = 0x0;
export const PROTOCOL_ERROR = 0x1;
export const FLOW_CONTROL_ERROR = 0x3;
export const FRAME_SIZE_ERROR = 0x6;
export const REFUSED_STREAM = 0x7;
export const CANCEL = 0x8;
export const COMPRESSION_ERROR = 0x9;

/** Settings identifiers (section 6.5.2). */
export const SETTINGS_HEADER_TABLE_SIZE = 0x1;
export const SETTINGS_ENABLE_PUSH = 0x2;
export const SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
export const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
export const SETTINGS_MAX_FRAME_SIZE = 0x5;

/** The initial flow-control window and the frame size every peer accepts. */
export const DEFAULT_WINDOW = 65_535;
export const DEFAULT_MAX_FRAME = 16_384;
/** The largest window, and the largest stream id (31 bits). */
export const MAX_WINDOW = 0x7fffffff;

/** A connection error: the peer broke the protocol; the connection ends with GOAWAY and `code`. */
export class Http2ProtocolError extends Error {
  override name = 'Http2ProtocolError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Writes a 9-byte frame header into `buf` at `at`. */
export function writeFrameHeader(
  buf: Buffer,
  at: number,
  length: number,
  type: number,
  flags: number,
  streamId: number,
): void {
  buf[at] = length >>> 16;
  buf[at + 1] = (length >>> 8) & 0xff;
  buf[at + 2] = length & 0xff;
  buf[at + 3] = type;
  buf[at + 4] = flags;
  buf.writeUInt32BE(streamId, at + 5);
}

/** A frame whose payload is 32-bit words (WINDOW_UPDATE, RST_STREAM, GOAWAY, an empty SETTINGS ACK). */
export function wordFrame(type: number, flags: number, streamId: number, words: readonly number[]): Buffer {
  const buf = Buffer.allocUnsafe(FRAME_HEADER_BYTES + words.length * 4);
  writeFrameHeader(buf, 0, words.length * 4, type, flags, streamId);
  for (let i = 0; i < words.length; i++) buf.writeUInt32BE(words[i]! >>> 0, FRAME_HEADER_BYTES + i * 4);
  return buf;
}

/** A SETTINGS frame of [identifier, value] pairs. */
export function settingsFrame(settings: readonly (readonly [number, number])[]): Buffer {
  const buf = Buffer.allocUnsafe(FRAME_HEADER_BYTES + settings.length * 6);
  writeFrameHeader(buf, 0, settings.length * 6, SETTINGS, 0, 0);
  let at = FRAME_HEADER_BYTES;
  for (const [id, value] of settings) {
    buf.writeUInt16BE(id, at);
    buf.writeUInt32BE(value >>> 0, at + 2);
    at += 6;
  }
  return buf;
}

/** A PING frame carrying `payload` (8 bytes), with ACK to answer one. */
export function pingFrame(payload: Buffer, ack: boolean): Buffer {
  const buf = Buffer.allocUnsafe(FRAME_HEADER_BYTES + 8);
  writeFrameHeader(buf, 0, 8, PING, ack ? ACK : 0, 0);
  payload.copy(buf, FRAME_HEADER_BYTES, 0, 8);
  return buf;
}

/**
 * What the decoder reports, frame by frame. Buffers handed over are valid only until the call returns
 * (they may point into the caller's read buffer): a handler copies what it keeps.
 */
export interface Http2FrameHandler {
  /**
   * A DATA frame: `data` without padding; `flowBytes`, the whole payload, is what flow control counts.
   * Called for every DATA frame, empty ones included.
   */
  data(streamId: number, data: Buffer, flowBytes: number, endStream: boolean): void;
  /** A complete header block (HEADERS and its CONTINUATIONs), HPACK-decoded into name, value, name, value... */
  headers(streamId: number, fields: string[], endStream: boolean): void;
  rstStream(streamId: number, code: number): void;
  /** A SETTINGS frame: `ack`, or the [identifier, value] pairs in the order sent. */
  settings(ack: boolean, values: [number, number][]): void;
  /** A PING: `payload` is its 8 bytes. */
  ping(ack: boolean, payload: Buffer): void;
  goaway(lastStreamId: number, code: number): void;
  windowUpdate(streamId: number, increment: number): void;
}

/** Bounds of the decoder. */
export interface Http2DecoderOptions {
  /** The largest frame payload accepted (our SETTINGS_MAX_FRAME_SIZE). @default 16384 */
  maxFrame_bytes?: number;
  /** The largest header block accepted: a bound on what one response may make us buffer. @default 1 MiB */
  maxHeaderBlock_bytes?: number;
  /** The HPACK decoder of the connection. @default a new one with a 4096-byte table */
  hpack?: HpackDecoder;
}

/**
 * Turns the bytes read from one connection into frames, in order, and calls the handler once per
 * frame. A frame split across reads is kept until it is complete; push() throws Http2ProtocolError
 * on bytes that break the protocol (the connection must end then).
 */
export class Http2FrameDecoder {
  readonly #handler: Http2FrameHandler;
  readonly #maxFrame: number;
  readonly #maxBlock: number;
  readonly #hpack: HpackDecoder;
  /** Bytes of an incomplete frame from an earlier read (a copy). */
  #pending: Buffer | null = null;
  /** A header block being gathered from HEADERS + CONTINUATION frames. */
  #block: Buffer[] | null = null;
  #blockId = 0;
  #blockEnd = false;
  #blockBytes = 0;
  #halted = false;

  constructor(handler: Http2FrameHandler, options: Http2DecoderOptions = {}) {
    this.#handler = handler;
    this.#maxFrame = options.maxFrame_bytes ?? DEFAULT_MAX_FRAME;
    this.#maxBlock = options.maxHeaderBlock_bytes ?? 1 << 20;
    this.#hpack = options.hpack ?? new HpackDecoder();
  }

  /** Stops reading: frames still in the current or a later push() are dropped. */
  halt(): void {
    this.#halted = true;
    this.#pending = null;
    this.#block = null;
  }

  /** Bytes held for an incomplete frame. */
  get pending_bytes(): number {
    return this.#pending?.length ?? 0;
  }

  /** Reads the frames in `chunk` (valid only during the call); keeps a copy of an incomplete one. */
  push(chunk: Buffer): void {
    if (this.#halted) return;
    const buf = this.#pending ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#pending = null;
    let off = 0;
    while (buf.length - off >= FRAME_HEADER_BYTES) {
      const length = (buf[off]! << 16) | (buf[off + 1]! << 8) | buf[off + 2]!;
      if (length > this.#maxFrame) throw new Http2ProtocolError(FRAME_SIZE_ERROR, `frame of ${length} bytes`);
      if (buf.length - off < FRAME_HEADER_BYTES + length) break;
      const type = buf[off + 3]!;
      const flags = buf[off + 4]!;
      const id = buf.readUInt32BE(off + 5) & MAX_WINDOW;
      const payload = buf.subarray(off + FRAME_HEADER_BYTES, off + FRAME_HEADER_BYTES + length);
      off += FRAME_HEADER_BYTES + length;
      this.#frame(type, flags, id, payload);
      if (this.#halted) return;
    }
    if (off < buf.length) this.#pending = Buffer.from(buf.subarray(off));
  }

  #frame(type: number, flags: number, id: number, payload: Buffer): void {
    if (this.#block && type !== CONTINUATION)
      throw new Http2ProtocolError(PROTOCOL_ERROR, 'header block interrupted');
    const h = this.#handler;
    switch (type) {
      case DATA: {
        if (id === 0) throw new Http2ProtocolError(PROTOCOL_ERROR, 'DATA on stream 0');
        let data = payload;
        if (flags & PADDED) {
          const pad = payload[0] ?? 0;
          if (pad >= payload.length) throw new Http2ProtocolError(PROTOCOL_ERROR, 'DATA padding');
          data = payload.subarray(1, payload.length - pad);
        }
        h.data(id, data, payload.length, (flags & END_STREAM) !== 0);
        return;
      }
      case HEADERS: {
        if (id === 0) throw new Http2ProtocolError(PROTOCOL_ERROR, 'HEADERS on stream 0');
        let from = 0;
        let to = payload.length;
        if (flags & PADDED) {
          from = 1;
          to -= payload[0] ?? 0;
        }
        if (flags & PRIORITY) from += 5;
        if (from > to) throw new Http2ProtocolError(PROTOCOL_ERROR, 'HEADERS padding');
        this.#blockPart(id, payload.subarray(from, to), flags, true);
        return;
      }
      case CONTINUATION:
        if (!this.#block || id !== this.#blockId)
          throw new Http2ProtocolError(PROTOCOL_ERROR, 'unexpected CONTINUATION');
        this.#blockPart(id, payload, flags, false);
        return;
      case RST_STREAM:
        if (payload.length !== 4) throw new Http2ProtocolError(FRAME_SIZE_ERROR, 'RST_STREAM size');
        h.rstStream(id, payload.readUInt32BE(0));
        return;
      case SETTINGS: {
        if (id !== 0) throw new Http2ProtocolError(PROTOCOL_ERROR, 'SETTINGS on a stream');
        if (flags & ACK) {
          if (payload.length !== 0) throw new Http2ProtocolError(FRAME_SIZE_ERROR, 'SETTINGS ACK size');
          h.settings(true, []);
          return;
        }
        if (payload.length % 6 !== 0) throw new Http2ProtocolError(FRAME_SIZE_ERROR, 'SETTINGS size');
        const values: [number, number][] = [];
        for (let at = 0; at < payload.length; at += 6)
          values.push([payload.readUInt16BE(at), payload.readUInt32BE(at + 2)]);
        h.settings(false, values);
        return;
      }
      case PUSH_PROMISE:
        throw new Http2ProtocolError(PROTOCOL_ERROR, 'PUSH_PROMISE with push disabled');
      case PING:
        if (payload.length !== 8) throw new Http2ProtocolError(FRAME_SIZE_ERROR, 'PING size');
        if (id !== 0) throw new Http2ProtocolError(PROTOCOL_ERROR, 'PING on a stream');
        h.ping((flags & ACK) !== 0, payload);
        return;
      case GOAWAY:
        if (payload.length < 8) throw new Http2ProtocolError(FRAME_SIZE_ERROR, 'GOAWAY size');
        h.goaway(payload.readUInt32BE(0) & MAX_WINDOW, payload.readUInt32BE(4));
        return;
      case WINDOW_UPDATE:
        if (payload.length !== 4) throw new Http2ProtocolError(FRAME_SIZE_ERROR, 'WINDOW_UPDATE size');
        h.windowUpdate(id, payload.readUInt32BE(0) & MAX_WINDOW);
        return;
      default:
        // PRIORITY and unknown frame types are ignored (section 5.5).
        return;
    }
  }

  #blockPart(id: number, part: Buffer, flags: number, first: boolean): void {
    if (first) {
      this.#block = [];
      this.#blockId = id;
      this.#blockEnd = (flags & END_STREAM) !== 0;
      this.#blockBytes = 0;
    }
    this.#blockBytes += part.length;
    if (this.#blockBytes > this.#maxBlock)
      throw new Http2ProtocolError(PROTOCOL_ERROR, 'header block too large');
    const parts = this.#block!;
    if (!(flags & END_HEADERS)) {
      // The rest of the block comes in a later frame, perhaps a later read: keep a copy of this part.
      parts.push(Buffer.from(part));
      return;
    }
    parts.push(part);
    this.#block = null;
    const block = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    let fields: string[];
    try {
      // Decoded even for a stream the connection has forgotten: the dynamic table follows every block.
      fields = this.#hpack.decode(block);
    } catch (err) {
      if (err instanceof HpackError) throw new Http2ProtocolError(COMPRESSION_ERROR, err.message);
      throw err;
    }
    this.#handler.headers(id, fields, this.#blockEnd);
  }
}
