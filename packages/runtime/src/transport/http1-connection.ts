/**
 * One plain-HTTP/1.1 connection of a VU, written for the measured hot call: a request is one write of
 * its head and body, and the response is framed by packages/runtime/src/wire/http1-response.ts. A CPU profile of the Node
 * runtime at concurrency 1 put undici's dispatch, its llhttp WASM parser and their promise plumbing at
 * about a third of the client's CPU per request; this path spends 20-30% less CPU per request
 * (bench/fidelity/HISTORY.md). TLS stays on undici (http-transport.ts).
 */
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  headerPairs,
  Http1ResponseParser,
  type Http1ResponseHandler,
  type ResponseHead,
} from '../wire/http1-response.ts';
import { k6Timings, type Timings } from '../modules/http-timings.ts';
import { sharedRead } from './socket-read.ts';
import type { WireRequest, WireResult } from './http-transport.ts';

/** k6 dials with a 30 s timeout. */
const DIAL_TIMEOUT_MS = 30_000;
/** Bodies up to this size are copied behind the head so a request is one write() (one syscall). */
const COPY_BODY_BYTES = 64 * 1024;

/** A socket error in the style Node raises, so http-errors.ts maps it as it maps undici's. */
function socketError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The request in flight and what is known of its response so far. */
interface Exchange {
  t0: number;
  gotConn: number;
  sentEnd: number;
  firstByte: number;
  newConnection: boolean;
  keepBody: boolean;
  baseWritten: number;
  baseRead: number;
  /** The final head, once read. */
  head: ResponseHead | null;
  chunks: Buffer[];
  length_bytes: number;
  closeAfter: boolean;
  resolve: (r: WireResult) => void;
}

/** A serialised request head and the request it was made for; keyed by the request's headers object. */
interface HeadMemo {
  method: string;
  url: URL;
  reuse: boolean;
  /** The body's length, -1 for none. */
  length: number;
  head: Buffer;
}

/**
 * Heads already serialised, per headers object: a params object's headers are shared by all its
 * requests (http.ts copies them before any change), so a prepared request's head is built once.
 */
const heads = new WeakMap<object, HeadMemo>();

/** The request line and headers, as latin1 bytes. */
function serializeHead(req: WireRequest, body: Buffer | null): Buffer {
  const path = req.url.pathname + req.url.search;
  let text = `${req.method} ${path} HTTP/1.1\r\nhost: ${req.url.host}\r\n`;
  text += req.reuseConnection ? 'connection: keep-alive\r\n' : 'connection: close\r\n';
  let hasLength = false;
  for (const name in req.headers) {
    const lower = name.toLowerCase();
    if (lower === 'host' || lower === 'connection') continue;
    if (lower === 'content-length') hasLength = true;
    text += `${name}: ${req.headers[name]}\r\n`;
  }
  const needsLength =
    body !== null || req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH';
  if (!hasLength && needsLength) text += `content-length: ${body?.length ?? 0}\r\n`;
  return Buffer.from(`${text}\r\n`, 'latin1');
}

/** One socket to one origin; `send` one request at a time (no pipelining, as k6's VUs). */
export class Http1Connection {
  readonly #socket: Socket;
  readonly #connectStart: number;
  #connectEnd = -1;
  #connected = false;
  /** Set once the socket can't carry another request (closed, errored, or told to close). */
  dead = false;
  busy = false;
  #ex: Exchange | null = null;
  readonly #parser = new Http1ResponseParser(this.#responseHandler());
  #timer: NodeJS.Timeout | null = null;
  /** The request waiting for the dial to finish. */
  #queued: Buffer[] | null = null;
  #timerMs = -1;
  #remoteIp = '';
  #remotePort = 0;

