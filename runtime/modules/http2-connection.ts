/**
 * One plaintext HTTP/2 connection (h2c, prior knowledge) carrying unary gRPC calls, written for the
 * measured hot call as http1-connection.ts is for HTTP/1.1. A CPU profile of the Node runtime at
 * concurrency 1 put node:http2's per-stream machinery (Duplex streams, header object conversion,
 * events, nextTick) at most of the client's CPU per MNIST call; here a call is a plain object in a map,
 * its request is one write of HEADERS and DATA, and the response is read by a small frame parser with
 * HPACK (hpack.ts). K6_TRITON_GRPC_CLIENT=node-http2 keeps node:http2 (grpc-unary.ts) for comparison.
 */
import type { IncomingHttpHeaders } from 'node:http2';
import { connect, type Socket } from 'node:net';
import * as grpcjs from '@grpc/grpc-js';
import type { UnaryOutcome } from './grpc-unary.ts';
import { HpackDecoder, HpackError } from './hpack.ts';
import { sharedRead } from './socket-read.ts';

/** k6 dials with a 30 s timeout. */
const DIAL_TIMEOUT_MS = 30_000;
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
/** Frame types (RFC 9113 section 6). */
const DATA = 0x0;
const HEADERS = 0x1;
const RST_STREAM = 0x3;
const SETTINGS = 0x4;
const PUSH_PROMISE = 0x5;
const PING = 0x6;
const GOAWAY = 0x7;
const WINDOW_UPDATE = 0x8;
const CONTINUATION = 0x9;
/** Flags. */
const END_STREAM = 0x1;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY = 0x20;
/** Error codes. */
const NO_ERROR = 0x0;
const PROTOCOL_ERROR = 0x1;
const FLOW_CONTROL_ERROR = 0x3;
const FRAME_SIZE_ERROR = 0x6;
const REFUSED_STREAM = 0x7;
const CANCEL = 0x8;
const COMPRESSION_ERROR = 0x9;
/** Settings identifiers. */
const SETTINGS_HEADER_TABLE_SIZE = 0x1;
const SETTINGS_ENABLE_PUSH = 0x2;
const SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
const SETTINGS_MAX_FRAME_SIZE = 0x5;
const DEFAULT_WINDOW = 65_535;
const MAX_WINDOW = 0x7fffffff;
/** The frame size we accept (we leave SETTINGS_MAX_FRAME_SIZE at its default). */
const OUR_MAX_FRAME = 16_384;
/** A header block larger than this is refused (a bound on what one response may make us buffer). */
const MAX_HEADER_BLOCK_BYTES = 1 << 20;
/** Requests up to this size are copied into one buffer with their frame headers: one write() each. */
const COPY_BODY_BYTES = 64 * 1024;
const { UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED } = grpcjs.status;

/** Response headers as node:http2 hands them out: lower-case names, repeated ones joined with ", ". */
type HeaderObject = Record<string, string | string[]>;

/** Options of a connection. */
export interface Http2ConnectionOptions {
  /** Our receive window per stream and per connection, bytes. */
  window_bytes: number;
  /** Largest response message accepted. */
  maxReceive_bytes: number;
}

/** One unary call: its stream, what arrived, and what is left to send. */
interface Call {
  id: number;
  resolve: (o: UnaryOutcome) => void;
  timer: NodeJS.Timeout | null;
  headers: HeaderObject | null;
  trailers: HeaderObject | null;
  chunks: Buffer[];
  received: number;
  /** DATA bytes consumed since the last stream WINDOW_UPDATE we sent. */
  unacked: number;
  /** The peer's send window for this stream. */
  sendWindow: number;
  /** The request body not yet sent (prefix + message), as a cursor over `message`. */
  prefix: Buffer | null;
  message: Buffer | null;
  sent: number;
}

