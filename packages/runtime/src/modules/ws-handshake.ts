/**
 * What k6/ws and k6/websockets share: the opening handshake on the `ws` package (k6's headers, subprotocols,
 * deflate, TLS options), its outcome as k6 reports it (status, headers, body, Go's error texts), the session
 * tags and the session's samples (ws_sessions, ws_connecting, ws_session_duration, and the socket's wire bytes as
 * data_sent/data_received), and the close codes' texts as gorilla/websocket, k6's library, words them.
 */
import { refuseOtherDial } from '../transport/dial-policy.ts';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { tlsConnectOptions } from '../transport/tls-client.ts';
import type { Tags, VuState } from '../vu-context.ts';
import { TLS_UNKNOWN_AUTHORITY } from './http-errors.ts';
import { currentUserAgent } from './http-params.ts';
import { canonicalHeaderKey } from './http-response.ts';

/** The params both modules read: headers, tags and compression ('deflate'). */
export interface SessionParams {
  headers: Record<string, string>;
  tags: Tags;
  deflate: boolean;
}

/**
 * Reads a session's params as k6 does. k6/ws ignores other keys and an empty compression; k6/websockets
 * (`strict`) refuses them (`unknown WebSocket's option foo`), `jar` aside (cookie jars are not supported).
 */
export function sessionParams(raw: unknown, strict: boolean): SessionParams {
  const out: SessionParams = { headers: {}, tags: {}, deflate: false };
  if (raw === null || raw === undefined) return out;
  for (const [k, v] of Object.entries(raw as object)) {
    if (k === 'headers' || k === 'tags') {
      if (v !== null && typeof v === 'object')
        for (const [name, value] of Object.entries(v as object)) out[k][name] = String(value);
    } else if (k === 'compression') {
      const algo = v === null || v === undefined ? '' : String(v).trim();
      if (algo === '' && !strict) continue;
      if (algo !== 'deflate')
        throw new Error(`unsupported compression algorithm '${algo}', supported algorithm is 'deflate'`);
      out.deflate = true;
    } else if (strict && k !== 'jar') throw new Error(`unknown WebSocket's option ${k}`);
  }
  return out;
}

/** What a handshake asks for. */
export interface HandshakeOptions {
  /** Request headers (the User-Agent is k6/http's unless given). */
  headers: Record<string, string>;
  protocols: string[];
  /** permessage-deflate (k6's `compression: 'deflate'`). */
  deflate: boolean;
}

/** How a handshake ended: an open socket, or the failure as k6 reports it. */
export interface Handshake {
  /** The open socket, paused until the module resumes it; null when the handshake failed. */
  socket: WebSocket | null;
  /** The HTTP status of the answer (101 when open), 0 when none came. */
  status: number;
  /** The answer's headers, names canonical as Go prints them, values joined by ", ". */
  headers: Record<string, string>;
  /** The body of a refusal. */
  body: string;
  /** '' when open, else Go's text: `websocket: bad handshake`, `dial tcp 127.0.0.1:1: connect: connection refused`. */
  error: string;
  subprotocol: string;
  extensions: string[];
  /** performance.now() when the dial began. */
  start_ms: number;
  connecting_ms: number;
  /** The connection's wire bytes so far (handshake and frames). */
  bytes(): { sent: number; received: number };
}

