/**
 * One plain-HTTP/1.1 connection of a VU, written for the measured hot call: a request is one write of
 * its head and body, and the response is framed by a small parser (Content-Length, chunked,
 * or until close). A CPU profile of the Node runtime at concurrency 1 put undici's dispatch, its
 * llhttp WASM parser and their promise plumbing at about a third of the client's CPU per request; with
 * this path the runtime spends 20-30% less CPU per request (paired runs in the README, and the fidelity
 * benchmark's "(undici)" row). TLS stays on
 * undici (http-transport.ts), and K6_TRITON_HTTP_CLIENT=undici sends plain HTTP there too, so the
 * two can be compared on the same script.
 */
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { k6Timings, type Timings } from './http-timings.ts';
import { sharedRead } from './socket-read.ts';
import type { WireRequest, WireResult } from './http-transport.ts';

/** k6 dials with a 30 s timeout. */
const DIAL_TIMEOUT_MS = 30_000;
/** A head larger than this is not an HTTP response we can frame (Go's default limit is 1 MiB). */
const MAX_HEAD_BYTES = 1 << 20;
/** Bodies up to this size are copied behind the head so a request is one write() (one syscall). */
const COPY_BODY_BYTES = 64 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

/** A socket error in the style Node raises, so http-errors.ts maps it as it maps undici's. */
function socketError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The trimmed value of the header `key` ('\r\nname:', lower case) in a lower-cased head. */
function headerValue(lowerHead: string, key: string): string | undefined {
  const at = lowerHead.indexOf(key);
  if (at < 0) return undefined;
  const from = at + key.length;
  const end = lowerHead.indexOf('\r\n', from);
  return lowerHead.slice(from, end < 0 ? undefined : end).trim();
}