/** The grpc-message text (percent-encoded on the wire). */
export function decodeMessage(raw: unknown): string {
  if (typeof raw !== 'string') return '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** An outcome without response: a status code and its details. */
export function failure(code: number, details: string): UnaryOutcome {
  return { code, details, headers: null, trailers: {}, reply: null };
}

/** A call that ended without a status, in the words of the node:http2 client. */
function noStatus(call: Call, http2Code: number): UnaryOutcome {
  return failure(
    UNAVAILABLE,
    `stream closed before a status (HTTP/2 code ${http2Code}${call.headers ? '' : ', no response'})`,
  );
}

/** A decoded header list as an object (set-cookie stays a list, other repeats are joined). */
function headerObject(pairs: string[]): HeaderObject {
  const out: HeaderObject = {};
  for (let i = 0; i < pairs.length; i += 2) {
    const name = pairs[i]!;
    const value = pairs[i + 1]!;
    const had = out[name];
    if (had === undefined) out[name] = name === 'set-cookie' ? [value] : value;
    else if (Array.isArray(had)) had.push(value);
    else out[name] = `${had}, ${value}`;
  }
  return out;
}

/** A 9-byte frame header written into `buf` at `at`. */
function frameHeader(buf: Buffer, at: number, length: number, type: number, flags: number, id: number): void {
  buf[at] = length >>> 16;
  buf[at + 1] = (length >>> 8) & 0xff;
  buf[at + 2] = length & 0xff;
  buf[at + 3] = type;
  buf[at + 4] = flags;
  buf.writeUInt32BE(id, at + 5);
}

/** A frame with a small payload of 32-bit words (SETTINGS, WINDOW_UPDATE, RST_STREAM, GOAWAY). */
function wordFrame(type: number, flags: number, id: number, words: number[]): Buffer {
  const buf = Buffer.allocUnsafe(9 + words.length * 4);
  frameHeader(buf, 0, words.length * 4, type, flags, id);
  for (let i = 0; i < words.length; i++) buf.writeUInt32BE(words[i]! >>> 0, 9 + i * 4);
  return buf;
}

/** An HTTP/2 connection error: the connection ends with GOAWAY and this code. */
class ConnectionError extends Error {
  constructor(
    readonly h2code: number,
    message: string,
  ) {
    super(message);
  }
}

/** One socket to one gRPC server; `call` sends a unary call on a new stream. */
export class Http2Connection {
  readonly #socket: Socket;
  readonly #options: Http2ConnectionOptions;
  readonly #decoder = new HpackDecoder();
  readonly #calls = new Map<number, Call>();
  /** Calls with request bytes waiting for send window, in the order they were made. */
  readonly #blocked = new Set<Call>();
  /** Calls waiting for the peer's MAX_CONCURRENT_STREAMS to allow another stream. */
  readonly #queued: (() => void)[] = [];
  #nextId = 1;
  #pending: Buffer | null = null;
  /** A header block being assembled from HEADERS + CONTINUATION frames. */
  #block: Buffer[] | null = null;
  #blockId = 0;
  #blockEnd = false;
  #blockBytes = 0;
  /** Peer settings. */
  #maxFrame = 16_384;
  #initialWindow = DEFAULT_WINDOW;
  #maxStreams = Number.POSITIVE_INFINITY;
  #sendWindow = DEFAULT_WINDOW;
  /** DATA bytes consumed since the last connection WINDOW_UPDATE we sent. */
  #unacked = 0;
  #closing = false;
  /** The connection's deadline timer, its duration, and the call it is armed for. */
  #timer: NodeJS.Timeout | null = null;
  #timerMs = -1;
  #timerCall: Call | null = null;
  /** Set once no new stream may be opened here (GOAWAY, closed, errored, ids used up). */
  dead = false;
  connected = false;
  /** Resolves when the socket is connected; rejects with the dial error. */
  readonly ready: Promise<void>;

  constructor(host: string, port: number, options: Http2ConnectionOptions) {
    this.#options = options;
    const socket = connect({
      host,
      port,
      noDelay: true,
      keepAlive: true,
      onread: sharedRead((chunk) => this.#onData(chunk)),
    });
    this.#socket = socket;
    socket.setNoDelay(true);
    this.ready = new Promise<void>((resolve, reject) => {
      socket.once('connect', () => {
        this.connected = true;
        socket.setTimeout(0);
        resolve();
      });
      socket.once('error', reject);
    });
    // A dial error reaches whoever awaits ready; later errors close the calls instead.
    this.ready.catch(() => undefined);
    socket.setTimeout(DIAL_TIMEOUT_MS, () => {
      if (!this.connected)
        socket.destroy(Object.assign(new Error('dial: i/o timeout'), { code: 'ETIMEDOUT' }));
    });
    socket.on('error', () => this.#onClose());
    socket.on('close', () => this.#onClose());
    // The preface, our settings and the connection window opened to window_bytes, in one write.
    const window = Math.min(options.window_bytes, MAX_WINDOW);
    const settings = Buffer.allocUnsafe(9 + 12);
    frameHeader(settings, 0, 12, SETTINGS, 0, 0);
    settings.writeUInt16BE(SETTINGS_ENABLE_PUSH, 9);
    settings.writeUInt32BE(0, 11);
    settings.writeUInt16BE(SETTINGS_INITIAL_WINDOW_SIZE, 15);
    settings.writeUInt32BE(window, 17);
    const parts: Buffer[] = [PREFACE, settings];
    if (window > DEFAULT_WINDOW) parts.push(wordFrame(WINDOW_UPDATE, 0, 0, [window - DEFAULT_WINDOW]));
    socket.write(Buffer.concat(parts));
  }

  /** Open calls (streams). */
  get open(): number {
    return this.#calls.size;
  }

  /**
   * Sends one unary call: `block` is the request's HPACK header block, `message` the encoded message
   * (unprefixed). Resolves with the outcome, never rejects.
   */
  call(block: Buffer, message: Buffer, timeout_ms: number): Promise<UnaryOutcome> {
    return new Promise<UnaryOutcome>((resolve) => {
      if (this.dead) {
        resolve(failure(UNAVAILABLE, 'connection closed'));
        return;
      }
      const start = (): void => this.#start(block, message, timeout_ms, resolve);
      if (this.#calls.size >= this.#maxStreams) this.#queued.push(start);
      else start();
    });
  }

  /** Closes the connection once its open calls are done (GOAWAY first, as node:http2's close()). */
  close(): void {
    this.dead = true;
    this.#closing = true;
    if (this.#calls.size === 0 && this.#queued.length === 0) this.#shutdown();
  }

  #start(block: Buffer, message: Buffer, timeout_ms: number, resolve: (o: UnaryOutcome) => void): void {
    if (this.dead && !this.#closing) {
      resolve(failure(UNAVAILABLE, 'connection closed'));
      return;
    }
    const id = this.#nextId;
    this.#nextId += 2;
    // Stream ids are 31 bits: the channel opens a new connection after the last one.
    if (this.#nextId > MAX_WINDOW) this.dead = true;
    const call: Call = {
      id,
      resolve,
      timer: null,
      headers: null,
      trailers: null,
      chunks: [],
      received: 0,
      unacked: 0,
      sendWindow: this.#initialWindow,
      prefix: null,
      message: null,
      sent: 0,
    };
    this.#calls.set(id, call);
    if (timeout_ms > 0 && Number.isFinite(timeout_ms)) this.#arm(call, timeout_ms);
    const bodyLength = 5 + message.length;
    const blockFits = block.length <= this.#maxFrame;
    if (
      blockFits &&
      message.length <= COPY_BODY_BYTES &&
      bodyLength <= this.#maxFrame &&
      bodyLength <= this.#sendWindow &&
      bodyLength <= call.sendWindow
    ) {
      // The common case: HEADERS, then one DATA frame with the prefix and message, in one buffer.
      const buf = Buffer.allocUnsafe(9 + block.length + 9 + bodyLength);
      frameHeader(buf, 0, block.length, HEADERS, END_HEADERS, id);
      block.copy(buf, 9);
      let at = 9 + block.length;
      frameHeader(buf, at, bodyLength, DATA, END_STREAM, id);
      at += 9;
      buf[at] = 0;
      buf.writeUInt32BE(message.length, at + 1);
      message.copy(buf, at + 5);
      this.#sendWindow -= bodyLength;
      call.sendWindow -= bodyLength;
      this.#socket.write(buf);
      return;
    }
    this.#socket.cork();
    this.#writeHeaders(id, block);
    const prefix = Buffer.allocUnsafe(5);
    prefix[0] = 0;
    prefix.writeUInt32BE(message.length, 1);
    call.prefix = prefix;
    call.message = message;
    this.#sendBody(call);
    this.#socket.uncork();
  }

  /**
   * A call's deadline. One call at a time re-arms the connection's timer (refresh() costs less than a
   * new timer and its clearTimeout per call); calls made while it is taken get timers of their own.
   */
  #arm(call: Call, timeout_ms: number): void {
    if (this.#timerCall !== null) {
      call.timer = setTimeout(() => this.#onDeadline(call), timeout_ms);
      return;
    }
    this.#timerCall = call;
    if (this.#timer && this.#timerMs === timeout_ms) this.#timer.refresh();
    else {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timerMs = timeout_ms;
      // Unref'd: a call in flight holds the process through its socket, an idle connection doesn't.
      this.#timer = setTimeout(() => {
        const timed = this.#timerCall;
        this.#timerCall = null;
        if (timed) this.#onDeadline(timed);
      }, timeout_ms).unref();
    }
  }

  /** HEADERS, split into CONTINUATION frames when the block is larger than the peer's frame size. */
  #writeHeaders(id: number, block: Buffer): void {
    let off = 0;
    let type = HEADERS;
    do {
      const n = Math.min(this.#maxFrame, block.length - off);
      const last = off + n === block.length;
      const head = Buffer.allocUnsafe(9);
      frameHeader(head, 0, n, type, last ? END_HEADERS : 0, id);
      this.#socket.write(head);
      if (n > 0) this.#socket.write(block.subarray(off, off + n));
      off += n;
      type = CONTINUATION;
    } while (off < block.length);
  }

  /** Sends as much of a call's body as the send windows allow; the rest waits for WINDOW_UPDATE. */
  #sendBody(call: Call): void {
    const total = 5 + call.message!.length;
    while (call.sent < total) {
      const n = Math.min(this.#maxFrame, total - call.sent, this.#sendWindow, call.sendWindow);
      if (n <= 0) {
        this.#blocked.add(call);
        return;
      }
      const from = call.sent;
      const to = from + n;
      const head = Buffer.allocUnsafe(9);
      frameHeader(head, 0, n, DATA, to === total ? END_STREAM : 0, call.id);
      this.#socket.write(head);
      if (from < 5) this.#socket.write(call.prefix!.subarray(from, Math.min(5, to)));
      if (to > 5) this.#socket.write(call.message!.subarray(Math.max(0, from - 5), to - 5));
      call.sent = to;
      this.#sendWindow -= n;
      call.sendWindow -= n;
    }
    this.#blocked.delete(call);
    call.prefix = null;
    call.message = null;
  }

  /** Resumes blocked request bodies after the send windows grew. */
  #flush(): void {
    if (this.#blocked.size === 0 || this.#sendWindow <= 0) return;
    this.#socket.cork();
    for (const call of this.#blocked) {
      this.#sendBody(call);
      if (this.#sendWindow <= 0) break;
    }
    this.#socket.uncork();
  }

  /** Reads the frames in the bytes just read; `chunk` is valid only until this returns (socket-read.ts). */
  #onData(chunk: Buffer): void {
    const buf = this.#pending ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#pending = null;
    let off = 0;
    try {
      while (buf.length - off >= 9) {
        const length = (buf[off]! << 16) | (buf[off + 1]! << 8) | buf[off + 2]!;
        if (length > OUR_MAX_FRAME) throw new ConnectionError(FRAME_SIZE_ERROR, `frame of ${length} bytes`);
        if (buf.length - off < 9 + length) break;
        const type = buf[off + 3]!;
        const flags = buf[off + 4]!;
        const id = buf.readUInt32BE(off + 5) & MAX_WINDOW;
        const payload = buf.subarray(off + 9, off + 9 + length);
        off += 9 + length;
        this.#onFrame(type, flags, id, payload);
        if (this.#socket.destroyed) return;
      }
    } catch (err) {
      this.#connectionError(err);
      return;
    }
    if (off < buf.length) this.#pending = Buffer.from(buf.subarray(off));
  }

  #onFrame(type: number, flags: number, id: number, payload: Buffer): void {
    if (this.#block && type !== CONTINUATION)
      throw new ConnectionError(PROTOCOL_ERROR, 'header block interrupted');
    switch (type) {
      case DATA:
        this.#onDataFrame(flags, id, payload);
        return;
      case HEADERS: {
        if (id === 0) throw new ConnectionError(PROTOCOL_ERROR, 'HEADERS on stream 0');
        let from = 0;
        let to = payload.length;
        if (flags & PADDED) {
          from = 1;
          to -= payload[0] ?? 0;
        }
        if (flags & PRIORITY) from += 5;
        if (from > to) throw new ConnectionError(PROTOCOL_ERROR, 'HEADERS padding');
        this.#onBlockPart(id, payload.subarray(from, to), flags, true);
        return;
      }
      case CONTINUATION:
        if (!this.#block || id !== this.#blockId)
          throw new ConnectionError(PROTOCOL_ERROR, 'unexpected CONTINUATION');
        this.#onBlockPart(id, payload, flags, false);
        return;
      case RST_STREAM: {
        if (payload.length !== 4) throw new ConnectionError(FRAME_SIZE_ERROR, 'RST_STREAM size');
        const call = this.#calls.get(id);
        if (call) this.#end(call, noStatus(call, payload.readUInt32BE(0)));
        return;
      }
      case SETTINGS:
        this.#onSettings(flags, id, payload);
        return;
      case PUSH_PROMISE:
        throw new ConnectionError(PROTOCOL_ERROR, 'PUSH_PROMISE with push disabled');
      case PING:
        if (payload.length !== 8) throw new ConnectionError(FRAME_SIZE_ERROR, 'PING size');
        if (!(flags & ACK)) {
          const pong = Buffer.allocUnsafe(17);
          frameHeader(pong, 0, 8, PING, ACK, 0);
          payload.copy(pong, 9);
          this.#socket.write(pong);
        }
        return;
      case GOAWAY:
        this.#onGoaway(payload);
        return;
      case WINDOW_UPDATE:
        this.#onWindowUpdate(id, payload);
        return;
      default:
        // PRIORITY and unknown frame types are ignored.
        return;
    }
  }

  #onDataFrame(flags: number, id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(PROTOCOL_ERROR, 'DATA on stream 0');
    // Flow control counts the whole payload, padding included.
    this.#consumed(payload.length);
    let data = payload;
    if (flags & PADDED) {
      const pad = payload[0] ?? 0;
      if (pad >= payload.length) throw new ConnectionError(PROTOCOL_ERROR, 'DATA padding');
      data = payload.subarray(1, payload.length - pad);
    }
    const call = this.#calls.get(id);
    if (!call) return;
    if (data.length > 0) {
      call.received += data.length;
      const max = this.#options.maxReceive_bytes;
      if (call.received > max + 5) {
        this.#reset(call, CANCEL);
        this.#end(
          call,
          failure(RESOURCE_EXHAUSTED, `Received message larger than max (${call.received - 5} vs. ${max})`),
        );
        return;
      }
      call.chunks.push(Buffer.from(data));
    }
    if (flags & END_STREAM) this.#complete(call);
    else if (payload.length > 0) {
      call.unacked += payload.length;
      if (call.unacked >= this.#options.window_bytes / 2) {
        this.#socket.write(wordFrame(WINDOW_UPDATE, 0, id, [call.unacked]));
        call.unacked = 0;
      }
    }
  }

  /** Connection-level receive accounting: the window is reopened once half of it was used. */
  #consumed(n: number): void {
    this.#unacked += n;
    if (this.#unacked >= this.#options.window_bytes / 2) {
      this.#socket.write(wordFrame(WINDOW_UPDATE, 0, 0, [this.#unacked]));
      this.#unacked = 0;
    }
  }

  #onBlockPart(id: number, part: Buffer, flags: number, first: boolean): void {
    if (first) {
      this.#block = [];
      this.#blockId = id;
      this.#blockEnd = (flags & END_STREAM) !== 0;
      this.#blockBytes = 0;
    }
    this.#blockBytes += part.length;
    if (this.#blockBytes > MAX_HEADER_BLOCK_BYTES)
      throw new ConnectionError(PROTOCOL_ERROR, 'header block too large');
    if (!(flags & END_HEADERS)) {
      // The rest of the block comes in a later read: keep a copy of this part.
      this.#block!.push(Buffer.from(part));
      return;
    }
    this.#block!.push(part);
    const parts = this.#block!;
    this.#block = null;
    const block = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    let pairs: string[];
    try {
      // Decoded even for a call that is gone: the dynamic table must follow every block.
      pairs = this.#decoder.decode(block);
    } catch (err) {
      if (err instanceof HpackError) throw new ConnectionError(COMPRESSION_ERROR, err.message);
      throw err;
    }
    const call = this.#calls.get(id);
    if (!call) return;
    const headers = headerObject(pairs);
    // Informational (1xx) heads are skipped; gRPC servers don't send them.
    const status = headers[':status'];
    if (call.headers === null && typeof status === 'string' && status.startsWith('1') && !this.#blockEnd)
      return;
    if (call.headers === null) call.headers = headers;
    else call.trailers = headers;
    if (this.#blockEnd) this.#complete(call);
  }

  #onSettings(flags: number, id: number, payload: Buffer): void {
    if (id !== 0) throw new ConnectionError(PROTOCOL_ERROR, 'SETTINGS on a stream');
    if (flags & ACK) return;
    if (payload.length % 6 !== 0) throw new ConnectionError(FRAME_SIZE_ERROR, 'SETTINGS size');
    for (let at = 0; at < payload.length; at += 6) {
      const key = payload.readUInt16BE(at);
      const value = payload.readUInt32BE(at + 2);
      if (key === SETTINGS_INITIAL_WINDOW_SIZE) {
        if (value > MAX_WINDOW) throw new ConnectionError(FLOW_CONTROL_ERROR, 'INITIAL_WINDOW_SIZE');
        const delta = value - this.#initialWindow;
        this.#initialWindow = value;
        for (const call of this.#calls.values()) call.sendWindow += delta;
      } else if (key === SETTINGS_MAX_FRAME_SIZE) {
        if (value < 16_384 || value > 16_777_215)
          throw new ConnectionError(PROTOCOL_ERROR, 'MAX_FRAME_SIZE out of range');
        this.#maxFrame = value;
      } else if (key === SETTINGS_MAX_CONCURRENT_STREAMS) this.#maxStreams = value;
      // SETTINGS_HEADER_TABLE_SIZE bounds the peer's decoder table, which our encoder never uses.
      else if (key === SETTINGS_HEADER_TABLE_SIZE) continue;
    }
    this.#socket.write(wordFrame(SETTINGS, ACK, 0, []));
    this.#flush();
    this.#dequeue();
  }

  #onGoaway(payload: Buffer): void {
    if (payload.length < 8) throw new ConnectionError(FRAME_SIZE_ERROR, 'GOAWAY size');
    const last = payload.readUInt32BE(0) & MAX_WINDOW;
    this.dead = true;
    // Streams the server never processed fail; the channel retries nothing, as node:http2's client.
    for (const call of [...this.#calls.values()])
      if (call.id > last) this.#end(call, noStatus(call, REFUSED_STREAM));
    for (const start of this.#queued.splice(0)) start();
    if (this.#calls.size === 0) this.#shutdown();
  }

  #onWindowUpdate(id: number, payload: Buffer): void {
    if (payload.length !== 4) throw new ConnectionError(FRAME_SIZE_ERROR, 'WINDOW_UPDATE size');
    const increment = payload.readUInt32BE(0) & MAX_WINDOW;
    if (id === 0) {
      if (increment === 0) throw new ConnectionError(PROTOCOL_ERROR, 'WINDOW_UPDATE of 0');
      this.#sendWindow += increment;
      if (this.#sendWindow > MAX_WINDOW) throw new ConnectionError(FLOW_CONTROL_ERROR, 'window overflow');
    } else {
      const call = this.#calls.get(id);
      if (!call) return;
      if (increment === 0 || call.sendWindow + increment > MAX_WINDOW) {
        this.#reset(call, increment === 0 ? PROTOCOL_ERROR : FLOW_CONTROL_ERROR);
        this.#end(call, noStatus(call, increment === 0 ? PROTOCOL_ERROR : FLOW_CONTROL_ERROR));
        return;
      }
      call.sendWindow += increment;
    }
    this.#flush();
  }

  /** The response ended (END_STREAM): the outcome from its status, as the node:http2 path reads it. */
  #complete(call: Call): void {
    // A server that answers before reading the whole request: the rest is not sent.
    if (call.message) this.#reset(call, CANCEL);
    const status = call.trailers ?? call.headers;
    const code = Number(status?.['grpc-status']);
    if (!Number.isInteger(code)) {
      this.#end(call, noStatus(call, NO_ERROR));
      return;
    }
    const chunks = call.chunks;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const reply = body.length >= 5 ? body.subarray(5, 5 + body.readUInt32BE(1)) : null;
    this.#end(call, {
      code,
      details: decodeMessage(status?.['grpc-message']),
      headers: call.trailers ? (call.headers as IncomingHttpHeaders) : null,
      trailers: (status ?? {}) as IncomingHttpHeaders,
      reply,
    });
  }

  #onDeadline(call: Call): void {
    call.timer = null;
    if (this.#calls.get(call.id) !== call) return;
    this.#reset(call, CANCEL);
    this.#end(call, failure(DEADLINE_EXCEEDED, 'Deadline exceeded'));
  }

  #reset(call: Call, code: number): void {
    if (!this.#socket.destroyed) this.#socket.write(wordFrame(RST_STREAM, 0, call.id, [code]));
  }

  /** Removes a call and resolves it; a closing connection ends after its last call. */
  #end(call: Call, outcome: UnaryOutcome): void {
    if (this.#calls.get(call.id) !== call) return;
    this.#calls.delete(call.id);
    this.#blocked.delete(call);
    call.message = null;
    if (call.timer) clearTimeout(call.timer);
    // The shared timer keeps running; it finds no call when it fires.
    if (this.#timerCall === call) this.#timerCall = null;
    call.resolve(outcome);
    if (this.dead && this.#calls.size === 0 && this.#queued.length === 0) this.#shutdown();
    else this.#dequeue();
  }

  #dequeue(): void {
    while (this.#queued.length > 0 && this.#calls.size < this.#maxStreams) this.#queued.shift()!();
  }

  #connectionError(err: unknown): void {
    const code = err instanceof ConnectionError ? err.h2code : PROTOCOL_ERROR;
    if (!this.#socket.destroyed)
      // Last stream id 0: we accept no streams from the server.
      this.#socket.write(wordFrame(GOAWAY, 0, 0, [0, code]));
    this.#socket.destroy();
    this.#onClose();
  }

  #shutdown(): void {
    if (this.#socket.destroyed) return;
    this.#socket.end(wordFrame(GOAWAY, 0, 0, [0, NO_ERROR]));
    this.#socket.destroySoon();
  }

  /** The socket is gone: every open call fails as node:http2 fails a stream of a destroyed session. */
  #onClose(): void {
    this.dead = true;
    this.#pending = null;
    if (this.#timer) clearTimeout(this.#timer);
    for (const call of [...this.#calls.values()]) this.#end(call, noStatus(call, CANCEL));
    for (const start of this.#queued.splice(0)) start();
  }
}
