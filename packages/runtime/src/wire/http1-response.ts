/**
 * HTTP/1.1 response framing (RFC 9112) for a client that sends one request at a time: the status line,
 * the headers that frame the body (Content-Length, Transfer-Encoding: chunked, Connection), then the body
 * by length, by chunks (trailers skipped) or up to the end of the connection. 1xx answers are skipped;
 * HEAD, 204 and 304 answers have no body. The other header lines are handed over as text, split only by
 * whoever reads them (headerPairs). Pure: no sockets, timers or clocks.
 */

/** A head larger than this is not an HTTP response we can frame (Go's default limit is 1 MiB). */
export const MAX_HEAD_BYTES = 1 << 20;
const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

/** How a response's body is delimited. */
export type Framing = 'none' | 'length' | 'chunked' | 'close';

/** A final (not 1xx) response head. */
export interface ResponseHead {
  status: number;
  statusText: string;
  /** The header lines, status line excluded, separated by CRLF. */
  lines: string;
  framing: Framing;
  /** The body's length for framing 'length', else -1. */
  contentLength: number;
  /** The connection cannot carry another request after this response. */
  closeAfter: boolean;
  /** The head has a Set-Cookie header (k6/http's cookie jar reads the headers only then). */
  setCookie: boolean;
}

/** What the parser reports for one response. */
export interface Http1ResponseHandler {
  /** The final head. */
  head(head: ResponseHead): void;
  /** Body bytes `buf[from, to)` (chunk framing removed), valid only until the call returns. */
  body(buf: Buffer, from: number, to: number): void;
  /** The response is complete; `extraBytes`: bytes followed it that no request asked for. */
  complete(extraBytes: boolean): void;
}

/** Bytes that are not an HTTP/1.x response; `code` is llhttp's name for the fault, as Node reports it. */
export class Http1ParseError extends Error {
  override name = 'Http1ParseError';
  constructor(
    message: string,
    readonly code: 'HPE_INVALID_CONSTANT' | 'HPE_HEADER_OVERFLOW' | 'HPE_INVALID_CHUNK_SIZE',
  ) {
    super(message);
  }
}

/** Header lines as the raw name, value, name, value... list. */
export function headerPairs(lines: string): string[] {
  const out: string[] = [];
  if (lines === '') return out;
  for (const line of lines.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) out.push(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return out;
}

/** The trimmed value of the header `key` ('\r\nname:', lower case) in a lower-cased head. */
function headerValue(lowerHead: string, key: string): string | undefined {
  const at = lowerHead.indexOf(key);
  if (at < 0) return undefined;
  const from = at + key.length;
  const end = lowerHead.indexOf('\r\n', from);
  return lowerHead.slice(from, end < 0 ? undefined : end).trim();
}

/**
 * Reads a head (status line and header lines, without the blank line); null for a 1xx answer, which
 * the real head follows. Throws Http1ParseError when it is not an HTTP/1.x response.
 */
export function parseHead(head: string, isHead: boolean): ResponseHead | null {
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
    throw new Http1ParseError(
      `malformed HTTP response ${JSON.stringify(statusLine.slice(0, 40))}`,
      'HPE_INVALID_CONSTANT',
    );
  }
  if (status < 200 && status !== 101) return null;
  // Only the three framing headers are read here.
  const lower = head.toLowerCase();
  const length = headerValue(lower, '\r\ncontent-length:');
  const encoding = headerValue(lower, '\r\ntransfer-encoding:');
  const connection = headerValue(lower, '\r\nconnection:');
  let framing: Framing;
  if (isHead || status === 204 || status === 304) framing = 'none';
  else if (encoding?.endsWith('chunked')) framing = 'chunked';
  else if (length !== undefined && /^\d+$/.test(length) && Number.isSafeInteger(Number(length)))
    framing = 'length';
  else framing = 'close';
  return {
    status,
    statusText: statusLine.slice(13),
    lines: lineEnd < 0 ? '' : head.slice(lineEnd + 2),
    framing,
    contentLength: framing === 'length' ? Number(length) : -1,
    closeAfter:
      framing === 'close' || connection === 'close' || (minor === 48 && connection !== 'keep-alive'),
    setCookie: lower.includes('\r\nset-cookie:'),
  };
}

/** Where the parser is in a response. */
const IDLE = 0;
const HEAD = 1;
const BODY = 2;

/**
 * Frames the responses of one connection, one at a time: expect() before each request's response, then
 * push() every read. A response split across reads is carried over (copying only what it must: a partial
 * head or chunk-size line); push() throws Http1ParseError on bytes that are not HTTP/1.x.
 */
