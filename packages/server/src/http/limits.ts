/**
 * Connection-level limits of the HTTP frontend: header and whole-request deadlines (Node's headersTimeout and
 * requestTimeout, checked every second instead of Node's 30 s), a cap on open connections, and one-line JSON
 * errors for requests Node's parser refuses (malformed, oversized headers, timed out).
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import tls from 'node:tls';
import { ConnectionSlots } from '../connection-slots.ts';
import { Errors, type ServerError } from '../errors.ts';

/** HTTP connection limits; every field has a default. */
export interface HttpLimits {
  /** Deadline for a request's headers. @default 10000 */
  headersTimeout_ms?: number;
  /** Deadline for a whole request (headers and body). @default 30000 */
  requestTimeout_ms?: number;
  /** Open connections answered normally; past it, requests other than health get 503 and the socket closes. @default 1024 */
  maxConnections?: number;
  /** The most JSON a gzip/deflate infer body may inflate to (body.ts says why). @default 1048576 */
  inflatedJson_bytes?: number;
}

/** The limits with their defaults filled in. */
export const DEFAULT_HTTP_LIMITS: Required<HttpLimits> = {
  headersTimeout_ms: 10_000,
  requestTimeout_ms: 30_000,
  maxConnections: 1024,
  inflatedJson_bytes: 1024 * 1024,
};

/** Connections accepted past the cap only to be told 503 (health answered); beyond, idle ones make room. */
const REFUSAL_HEADROOM = 256;

/** How often Node checks the header and request deadlines (its default, 30 s, would double a 30 s deadline). */
const DEADLINE_CHECK_MS = 1000;

/** Server options node:http reads at creation. */
export function serverTimeouts(limits: Required<HttpLimits>): http.ServerOptions {
  // Node refuses a header deadline longer than the request deadline.
  const headers_ms =
    limits.requestTimeout_ms > 0
      ? Math.min(limits.headersTimeout_ms, limits.requestTimeout_ms)
      : limits.headersTimeout_ms;
  return {
    headersTimeout: headers_ms,
    requestTimeout: limits.requestTimeout_ms,
    connectionsCheckingInterval: Math.min(DEADLINE_CHECK_MS, limits.requestTimeout_ms || DEADLINE_CHECK_MS),
  };
}

/**
 * Tracks open connections; `refused(socket)` tells whether a socket arrived past the cap. Past the cap plus
 * REFUSAL_HEADROOM a newcomer takes the slot of the oldest connection with no request in progress (trickled
 * headers, idle keep-alive), so health probes get in however many such connections are open.
 */
export function applyConnectionCap(
  server: http.Server,
  limits: Required<HttpLimits>,
): (socket: Socket) => boolean {
  const overCap = new WeakSet<Socket>();
  const busy = new WeakSet<Socket>();
  const slots = new ConnectionSlots(limits.maxConnections + REFUSAL_HEADROOM, (s) => !busy.has(s));
  // Node's own refusal at accept stays only as a bound on descriptors (TLS handshakes included).
  server.maxConnections = 2 * (limits.maxConnections + REFUSAL_HEADROOM);
  // HTTPS requests see the TLS socket, which 'secureConnection' hands over (a TLS socket closes with its TCP one).
  const event = server instanceof tls.Server ? 'secureConnection' : 'connection';
  server.prependListener(event, (socket: Socket) => {
    if (slots.admit(socket) && slots.size > limits.maxConnections) overCap.add(socket);
  });
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    busy.add(socket);
    res.once('close', () => busy.delete(socket));
  });
  // Node answers an unknown Expect header with an empty 417; say which header and what to do.
  server.on('checkExpectation', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const body = JSON.stringify({
      error: `unsupported Expect header "${req.headers.expect}"; send "100-continue" or none`,
    });
    res.writeHead(417, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    });
    res.end(body);
    req.resume();
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) =>
    answerClientError(err, socket, limits),
  );
  return (socket) => overCap.has(socket);
}

/** The one-line error for a request Node's parser or deadlines refused, as Node's own answer would be. */
function clientErrorOf(
  err: NodeJS.ErrnoException,
  limits: Required<HttpLimits>,
): { status: number; error: ServerError | string } {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, error: Errors.requestTimeout(limits.requestTimeout_ms) };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, error: 'request headers are larger than 16 KiB; send fewer or shorter headers' };
    default:
      return {
        status: 400,
        error: `malformed HTTP request (${err.code ?? 'parse error'}); check the request line, headers and framing`,
      };
  }
}

function answerClientError(err: NodeJS.ErrnoException, socket: Socket, limits: Required<HttpLimits>): void {
  // Same care as Node's default: answer only if no response has started, never to a peer that reset.
  const pending = (socket as Socket & { _httpMessage?: http.ServerResponse })._httpMessage;
  if (err.code !== 'ECONNRESET' && socket.writable && !pending?.headersSent) {
    const { status, error } = clientErrorOf(err, limits);
    const body = JSON.stringify({ error: typeof error === 'string' ? error : error.message });
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroySoon();
}