/** Header lines as the raw name, value, name, value... list the transport hands out. */
function headerPairs(lines: string): string[] {
  const out: string[] = [];
  if (lines === '') return out;
  for (const line of lines.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) out.push(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return out;
}

/** How the body of the response in flight is delimited. */
type Framing = 'none' | 'length' | 'chunked' | 'close';

/** The request in flight and what is known of its response so far. */
interface Exchange {
  t0: number;
  gotConn: number;
  sentEnd: number;
  firstByte: number;
  newConnection: boolean;
  keepBody: boolean;
  isHead: boolean;
  baseWritten: number;
  baseRead: number;
  status: number;
  statusText: string;
  /** The header lines of the response head (status line excluded). */
  head: string;
  chunks: Buffer[];
  length_bytes: number;
  framing: Framing;
  /** Body bytes still expected (framing 'length'), or of the current chunk ('chunked'). */
  remaining: number;
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
  #pending: Buffer | null = null;
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
        isHead: req.method === 'HEAD',
        baseWritten: 0,
        baseRead: 0,
        status: 0,
        statusText: '',
        head: '',
        chunks: [],
        length_bytes: 0,
        framing: 'none',
        remaining: 0,
        closeAfter: !req.reuseConnection,
        resolve,
      };
      this.#ex = ex;
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
    const buf = this.#pending ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#pending = null;
    let off = 0;
    while (this.#ex === ex && off < buf.length) {
      if (ex.status === 0) {
        const end = buf.indexOf(HEAD_END, off);
        if (end < 0) {
          if (buf.length - off > MAX_HEAD_BYTES) {
            this.#fail(socketError('malformed HTTP response', 'HPE_HEADER_OVERFLOW'));
            return;
          }
          this.#pending = Buffer.from(buf.subarray(off));
          return;
        }
        const error = this.#parseHead(ex, buf.toString('latin1', off, end));
        if (error) {
          this.#fail(error);
          return;
        }
        off = end + 4;
        if (ex.status === 0) continue; // a 1xx answer: the real head follows
        if (ex.framing === 'none' || (ex.framing === 'length' && ex.remaining === 0)) {
          this.#complete(ex, off < buf.length);
          return;
        }
        continue;
      }
      if (ex.framing === 'length' || ex.framing === 'close') {
        const take = ex.framing === 'close' ? buf.length - off : Math.min(ex.remaining, buf.length - off);
        this.#body(ex, buf, off, take);
        off += take;
        if (ex.framing === 'length') {
          ex.remaining -= take;
          if (ex.remaining === 0) {
            this.#complete(ex, off < buf.length);
            return;
          }
        }
        continue;
      }
      // Chunked: remaining > 0 inside a chunk's data, 0 at a size line, -1 at the CRLF after data.
      if (ex.remaining > 0) {
        const take = Math.min(ex.remaining, buf.length - off);
        this.#body(ex, buf, off, take);
        off += take;
        ex.remaining -= take;
        if (ex.remaining === 0) ex.remaining = -1;
        continue;
      }
      const eol = buf.indexOf(CRLF, off);
      if (eol < 0) {
        this.#pending = Buffer.from(buf.subarray(off));
        return;
      }
      const line = buf.toString('latin1', off, eol);
      off = eol + 2;
      if (ex.remaining === -1) {
        if (line !== '') {
          this.#fail(socketError('malformed chunked encoding', 'HPE_INVALID_CHUNK_SIZE'));
          return;
        }
        ex.remaining = 0;
        continue;
      }
      if (ex.remaining === -2) {
        // Trailers end at an empty line.
        if (line === '') {
          this.#complete(ex, off < buf.length);
          return;
        }
        continue;
      }
      const size = Number.parseInt(line, 16);
      if (!Number.isFinite(size) || size < 0) {
        this.#fail(socketError('malformed chunked encoding', 'HPE_INVALID_CHUNK_SIZE'));
        return;
      }
      ex.remaining = size === 0 ? -2 : size;
    }
  }

  #body(ex: Exchange, buf: Buffer, off: number, n: number): void {
    if (n === 0) return;
    ex.length_bytes += n;
    if (ex.keepBody) ex.chunks.push(Buffer.from(buf.subarray(off, off + n)));
  }

  /** Reads a response head for its status and framing; undefined on success, the error when it is not HTTP/1.x. */
  #parseHead(ex: Exchange, head: string): Error | undefined {
    const lineEnd = head.indexOf('\r\n');
    const statusLine = lineEnd < 0 ? head : head.slice(0, lineEnd);
    const minor = statusLine.charCodeAt(7);
    const status = Number(statusLine.slice(9, 12));
    if (
      !statusLine.startsWith('HTTP/1.') ||
      (minor !== 48 && minor !== 49) ||
      statusLine.charCodeAt(8) !== 32 ||
      !(status >= 100 && status <= 999) ||
      (statusLine.length > 12 && statusLine.charCodeAt(12) !== 32)
    ) {
      return socketError(
        `malformed HTTP response ${JSON.stringify(statusLine.slice(0, 40))}`,
        'HPE_INVALID_CONSTANT',
      );
    }
    if (status < 200 && status !== 101) return undefined; // informational: keep reading
    // Only the three framing headers are read now; the full list is split when a script reads headers.
    const lower = head.toLowerCase();
    const length = headerValue(lower, '\r\ncontent-length:');
    const encoding = headerValue(lower, '\r\ntransfer-encoding:');
    const connection = headerValue(lower, '\r\nconnection:');
    ex.status = status;
    ex.statusText = statusLine.slice(13);
    ex.head = lineEnd < 0 ? '' : head.slice(lineEnd + 2);
    ex.closeAfter ||= connection === 'close' || (minor === 48 && connection !== 'keep-alive');
    if (ex.isHead || status === 204 || status === 304) ex.framing = 'none';
    else if (encoding?.endsWith('chunked')) ex.framing = 'chunked';
    else if (length !== undefined && /^\d+$/.test(length) && Number.isSafeInteger(Number(length))) {
      ex.framing = 'length';
      ex.remaining = Number(length);
    } else {
      ex.framing = 'close';
      ex.closeAfter = true;
    }
    return undefined;
  }

  #complete(ex: Exchange, extraBytes: boolean): void {
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
    if (ex.status !== 0 && ex.framing === 'close') this.#finish(ex, null);
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
    this.#pending = null;
    this.busy = false;
    const end = performance.now();
    const socket = this.#socket;
    const wrote = ex.gotConn >= 0;
    const head = error ? '' : ex.head;
    ex.resolve({
      status: error ? 0 : ex.status,
      statusText: error ? '' : ex.statusText,
      rawHeaders: () => headerPairs(head),
      chunks: error ? [] : ex.chunks,
      bodyLength_bytes: error ? 0 : ex.length_bytes,
      timings: this.#timings(ex, end),
      sent_bytes: wrote ? socket.bytesWritten - ex.baseWritten : 0,
      received_bytes: wrote ? socket.bytesRead - ex.baseRead : 0,
      remoteIp: this.#remoteIp,
      remotePort: this.#remotePort,
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
