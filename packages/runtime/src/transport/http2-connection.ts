/**
 * One plaintext HTTP/2 connection (h2c, prior knowledge) carrying unary gRPC calls, written for the
 * measured hot call as http1-connection.ts is for HTTP/1.1. A CPU profile of the Node runtime at
 * concurrency 1 put node:http2's per-stream machinery (Duplex streams, header object conversion,
 * events, nextTick) at most of the client's CPU per MNIST call; here a call is a plain object in a map,
 * its request is one write of HEADERS and DATA, and the response is read by the frame decoder of
 * packages/runtime/src/wire/http2-frames.ts. This file keeps the socket, the streams, flow control and deadlines.
 * It also carries k6/net/grpc's Stream (stream()): grpc-js's new-stream set-up was most of what the client
 * added to a streamed request's first response at c1 (bench/genai/RESULTS.md, "the cost of a new stream").
 */
import type { IncomingHttpHeaders } from 'node:http2';
import { connect, type Socket } from 'node:net';
import * as grpcjs from '@grpc/grpc-js';
import {
  firstMessage,
  frameMessage,
  PREFIX_BYTES,
  prefix,
  splitMessages,
  writePrefix,
} from '../wire/grpc-frame.ts';
import {
  ACK,
  CANCEL,
  CONTINUATION,
  DATA,
  DEFAULT_MAX_FRAME,
  DEFAULT_WINDOW,
  END_HEADERS,
  END_STREAM,
  FLOW_CONTROL_ERROR,
  GOAWAY,
  HEADERS,
  Http2FrameDecoder,
  type Http2FrameHandler,
  Http2ProtocolError,
  MAX_WINDOW,
  NO_ERROR,
  PREFACE,
  PROTOCOL_ERROR,
  pingFrame,
  REFUSED_STREAM,
  RST_STREAM,
  SETTINGS,
  SETTINGS_ENABLE_PUSH,
  SETTINGS_INITIAL_WINDOW_SIZE,
  SETTINGS_MAX_CONCURRENT_STREAMS,
  SETTINGS_MAX_FRAME_SIZE,
  settingsFrame,
  WINDOW_UPDATE,
  wordFrame,
  writeFrameHeader,
} from '../wire/http2-frames.ts';
import { failure, type UnaryOutcome } from './unary-outcome.ts';
import { sharedRead } from './socket-read.ts';

/** k6 dials with a 30 s timeout. */
const DIAL_TIMEOUT_MS = 30_000;
/** Requests up to this size are copied into one buffer with their frame headers: one write() each. */
const COPY_BODY_BYTES = 64 * 1024;
const { UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, CANCELLED } = grpcjs.status;

/** Response headers as node:http2 hands them out: lower-case names, repeated ones joined with ", ". */
type HeaderObject = Record<string, string | string[]>;

/** Options of a connection. */
export interface Http2ConnectionOptions {
  /** Our receive window per stream and per connection, bytes. */
  window_bytes: number;
  /** Largest response message accepted. */
  maxReceive_bytes: number;
}

/** What a streaming call hears: each whole message as it arrives, then how the stream ended (reply null). */
export interface StreamListener {
  message(bytes: Buffer): void;
  end(outcome: UnaryOutcome): void;
}

/** A streaming call: k6's Stream writes, half-closes and cancels through it. */
export interface StreamCall {
  /** Sends one message (encoded, unprefixed). */
  write(message: Buffer): void;
  /** Half-closes: no more messages. */
  end(): void;
  /** Resets the stream; the listener hears no more. */
  cancel(): void;
}

/** A streaming call's own state: what is left to send, and the bytes of a message not yet whole. */
interface StreamState {
  listener: StreamListener;
  /** Its header block until written (with the first message, or at the end of the turn that opened it). */
  block: Buffer | null;
  /** Prefixed messages not yet sent, and how much of the first was. */
  outbox: Buffer[];
  outboxSent: number;
  halfClose: boolean;
  /** END_STREAM written. */
  closedLocal: boolean;
  /** Received bytes after the last whole message. */
  partial: Buffer | null;
}