export class Http1ResponseParser {
  readonly #handler: Http1ResponseHandler;
  #state = IDLE;
  #isHead = false;
  #framing: Framing = 'none';
  /**
   * Body bytes still expected (framing 'length'); in chunked framing, > 0 inside a chunk's data, 0 at
   * a size line, -1 at the CRLF after data, -2 in the trailers.
   */
  #remaining = 0;
  #pending: Buffer | null = null;

  constructor(handler: Http1ResponseHandler) {
    this.#handler = handler;
  }

  /** A response is expected (a request was sent) and not complete yet. */
  get waiting(): boolean {
    return this.#state !== IDLE;
  }

  /** Expects the response to a request; `isHead`: the request was HEAD, so no body follows. */
  expect(isHead: boolean): void {
    this.#state = HEAD;
    this.#isHead = isHead;
    this.#pending = null;
  }

  /** Forgets the response in progress (the request failed or the connection is gone). */
  reset(): void {
    this.#state = IDLE;
    this.#pending = null;
  }

  /**
   * The connection ended: true when that completes the response (a body delimited by the end of the
   * connection; complete() is not called), false when the response was cut short.
   */
  end(): boolean {
    const done = this.#state === BODY && this.#framing === 'close';
    this.reset();
    return done;
  }

  /** Reads `chunk` (valid only during the call) for the expected response. */
  push(chunk: Buffer): void {
    if (this.#state === IDLE) throw new Http1ParseError('bytes before any request', 'HPE_INVALID_CONSTANT');
    const buf = this.#pending ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#pending = null;
    let off = 0;
    while (this.#state !== IDLE && off < buf.length) {
      if (this.#state === HEAD) {
        const end = buf.indexOf(HEAD_END, off);
        if (end < 0) {
          if (buf.length - off > MAX_HEAD_BYTES)
            throw new Http1ParseError('malformed HTTP response', 'HPE_HEADER_OVERFLOW');
          this.#pending = Buffer.from(buf.subarray(off));
          return;
        }
        const head = parseHead(buf.toString('latin1', off, end), this.#isHead);
        off = end + 4;
        if (head === null) continue; // a 1xx answer: the real head follows
        this.#state = BODY;
        this.#framing = head.framing;
        this.#remaining = head.framing === 'length' ? head.contentLength : 0;
        this.#handler.head(head);
        if (head.framing === 'none' || (head.framing === 'length' && this.#remaining === 0)) {
          this.#complete(off < buf.length);
          return;
        }
        continue;
      }
      if (this.#framing === 'close') {
        this.#handler.body(buf, off, buf.length);
        return;
      }
      if (this.#framing === 'length') {
        const take = Math.min(this.#remaining, buf.length - off);
        this.#handler.body(buf, off, off + take);
        off += take;
        this.#remaining -= take;
        if (this.#remaining === 0) {
          this.#complete(off < buf.length);
          return;
        }
        continue;
      }
      off = this.#chunked(buf, off);
    }
  }

  /** One step of chunked framing from `off`; returns where it stopped. */
  #chunked(buf: Buffer, off: number): number {
    if (this.#remaining > 0) {
      const take = Math.min(this.#remaining, buf.length - off);
      this.#handler.body(buf, off, off + take);
      this.#remaining -= take;
      if (this.#remaining === 0) this.#remaining = -1;
      return off + take;
    }
    const eol = buf.indexOf(CRLF, off);
    if (eol < 0) {
      if (buf.length - off > MAX_HEAD_BYTES)
        throw new Http1ParseError('malformed chunked encoding', 'HPE_INVALID_CHUNK_SIZE');
      this.#pending = Buffer.from(buf.subarray(off));
      return buf.length;
    }
    const line = buf.toString('latin1', off, eol);
    const next = eol + 2;
    if (this.#remaining === -1) {
      if (line !== '') throw new Http1ParseError('malformed chunked encoding', 'HPE_INVALID_CHUNK_SIZE');
      this.#remaining = 0;
      return next;
    }
    if (this.#remaining === -2) {
      // Trailers end at an empty line.
      if (line === '') this.#complete(next < buf.length);
      return next;
    }
    // A size line: hex digits, then perhaps chunk extensions after ';'.
    const size = Number.parseInt(line, 16);
    if (!Number.isFinite(size) || size < 0)
      throw new Http1ParseError('malformed chunked encoding', 'HPE_INVALID_CHUNK_SIZE');
    this.#remaining = size === 0 ? -2 : size;
    return next;
  }

  #complete(extraBytes: boolean): void {
    this.#state = IDLE;
    this.#pending = null;
    this.#handler.complete(extraBytes);
  }
}
