/** HTTP/1.1 response framing (packages/runtime/src/wire/http1-response.ts) on bytes alone: responses as servers send them. */
import { describe, expect, it } from 'vitest';
import {
  headerPairs,
  Http1ParseError,
  Http1ResponseParser,
  MAX_HEAD_BYTES,
  type ResponseHead,
} from '../../src/wire/http1-response.ts';

/** What the parser reported for one response. */
interface Seen {
  head: ResponseHead | null;
  body: string;
  /** complete()'s extraBytes, or undefined while the response is not complete. */
  extra: boolean | undefined;
}

/** A parser expecting one response, and what it reports. */
function parser(isHead = false): { p: Http1ResponseParser; seen: Seen } {
  const seen: Seen = { head: null, body: '', extra: undefined };
  const p = new Http1ResponseParser({
    head: (head) => (seen.head = head),
    body: (buf, from, to) => (seen.body += buf.toString('latin1', from, to)),
    complete: (extra) => (seen.extra = extra),
  });
  p.expect(isHead);
  return { p, seen };
}

/** Feeds `text` in pieces of `size` bytes, from one buffer scribbled over between pushes. */
function feed(p: Http1ResponseParser, text: string, size: number): void {
  const bytes = Buffer.from(text, 'latin1');
  const scratch = Buffer.alloc(size);
  for (let at = 0; at < bytes.length && p.waiting; at += size) {
    const n = bytes.copy(scratch, 0, at, Math.min(at + size, bytes.length));
    p.push(scratch.subarray(0, n));
    scratch.fill(0x23);
  }
}

/** The error push() throws for `text`, or null. */
function errorOf(text: string | Buffer): Http1ParseError | null {
  const { p } = parser();
  try {
    p.push(typeof text === 'string' ? Buffer.from(text, 'latin1') : text);
    return null;
  } catch (err) {
    if (err instanceof Http1ParseError) return err;
    throw err;
  }
}

const LENGTH = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world';
const CHUNKED =
  'HTTP/1.1 100 Continue\r\n\r\n' +
  'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n' +
  '5;name=value\r\nhello\r\n1\r\n \r\nB\r\nchunked bod\r\n1\r\ny\r\n0\r\nTrailer: t\r\n\r\n';

describe('HTTP/1.1 response parser', () => {
  it('frames a body by Content-Length and keeps the header lines as text', () => {
    const { p, seen } = parser();
    p.push(Buffer.from(LENGTH, 'latin1'));
    expect(seen.head).toMatchObject({ status: 200, statusText: 'OK', framing: 'length', contentLength: 11 });
    expect(headerPairs(seen.head!.lines)).toEqual(['Content-Type', 'text/plain', 'Content-Length', '11']);
    expect(seen.body).toBe('hello world');
    expect(seen.extra).toBe(false);
    expect(seen.head!.closeAfter).toBe(false);
    expect(p.waiting).toBe(false);
  });

  it.each([1, 2, 3, 5, 8, 17])('reads a chunked body after a 100 Continue, in reads of %i bytes', (size) => {
    const { p, seen } = parser();
    feed(p, CHUNKED, size);
    expect(seen.head).toMatchObject({ status: 201, statusText: 'Created', framing: 'chunked' });
    expect(headerPairs(seen.head!.lines)).toEqual(['Transfer-Encoding', 'chunked', 'X-A', '1']);
    expect(seen.body).toBe('hello chunked body');
    expect(seen.extra).toBe(false);
  });

  it.each([1, 4, 64])('reads a Content-Length body in reads of %i bytes', (size) => {
    const { p, seen } = parser();
    feed(p, LENGTH, size);
    expect(seen.body).toBe('hello world');
    expect(seen.extra).toBe(false);
  });

  it('reads no body for HEAD, 204 and 304, whatever their headers say', () => {
    for (const [text, isHead] of [
      ['HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n', true],
      ['HTTP/1.1 204 No Content\r\nContent-Length: 50\r\n\r\n', false],
      ['HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n', false],
    ] as const) {
      const { p, seen } = parser(isHead);
      p.push(Buffer.from(text));
      expect(seen.head!.framing).toBe('none');
      expect([seen.body, seen.extra]).toEqual(['', false]);
    }
  });

  it('reads a body up to the end of the connection when nothing else frames it', () => {
    const { p, seen } = parser();
    p.push(Buffer.from('HTTP/1.1 200 OK\r\n\r\npart one, '));
    p.push(Buffer.from('part two'));
    expect(seen.head).toMatchObject({ framing: 'close', closeAfter: true });
    expect(seen.extra).toBeUndefined();
    expect(p.end()).toBe(true);
    expect(seen.body).toBe('part one, part two');
  });

  it('says when the connection cannot carry the next request', () => {
    const closeAfter = (text: string) => {
      const { p, seen } = parser();
      p.push(Buffer.from(text));
      return seen.head!.closeAfter;
    };
    expect(closeAfter('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')).toBe(true);
    expect(closeAfter('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n')).toBe(true);
    expect(closeAfter('HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n')).toBe(false);
    expect(closeAfter('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')).toBe(false);
  });

  it('reports bytes after the response, and reads the next response once it is expected', () => {
    const { p, seen } = parser();
    p.push(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1'));
    expect([seen.body, seen.extra]).toEqual(['ok', true]);
    p.expect(false);
    seen.body = '';
    p.push(Buffer.from('HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\ngone'));
    expect([seen.head!.status, seen.body, seen.extra]).toEqual([404, 'gone', false]);
  });

  it('says a response cut short by the end of the connection is not complete', () => {
    const { p, seen } = parser();
    p.push(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'));
    expect(p.end()).toBe(false);
    expect(seen.extra).toBeUndefined();
  });
});

describe('HTTP/1.1 response parser errors', () => {
  it.each([
    ['a status line that is not HTTP', 'SSH-2.0-OpenSSH\r\n\r\n', 'HPE_INVALID_CONSTANT'],
    ['HTTP/2 in an HTTP/1 status line', 'HTTP/2.0 200 OK\r\n\r\n', 'HPE_INVALID_CONSTANT'],
    ['a status that is not three digits', 'HTTP/1.1 20 OK\r\n\r\n', 'HPE_INVALID_CONSTANT'],
    [
      'a chunk size that is not hex',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'HPE_INVALID_CHUNK_SIZE',
    ],
    [
      'chunk data not followed by CRLF',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n',
      'HPE_INVALID_CHUNK_SIZE',
    ],
  ])('refuses %s with a clear error', (_what, text, code) => {
    const err = errorOf(text);
    expect(err).toBeInstanceOf(Http1ParseError);
    expect(err!.code).toBe(code);
  });

  it('names the status line it could not read', () => {
    expect(errorOf('SSH-2.0-OpenSSH\r\n\r\n')!.message).toBe('malformed HTTP response "SSH-2.0-OpenSSH"');
  });

  it('refuses a head larger than the bound', () => {
    const err = errorOf(Buffer.alloc(MAX_HEAD_BYTES + 1, 'a'));
    expect(err?.code).toBe('HPE_HEADER_OVERFLOW');
  });

  it('refuses bytes when no response is expected', () => {
    const p = new Http1ResponseParser({ head: () => {}, body: () => {}, complete: () => {} });
    expect(() => p.push(Buffer.from('HTTP/1.1 200 OK\r\n\r\n'))).toThrow(Http1ParseError);
  });
});