  constructor(readonly url: URL) {
    this.#connectStart = performance.now();
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    this.#socket = connect({
      host,
      port: Number(url.port || 80),
      noDelay: true,
      keepAlive: true,
      onread: sharedRead((chunk) => this.#onData(chunk)),
    });
    this.#socket.setTimeout(DIAL_TIMEOUT_MS, () => {
      if (!this.#connected) this.#socket.destroy(socketError('dial: i/o timeout', 'ETIMEDOUT'));
    });
    this.#socket.once('connect', () => {
      this.#connected = true;
      this.#connectEnd = performance.now();
      this.#remoteIp = this.#socket.remoteAddress ?? '';
      this.#remotePort = this.#socket.remotePort ?? 0;
      this.#socket.setTimeout(0);
      if (this.#ex) this.#write(this.#ex, this.#queued!);
      this.#queued = null;
    });
    this.#socket.on('error', (err) => this.#fail(err));
    this.#socket.on('close', () => this.#onClose());
  }

  /** Sends one request; resolves with the response or the error (never rejects). */
  send(req: WireRequest, t0: number): Promise<WireResult> {
    this.busy = true;
    return new Promise<WireResult>((resolve) => {
      const ex: Exchange = {
        t0,
        gotConn: -1,
        sentEnd: -1,
        firstByte: -1,
        newConnection: !this.#connected,
        keepBody: req.responseType !== 'none',
        baseWritten: 0,
        baseRead: 0,
        head: null,
        chunks: [],
        length_bytes: 0,
        closeAfter: !req.reuseConnection,
        resolve,
      };
      this.#ex = ex;
      this.#parser.expect(req.method === 'HEAD');
      if (req.timeout_ms > 0 && Number.isFinite(req.timeout_ms)) {
        // One timer per connection, re-armed per request: cheaper than a new timer each time.
        if (this.#timer && this.#timerMs === req.timeout_ms) this.#timer.refresh();
        else {
          if (this.#timer) clearTimeout(this.#timer);
          this.#timer = setTimeout(() => this.#onTimeout(), req.timeout_ms);
          this.#timerMs = req.timeout_ms;
        }
      }
      const data = this.#serialize(req);
      if (this.#connected) this.#write(ex, data);
      else this.#queued = data;
    });
  }

  /** Closes the socket. */
  close(): void {
    this.dead = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#socket.destroy();
  }

  /** The request as bytes: its head, and the body (behind the head in one buffer when small). */
  #serialize(req: WireRequest): Buffer[] {
    const body =
      req.body === null
        ? null
        : typeof req.body === 'string'
          ? Buffer.from(req.body)
          : Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength);
    const length = body === null ? -1 : body.length;
    const memo = heads.get(req.headers);
    let head: Buffer;
    if (
      memo !== undefined &&
      memo.url === req.url &&
      memo.method === req.method &&
      memo.reuse === req.reuseConnection &&
      memo.length === length
    ) {
      head = memo.head;
    } else {
      head = serializeHead(req, body);
      heads.set(req.headers, { method: req.method, url: req.url, reuse: req.reuseConnection, length, head });
    }
    if (!body || body.length === 0) return [head];
    if (body.length <= COPY_BODY_BYTES) return [Buffer.concat([head, body], head.length + body.length)];
    return [head, body];
  }

  #write(ex: Exchange, data: Buffer[]): void {
    const socket = this.#socket;
    ex.gotConn = performance.now();
    ex.baseWritten = socket.bytesWritten;
    ex.baseRead = socket.bytesRead;
    if (data.length === 1) socket.write(data[0]!);
    else {
      socket.cork();
      for (const d of data) socket.write(d);
      socket.uncork();
    }
    // A write the kernel took at once leaves nothing buffered; a large one ends when it drains.
    if (socket.writableLength === 0) ex.sentEnd = performance.now();
    else
      socket.once('drain', () => {
        if (this.#ex === ex && ex.sentEnd < 0) ex.sentEnd = performance.now();
      });
  }

  /** Frames the bytes just read; `chunk` is valid only until this returns (socket-read.ts). */
  #onData(chunk: Buffer): void {
    const ex = this.#ex;
    if (!ex) {
      // Bytes nobody asked for: the connection's framing is lost.
      this.dead = true;
      this.#socket.destroy();
      return;
    }
    if (ex.firstByte < 0) ex.firstByte = performance.now();
    try {
      this.#parser.push(chunk);
    } catch (err) {
      this.#fail(err);
    }
  }

  /** What the parser reports, applied to the request in flight. */
  #responseHandler(): Http1ResponseHandler {
    return {
      head: (head) => this.#onHead(head),
      body: (buf, from, to) => this.#onBody(buf, from, to),
      complete: (extraBytes) => this.#onComplete(extraBytes),
    };
  }

  #onHead(head: ResponseHead): void {
    const ex = this.#ex!;
    ex.head = head;
    ex.closeAfter ||= head.closeAfter;
  }

  /** Body bytes, valid only during the call: kept (copied) unless the script asked for none. */
  #onBody(buf: Buffer, from: number, to: number): void {
    if (to === from) return;
    const ex = this.#ex!;
    ex.length_bytes += to - from;
    if (ex.keepBody) ex.chunks.push(Buffer.from(buf.subarray(from, to)));
  }

  /** The response is complete: a connection that can't carry the next request is closed. */
  #onComplete(extraBytes: boolean): void {
    const ex = this.#ex!;
    if (extraBytes || ex.closeAfter) {
      this.dead = true;
      this.#socket.destroy();
    }
    this.#finish(ex, null);
  }

  #fail(err: unknown): void {
    this.dead = true;
    this.#socket.destroy();
    const ex = this.#ex;
    if (ex) this.#finish(ex, err);
  }

  #onClose(): void {
    this.dead = true;
    if (this.#timer) clearTimeout(this.#timer);
    const ex = this.#ex;
    if (!ex) return;
    // A body delimited by the end of the connection ends here; anything else was cut short (Go's EOF).
    if (this.#parser.end()) this.#finish(ex, null);
    else this.#finish(ex, socketError('EOF', 'K6_EOF'));
  }

  #onTimeout(): void {
    const ex = this.#ex;
    if (!ex) return;
    this.dead = true;
    this.#finish(ex, Object.assign(new Error('request timeout'), { code: 'K6_REQUEST_TIMEOUT' }));
    this.#socket.destroy();
  }

  #finish(ex: Exchange, error: unknown): void {
    if (this.#ex !== ex) return;
    this.#ex = null;
    this.#parser.reset();
    this.busy = false;
    const end = performance.now();
    const socket = this.#socket;
    const wrote = ex.gotConn >= 0;
    const head = error ? null : ex.head;
    ex.resolve({
      status: head?.status ?? 0,
      statusText: head?.statusText ?? '',
      // The header lines are split only when a script reads them.
      rawHeaders: () => (head ? headerPairs(head.lines) : []),
      setCookie: head?.setCookie ?? false,
      chunks: error ? [] : ex.chunks,
      bodyLength_bytes: error ? 0 : ex.length_bytes,
      timings: this.#timings(ex, end),
      sent_bytes: wrote ? socket.bytesWritten - ex.baseWritten : 0,
      received_bytes: wrote ? socket.bytesRead - ex.baseRead : 0,
      remoteIp: this.#remoteIp,
      remotePort: this.#remotePort,
      tlsVersion: '',
      tlsCipherSuite: '',
      error,
    });
  }

  #timings(ex: Exchange, end: number): Timings {
    return k6Timings({
      t0: ex.t0,
      connectStart: ex.newConnection ? this.#connectStart : -1,
      tcpEnd: -1,
      connectEnd: this.#connectEnd,
      gotConn: ex.gotConn,
      sentEnd: ex.sentEnd,
      firstByte: ex.firstByte,
      end,
    });
  }
}