/** One call (unary, or a stream when `stream` is set): its stream, what arrived, and what is left to send. */
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
  stream: StreamState | null;
}

/** The grpc-message text (percent-encoded on the wire). */
function decodeMessage(raw: unknown): string {
  if (typeof raw !== 'string') return '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** A call's state before anything was sent or received. */
function newCall(
  id: number,
  resolve: (o: UnaryOutcome) => void,
  sendWindow: number,
  stream: StreamState | null,
): Call {
  return {
    id,
    resolve,
    timer: null,
    headers: null,
    trailers: null,
    chunks: [],
    received: 0,
    unacked: 0,
    sendWindow,
    prefix: null,
    message: null,
    sent: 0,
    stream,
  };
}

/** A call that ended without a status, in the words of the node:http2 client. */
function noStatus(call: Call, http2Code: number): UnaryOutcome {
  return failure(
    UNAVAILABLE,
    `stream closed before a status (HTTP/2 code ${http2Code}${call.headers ? '' : ', no response'})`,
  );
}

/**
 * Runs a stream listener (script code) from the frame decoder: what it throws is thrown again on its own
 * turn, as from an event handler, so that it cannot break the connection's frame reading.
 */
function deliver(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    process.nextTick(() => {
      throw err;
    });
  }
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

/** One socket to one gRPC server; `call` sends a unary call on a new stream. */
export class Http2Connection {
  readonly #socket: Socket;
  readonly #options: Http2ConnectionOptions;
  readonly #decoder: Http2FrameDecoder;
  readonly #calls = new Map<number, Call>();
  /** Calls with request bytes waiting for send window, in the order they were made. */
  readonly #blocked = new Set<Call>();
  /** Calls waiting for the peer's MAX_CONCURRENT_STREAMS to allow another stream. */
  readonly #queued: (() => void)[] = [];
  #nextId = 1;
  /** Peer settings. */
  #maxFrame = DEFAULT_MAX_FRAME;
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

  /** The bytes written to and read from the socket so far (frames, headers, preface: k6's data_sent/received). */
  wireBytes(): { written: number; read: number } {
    return { written: this.#socket.bytesWritten, read: this.#socket.bytesRead };
  }

  constructor(host: string, port: number, options: Http2ConnectionOptions) {
    this.#options = options;
    this.#decoder = new Http2FrameDecoder(this.#frameHandler());
    const socket = connect({
      host,
      port,
      noDelay: true,
      keepAlive: true,
      onread: sharedRead((chunk) => this.#onRead(chunk)),
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
    const settings = settingsFrame([
      [SETTINGS_ENABLE_PUSH, 0],
      [SETTINGS_INITIAL_WINDOW_SIZE, window],
    ]);
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

  /**
   * Opens a streaming call: `block` is its HPACK header block. Its HEADERS go out with the first message
   * (or half-close), else at the end of this turn; writes made before the stream may start (the peer's
   * MAX_CONCURRENT_STREAMS) wait with it. The listener hears the messages, then the outcome, once.
   */
  stream(block: Buffer, timeout_ms: number, listener: StreamListener): StreamCall {
    const call = newCall(0, (o) => listener.end(o), 0, {
      listener,
      block,
      outbox: [],
      outboxSent: 0,
      halfClose: false,
      closedLocal: false,
      partial: null,
    });
    const st = call.stream!;
    let cancelled = false;
    const start = (): void => {
      if (cancelled) return;
      if (this.dead && !this.#closing) {
        call.resolve(failure(UNAVAILABLE, 'connection closed'));
        return;
      }
      call.id = this.#takeId();
      call.sendWindow = this.#initialWindow;
      this.#calls.set(call.id, call);
      if (timeout_ms > 0 && Number.isFinite(timeout_ms)) this.#arm(call, timeout_ms);
      // Opened and written to in one turn (k6 scripts do): HEADERS and the first DATA in one write.
      process.nextTick(() => this.#sendStream(call));
    };
    if (this.dead) queueMicrotask(() => call.resolve(failure(UNAVAILABLE, 'connection closed')));
    else if (this.#calls.size >= this.#maxStreams) this.#queued.push(start);
    else start();
    return {
      write: (message) => {
        if (st.halfClose || cancelled) return;
        st.outbox.push(frameMessage(message));
        if (call.id !== 0) this.#sendStream(call);
      },
      end: () => {
        if (st.halfClose || cancelled) return;
        st.halfClose = true;
        if (call.id !== 0) this.#sendStream(call);
      },
      cancel: () => {
        if (cancelled) return;
        cancelled = true;
        if (call.id === 0 || this.#calls.get(call.id) !== call) return;
        // Never announced: nothing to reset on the wire.
        if (st.block === null) this.#reset(call, CANCEL);
        this.#end(call, failure(CANCELLED, 'Cancelled on client'));
      },
    };
  }

  /**
   * Writes what a streaming call has to send, as far as the send windows allow, in one socket write: its
   * HEADERS first if not yet sent, then its messages, then END_STREAM once half-closed and drained.
   */
  #sendStream(call: Call): void {
    const st = call.stream!;
    if (this.#calls.get(call.id) !== call || st.closedLocal) return;
    const parts: Buffer[] = [];
    if (st.block) {
      if (st.block.length > this.#maxFrame) {
        // A header block larger than a frame (large metadata): HEADERS and CONTINUATION frames.
        this.#socket.cork();
        this.#writeHeaders(call.id, st.block);
        st.block = null;
        this.#sendStream(call);
        this.#socket.uncork();
        return;
      }
      const head = Buffer.allocUnsafe(9);
      writeFrameHeader(head, 0, st.block.length, HEADERS, END_HEADERS, call.id);
      parts.push(head, st.block);
      st.block = null;
    }
    while (st.outbox.length > 0) {
      const first = st.outbox[0]!;
      const left = first.length - st.outboxSent;
      const n = Math.min(this.#maxFrame, left, this.#sendWindow, call.sendWindow);
      if (n <= 0) break;
      const last = n === left && st.outbox.length === 1 && st.halfClose;
      const head = Buffer.allocUnsafe(9);
      writeFrameHeader(head, 0, n, DATA, last ? END_STREAM : 0, call.id);
      parts.push(head, first.subarray(st.outboxSent, st.outboxSent + n));
      this.#sendWindow -= n;
      call.sendWindow -= n;
      st.outboxSent += n;
      if (st.outboxSent === first.length) {
        st.outbox.shift();
        st.outboxSent = 0;
      }
      if (last) st.closedLocal = true;
    }
    if (st.outbox.length > 0) this.#blocked.add(call);
    else {
      this.#blocked.delete(call);
      if (st.halfClose && !st.closedLocal) {
        const head = Buffer.allocUnsafe(9);
        writeFrameHeader(head, 0, 0, DATA, END_STREAM, call.id);
        parts.push(head);
        st.closedLocal = true;
      }
    }
    if (parts.length === 1) this.#socket.write(parts[0]!);
    else if (parts.length > 1) this.#socket.write(Buffer.concat(parts));
  }

  /** A streaming call's DATA: each message that became whole goes to its listener as it completes. */
  #streamData(call: Call, data: Buffer): void {
    const st = call.stream!;
    const bytes = st.partial ? Buffer.concat([st.partial, data]) : Buffer.from(data);
    const { messages, rest } = splitMessages(bytes);
    st.partial = rest.length > 0 ? rest : null;
    const max = this.#options.maxReceive_bytes;
    const announced = st.partial && st.partial.length >= PREFIX_BYTES ? st.partial.readUInt32BE(1) : 0;
    for (const m of messages) {
      if (this.#calls.get(call.id) !== call) return;
      if (m.bytes.length > max || announced > max) {
        this.#tooLarge(call, Math.max(m.bytes.length, announced), max);
        return;
      }
      deliver(() => st.listener.message(m.bytes));
    }
    if (announced > max) this.#tooLarge(call, announced, max);
  }

  #tooLarge(call: Call, length: number, max: number): void {
    this.#reset(call, CANCEL);
    this.#end(call, failure(RESOURCE_EXHAUSTED, `Received message larger than max (${length} vs. ${max})`));
  }

  /** The next client stream id (odd, rising). */
  #takeId(): number {
    const id = this.#nextId;
    this.#nextId += 2;
    // Stream ids are 31 bits: the channel opens a new connection after the last one.
    if (this.#nextId > MAX_WINDOW) this.dead = true;
    return id;
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
    const id = this.#takeId();
    const call = newCall(id, resolve, this.#initialWindow, null);
    this.#calls.set(id, call);
    if (timeout_ms > 0 && Number.isFinite(timeout_ms)) this.#arm(call, timeout_ms);
    const bodyLength = PREFIX_BYTES + message.length;
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
      writeFrameHeader(buf, 0, block.length, HEADERS, END_HEADERS, id);
      block.copy(buf, 9);
      let at = 9 + block.length;
      writeFrameHeader(buf, at, bodyLength, DATA, END_STREAM, id);
      at += 9;
      writePrefix(buf, at, message.length);
      message.copy(buf, at + PREFIX_BYTES);
      this.#sendWindow -= bodyLength;
      call.sendWindow -= bodyLength;
      this.#socket.write(buf);
      return;
    }
    this.#socket.cork();
    this.#writeHeaders(id, block);
    call.prefix = prefix(message.length);
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
      writeFrameHeader(head, 0, n, type, last ? END_HEADERS : 0, id);
      this.#socket.write(head);
      if (n > 0) this.#socket.write(block.subarray(off, off + n));
      off += n;
      type = CONTINUATION;
    } while (off < block.length);
  }

  /** Sends as much of a call's body as the send windows allow; the rest waits for WINDOW_UPDATE. */
  #sendBody(call: Call): void {
    const total = PREFIX_BYTES + call.message!.length;
    while (call.sent < total) {
      const n = Math.min(this.#maxFrame, total - call.sent, this.#sendWindow, call.sendWindow);
      if (n <= 0) {
        this.#blocked.add(call);
        return;
      }
      const from = call.sent;
      const to = from + n;
      const head = Buffer.allocUnsafe(9);
      writeFrameHeader(head, 0, n, DATA, to === total ? END_STREAM : 0, call.id);
      this.#socket.write(head);
      if (from < PREFIX_BYTES) this.#socket.write(call.prefix!.subarray(from, Math.min(PREFIX_BYTES, to)));
      if (to > PREFIX_BYTES)
        this.#socket.write(call.message!.subarray(Math.max(0, from - PREFIX_BYTES), to - PREFIX_BYTES));
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
      if (call.stream) this.#sendStream(call);
      else this.#sendBody(call);
      if (this.#sendWindow <= 0) break;
    }
    this.#socket.uncork();
  }

  /** Reads the frames in the bytes just read; `chunk` is valid only until this returns (socket-read.ts). */
  #onRead(chunk: Buffer): void {
    try {
      this.#decoder.push(chunk);
    } catch (err) {
      this.#connectionError(err);
    }
  }

  /** What the frame decoder reports, applied to the calls of this connection. */
  #frameHandler(): Http2FrameHandler {
    return {
      data: (id, data, flowBytes, endStream) => this.#onDataFrame(id, data, flowBytes, endStream),
      headers: (id, fields, endStream) => this.#onHeaders(id, fields, endStream),
      rstStream: (id, code) => {
        const call = this.#calls.get(id);
        if (call) this.#end(call, noStatus(call, code));
      },
      settings: (ack, values) => this.#onSettings(ack, values),
      ping: (ack, payload) => {
        if (!ack) this.#socket.write(pingFrame(payload, true));
      },
      goaway: (lastStreamId) => this.#onGoaway(lastStreamId),
      windowUpdate: (id, increment) => this.#onWindowUpdate(id, increment),
    };
  }

  #onDataFrame(id: number, data: Buffer, flowBytes: number, endStream: boolean): void {
    // Flow control counts the whole payload, padding included.
    this.#consumed(flowBytes);
    const call = this.#calls.get(id);
    if (!call) return;
    if (call.stream) {
      if (data.length > 0) this.#streamData(call, data);
      if (this.#calls.get(id) !== call) return;
    } else if (data.length > 0) {
      call.received += data.length;
      const max = this.#options.maxReceive_bytes;
      if (call.received > max + PREFIX_BYTES) {
        this.#reset(call, CANCEL);
        this.#end(
          call,
          failure(
            RESOURCE_EXHAUSTED,
            `Received message larger than max (${call.received - PREFIX_BYTES} vs. ${max})`,
          ),
        );
        return;
      }
      call.chunks.push(Buffer.from(data));
    }
    if (endStream) this.#complete(call);
    else if (flowBytes > 0) {
      call.unacked += flowBytes;
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

  #onHeaders(id: number, fields: string[], endStream: boolean): void {
    const call = this.#calls.get(id);
    if (!call) return;
    const headers = headerObject(fields);
    // Informational (1xx) heads are skipped; gRPC servers don't send them.
    const status = headers[':status'];
    if (call.headers === null && typeof status === 'string' && status.startsWith('1') && !endStream) return;
    if (call.headers === null) call.headers = headers;
    else call.trailers = headers;
    if (endStream) this.#complete(call);
  }

  #onSettings(ack: boolean, values: [number, number][]): void {
    if (ack) return;
    for (const [key, value] of values) {
      if (key === SETTINGS_INITIAL_WINDOW_SIZE) {
        if (value > MAX_WINDOW) throw new Http2ProtocolError(FLOW_CONTROL_ERROR, 'INITIAL_WINDOW_SIZE');
        const delta = value - this.#initialWindow;
        this.#initialWindow = value;
        for (const call of this.#calls.values()) call.sendWindow += delta;
      } else if (key === SETTINGS_MAX_FRAME_SIZE) {
        if (value < 16_384 || value > 16_777_215)
          throw new Http2ProtocolError(PROTOCOL_ERROR, 'MAX_FRAME_SIZE out of range');
        this.#maxFrame = value;
      } else if (key === SETTINGS_MAX_CONCURRENT_STREAMS) this.#maxStreams = value;
      // SETTINGS_HEADER_TABLE_SIZE bounds the peer's decoder table, which our encoder never uses.
    }
    this.#socket.write(wordFrame(SETTINGS, ACK, 0, []));
    this.#flush();
    this.#dequeue();
  }

  #onGoaway(last: number): void {
    this.dead = true;
    // Streams the server never processed fail; the channel retries nothing, as node:http2's client.
    for (const call of [...this.#calls.values()])
      if (call.id > last) this.#end(call, noStatus(call, REFUSED_STREAM));
    for (const start of this.#queued.splice(0)) start();
    if (this.#calls.size === 0) this.#shutdown();
  }

  #onWindowUpdate(id: number, increment: number): void {
    if (id === 0) {
      if (increment === 0) throw new Http2ProtocolError(PROTOCOL_ERROR, 'WINDOW_UPDATE of 0');
      this.#sendWindow += increment;
      if (this.#sendWindow > MAX_WINDOW) throw new Http2ProtocolError(FLOW_CONTROL_ERROR, 'window overflow');
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
    if (call.message || (call.stream && !call.stream.closedLocal)) this.#reset(call, CANCEL);
    const status = call.trailers ?? call.headers;
    const code = Number(status?.['grpc-status']);
    if (!Number.isInteger(code)) {
      this.#end(call, noStatus(call, NO_ERROR));
      return;
    }
    const chunks = call.chunks;
    const body = call.stream ? null : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const reply = body && firstMessage(body);
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
    if (call.stream) {
      call.stream.outbox = [];
      deliver(() => call.resolve(outcome));
    } else call.resolve(outcome);
    if (this.dead && this.#calls.size === 0 && this.#queued.length === 0) this.#shutdown();
    else this.#dequeue();
  }

  #dequeue(): void {
    while (this.#queued.length > 0 && this.#calls.size < this.#maxStreams) this.#queued.shift()!();
  }

  #connectionError(err: unknown): void {
    const code = err instanceof Http2ProtocolError ? err.code : PROTOCOL_ERROR;
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
    this.#decoder.halt();
    if (this.#timer) clearTimeout(this.#timer);
    for (const call of [...this.#calls.values()]) this.#end(call, noStatus(call, CANCEL));
    for (const start of this.#queued.splice(0)) start();
  }
}