/** Go's net error text for a failed dial (`dial tcp 127.0.0.1:1: connect: connection refused`), else Node's message. */
function dialError(
  err: NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string },
): string {
  const where = err.address ? `${err.address}${err.port ? `:${err.port}` : ''}` : '';
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${where}: connect: connection refused`;
    case 'ENOTFOUND':
      return `dial tcp: lookup ${err.hostname ?? ''}: no such host`;
    default:
      if (err.code && TLS_UNKNOWN_AUTHORITY.has(err.code))
        return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
      return err.message;
  }
}

function headersOf(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    const k = canonicalHeaderKey(res.rawHeaders[i]!);
    const v = res.rawHeaders[i + 1]!;
    // Go's HTTP client drops `Connection: close` from the answers it reads.
    if (k === 'Connection' && v.toLowerCase() === 'close') continue;
    out[k] = k in out ? `${out[k]}, ${v}` : v;
  }
  return out;
}

/** Opens a WebSocket to `url` as `vu` would (its TLS options); never rejects: a failure is in the result. */
export function handshake(vu: VuState, url: URL, options: HandshakeOptions): Promise<Handshake> {
  refuseOtherDial(
    vu.options.http?.dial,
    'WebSockets',
    url.hostname,
    Number(url.port) || (url.protocol === 'wss:' ? 443 : 80),
  );
  const headers = { ...options.headers };
  // The test's userAgent option, as k6/ws sends it; '' sends none.
  const agent = currentUserAgent();
  if (agent !== '' && !Object.keys(headers).some((k) => k.toLowerCase() === 'user-agent'))
    headers['User-Agent'] = agent;
  const start_ms = performance.now();
  let wire: Socket | null = null;
  const result: Handshake = {
    socket: null,
    status: 0,
    headers: {},
    body: '',
    error: '',
    subprotocol: '',
    extensions: [],
    start_ms,
    connecting_ms: 0,
    bytes: () => ({ sent: wire?.bytesWritten ?? 0, received: wire?.bytesRead ?? 0 }),
  };
  return new Promise((resolve) => {
    const end = (): void => {
      result.connecting_ms = performance.now() - start_ms;
      resolve(result);
    };
    const ws = new WebSocket(url, options.protocols, {
      headers,
      perMessageDeflate: options.deflate,
      // k6's dialer waits 60 s for the handshake and follows no redirect.
      handshakeTimeout: 60_000,
      followRedirects: false,
      ...(url.protocol === 'wss:' ? tlsConnectOptions(vu.options.tls, url.hostname) : {}),
    });
    ws.binaryType = 'nodebuffer';
    const answered = (res: IncomingMessage): void => {
      wire = res.socket;
      result.status = res.statusCode ?? 0;
      result.headers = headersOf(res);
    };
    ws.once('upgrade', answered);
    ws.once('unexpected-response', (req, res) => {
      answered(res);
      result.error = 'websocket: bad handshake';
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => undefined);
      res.on('end', () => {
        result.body = Buffer.concat(chunks).toString('utf8');
        req.destroy();
        end();
      });
    });
    ws.once('open', () => {
      // Frames that came with the handshake's answer wait until the module has its listeners (it resumes).
      ws.pause();
      ws.removeAllListeners('error');
      result.socket = ws;
      result.subprotocol = ws.protocol;
      result.extensions = ws.extensions ? [ws.extensions] : [];
      end();
    });
    ws.on('error', (err: NodeJS.ErrnoException) => {
      if (result.error || result.socket) return;
      result.error = dialError(err);
      end();
    });
  });
}

/**
 * The tags of a session's samples: the VU's, the script's own, then `url` (and, for k6/websockets, `name`:
 * the script's name tag or the URL), `status` and `subproto` when an answer came, as k6 sets them.
 */
function sessionTags(vu: VuState, own: Tags, url: string, hs: Handshake, options: { name: boolean }): Tags {
  const tags: Tags = { ...vu.tags(), ...own };
  if (options.name) {
    tags['url'] = own['name'] ?? url;
    tags['name'] = own['name'] ?? url;
  } else tags['url'] = url;
  if (hs.status !== 0) {
    tags['status'] = String(hs.status);
    tags['subproto'] = hs.subprotocol;
  }
  return tags;
}

/** A session whose handshake ended (opened or not): emits ws_sessions and ws_connecting as k6 does; returns its tags (sessionTags). */
export function startSession(
  vu: VuState,
  own: Tags,
  url: string,
  hs: Handshake,
  options: { name: boolean },
): Tags {
  const tags = sessionTags(vu, own, url, hs, options);
  vu.emit([
    { metric: 'ws_sessions', value: 1, tags },
    { metric: 'ws_connecting', value: hs.connecting_ms, tags },
  ]);
  return tags;
}

/** ws_session_duration (unless k6 leaves it out) and the connection's wire bytes, with the VU's tags, at a session's end. */
export function emitSessionEnd(vu: VuState, tags: Tags, hs: Handshake, duration: boolean): void {
  const { sent, received } = hs.bytes();
  const vuTags = vu.tags();
  vu.emit([
    ...(duration ? [{ metric: 'ws_session_duration', value: performance.now() - hs.start_ms, tags }] : []),
    { metric: 'data_sent', value: sent, tags: vuTags },
    { metric: 'data_received', value: received, tags: vuTags },
  ]);
}

/** gorilla/websocket's descriptions of close codes, which k6's errors carry. */
const CLOSE_TEXTS: Record<number, string> = {
  1000: ' (normal)',
  1001: ' (going away)',
  1002: ' (protocol error)',
  1003: ' (unsupported data)',
  1005: ' (no status)',
  1006: ' (abnormal closure)',
  1007: ' (invalid payload data)',
  1008: ' (policy violation)',
  1009: ' (message too big)',
  1010: ' (mandatory extension missing)',
  1011: ' (internal server error)',
  1015: ' (TLS handshake error)',
};

/**
 * How k6 reports a close it did not start: the reason (gorilla's `unexpected EOF` when the connection was cut
 * without a close frame) and, for a code other than 1000 and 1001 (gorilla's IsUnexpectedCloseError), an error:
 * the socket's own last error, else `websocket: close 4000: bye`, `websocket: close 1006 (abnormal closure):
 * unexpected EOF`; '' when there is none.
 */
export function peerClose(
  code: number,
  reason: Buffer,
  lastError: string,
): { reason: string; error: string } {
  const raw = reason.toString();
  const text = code === 1006 && raw === '' ? 'unexpected EOF' : raw;
  if (code === 1000 || code === 1001) return { reason: text, error: '' };
  return {
    reason: text,
    error: lastError || `websocket: close ${code}${CLOSE_TEXTS[code] ?? ''}${text ? `: ${text}` : ''}`,
  };
}
