/**
 * k6/ws: `ws.connect(url, [params], setup)` opens a WebSocket, calls setup(socket), fires the socket's events
 * (open, message, binaryMessage, ping, pong, close, error) and returns k6's response when the socket closes.
 * k6's connect blocks the VU until then; here it is a promise, which the loader awaits in the script's bundle
 * (loader/await-sync.ts), so code after connect() runs after the socket closed, as in k6. Metrics, tags,
 * close codes and error texts are k6's (its internal/js/modules/k6/ws); a handler that throws closes the socket
 * (1001, close handlers run) and connect() throws its error.
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { currentVu, runInVu, type Tags, type VuState } from '../vu-context.ts';
import { holdIteration } from './timers.ts';
import {
  emitSessionEnd,
  type Handshake,
  handshake,
  peerClose,
  type SessionParams,
  sessionParams,
  startSession,
} from './ws-handshake.ts';

type Handler = (...args: unknown[]) => unknown;

/** What ws.connect() returns: the handshake's answer (url is set only when the socket opened). */
export interface WsResponse {
  url: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  error: string;
}

/** The error value k6 hands to 'error' handlers: a Go error with error(); a close error also has code and text. */
class WsError {
  /** The error's text, as Go's error() gives it (an own property, as k6 shows it). */
  readonly error: () => string;
  constructor(message: string, close?: { code: number; text: string }) {
    if (close) Object.assign(this, close);
    this.error = () => message;
  }
  toString(): string {
    return this.error();
  }
}

/** k6's ws.connect(url, [params], setup): resolves with the response when the socket has closed. */
export function connect(url: unknown, ...args: unknown[]): Promise<WsResponse> {
  const vu = currentVu();
  if (vu.inInit) throw new Error('using websockets in the init context is not supported');
  if (args.length < 1 || args.length > 2) throw new Error('invalid number of arguments to ws.connect');
  const setup = args[args.length - 1];
  if (typeof setup !== 'function') throw new Error('last argument to ws.connect must be a function');
  const params = sessionParams(args.length === 2 ? args[0] : undefined, false);
  return session(vu, String(url), params, setup as Handler);
}

/** A handshake that never started (a URL gorilla/websocket refuses). */
function refused(error: string): Handshake {
  return {
    socket: null,
    status: 0,
    headers: {},
    body: '',
    error,
    subprotocol: '',
    extensions: [],
    start_ms: performance.now(),
    connecting_ms: 0,
    bytes: () => ({ sent: 0, received: 0 }),
  };
}

async function session(vu: VuState, url: string, params: SessionParams, setup: Handler): Promise<WsResponse> {
  let target: URL | null = null;
  try {
    target = new URL(url);
  } catch {
    // gorilla/websocket's text below.
  }
  const hs =
    target && (target.protocol === 'ws:' || target.protocol === 'wss:')
      ? await handshake(vu, target, { headers: params.headers, protocols: [], deflate: params.deflate })
      : refused('malformed ws or wss URL');
  const tags = startSession(vu, params.tags, url, hs, { name: false });
  if (!hs.socket) {
    emitSessionEnd(vu, tags, hs, true);
    // k6 reports the answer when one came, else only the error.
    return {
      url: '',
      status: hs.status,
      headers: hs.headers,
      body: hs.body,
      error: hs.status ? '' : hs.error,
    };
  }
  await new Socket(vu, hs.socket, tags, hs).run(setup);
  return { url, status: hs.status, headers: hs.headers, body: '', error: '' };
}

/** The socket ws.connect() hands to its setup function. */
class Socket {
  readonly #vu: VuState;
  readonly #ws: WebSocket;
  readonly #tags: Tags;
  readonly #hs: Handshake;
  readonly #handlers = new Map<string, Handler[]>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #pings = new Map<string, number>();
  #pingCount = 0;
  #closing = false;
  #done = false;
  #failure: { err: unknown } | null = null;
  #lastError = '';
  #release: (err?: unknown) => void = () => undefined;
  #settle: (failure: { err: unknown } | null) => void = () => undefined;

  constructor(vu: VuState, ws: WebSocket, tags: Tags, hs: Handshake) {
    this.#vu = vu;
    this.#ws = ws;
    this.#tags = tags;
    this.#hs = hs;
  }

  /** Runs the session: setup(socket), 'open', then events until the socket closes; rejects with a handler's error. */
  run(setup: Handler): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#settle = (f) => (f ? reject(f.err) : resolve());
      this.#release = holdIteration(this.#vu, () => this.#interrupted());
      const ws = this.#ws;
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        if (this.#done) return;
        this.#vu.emit([{ metric: 'ws_msgs_received', value: 1, tags: this.#tags }]);
        if (isBinary) {
          const ab = new ArrayBuffer(data.length);
          new Uint8Array(ab).set(data);
          this.#emit('binaryMessage', ab);
        } else this.#emit('message', data.toString('utf8'));
      });
      ws.on('ping', () => {
        if (!this.#done) this.#emit('ping');
      });
      ws.on('pong', (data: Buffer) => {
        if (this.#done) return;
        const sent = this.#pings.get(data.toString());
        if (sent !== undefined)
          this.#vu.emit([{ metric: 'ws_ping', value: performance.now() - sent, tags: this.#tags }]);
        this.#emit('pong');
      });
      ws.on('error', (err: Error) => {
        this.#lastError = err.message;
      });
      ws.on('close', (code: number, reason: Buffer) => {
        if (this.#done || this.#closing) return;
        const peer = peerClose(code, reason, this.#lastError);
        if (peer.error) this.#emit('error', new WsError(peer.error, { code, text: peer.reason }));
        this.#shutdown(code);
      });
      if (this.#call(setup, this)) this.#emit('open');
      ws.resume();
    });
  }

  /** Calls a script function as the VU; a throw ends the session with that error. */
  #call(fn: Handler, ...args: unknown[]): boolean {
    try {
      runInVu(this.#vu, () => fn(...args));
      return true;
    } catch (err) {
      this.#failure ??= { err };
      this.#shutdown(1001);
      return false;
    }
  }

  #emit(event: string, ...args: unknown[]): boolean {
    for (const h of this.#handlers.get(event) ?? []) if (!this.#call(h, ...args)) return false;
    return true;
  }

  /** k6's closeConnection: the close frame (when the socket is still open), the close handlers, the end. */
  #shutdown(code: number): void {
    if (this.#closing) return;
    this.#closing = true;
    if (this.#ws.readyState === WebSocket.OPEN) {
      try {
        this.#ws.close(code);
      } catch (err) {
        this.#emit('error', new WsError((err as Error).message));
      }
    }
    this.#emit('close', code);
    this.#finish();
  }

  /**
   * The iteration ended under the socket: k6 closes it (1001) when the VU's context ends and drops what the VU
   * records from then on (the handlers' samples, the session's duration), so no handler runs here and only the
   * wire bytes are counted.
   */
  #interrupted(): void {
    if (this.#done) return;
    this.#closing = true;
    if (this.#ws.readyState === WebSocket.OPEN) this.#ws.close(1001);
    this.#finish(false);
  }

  #finish(duration = true): void {
    if (this.#done) return;
    this.#done = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    emitSessionEnd(this.#vu, this.#tags, this.#hs, duration);
    this.#release();
    this.#settle(this.#failure);
  }

  /** Adds a handler for 'open', 'message', 'binaryMessage', 'ping', 'pong', 'close' or 'error' (k6 ignores non-functions). */
  on(event: unknown, handler: unknown): void {
    if (typeof handler !== 'function') return;
    const name = String(event);
    const list = this.#handlers.get(name) ?? [];
    list.push(handler as Handler);
    this.#handlers.set(name, list);
  }

  /** Sends a text message; after close, the error handlers get `websocket: close sent`. */
  send(message: unknown): void {
    this.#write(String(message), false);
  }

  /** Sends an ArrayBuffer as a binary message. */
  sendBinary(...args: unknown[]): void {
    if (args.length === 0) throw new Error('missing argument, expected ArrayBuffer');
    const message = args[0];
    if (!(message instanceof ArrayBuffer)) {
      const type =
        message === null || message === undefined
          ? String(message)
          : ((message as object).constructor?.name ?? typeof message);
      throw new Error(`expected ArrayBuffer as argument, received: ${type}`);
    }
    this.#write(Buffer.from(message), true);
  }

  #write(data: string | Buffer, binary: boolean): void {
    if (this.#ws.readyState === WebSocket.OPEN && !this.#closing) this.#ws.send(data, { binary });
    else this.#emit('error', new WsError('websocket: close sent'));
    // k6 counts the message whether or not it could be written.
    this.#vu.emit([{ metric: 'ws_msgs_sent', value: 1, tags: this.#tags }]);
  }

  /** Sends a ping; its pong gives a ws_ping sample. */
  ping(): void {
    if (this.#ws.readyState !== WebSocket.OPEN || this.#closing) {
      this.#emit('error', new WsError('websocket: close sent'));
      return;
    }
    const id = String(this.#pingCount++);
    this.#ws.ping(id);
    this.#pings.set(id, performance.now());
  }

  /** Runs fn once after `ms` milliseconds (more than 0) while the socket is open. */
  setTimeout(fn: unknown, ms: unknown): void {
    this.#timer(fn, ms, false);
  }

  /** Runs fn every `ms` milliseconds (more than 0) while the socket is open. */
  setInterval(fn: unknown, ms: unknown): void {
    this.#timer(fn, ms, true);
  }

  #timer(fn: unknown, ms: unknown, repeat: boolean): void {
    const delay = Number(ms);
    if (!(delay > 0))
      throw new Error(
        `${repeat ? 'setInterval' : 'setTimeout'} requires a >0 timeout parameter, received ${delay.toFixed(2)}`,
      );
    if (typeof fn !== 'function' || this.#done) return;
    const t = (repeat ? globalThis.setInterval : globalThis.setTimeout)(() => {
      if (!repeat) this.#timers.delete(t);
      if (!this.#done) this.#call(fn as Handler);
    }, delay);
    this.#timers.add(t);
  }

  /** Closes the socket with `code` (1001, going away, by default); the close handlers run at once. */
  close(...args: unknown[]): void {
    this.#shutdown(args.length > 0 ? Math.trunc(Number(args[0])) || 0 : 1001);
  }
}

export default { connect };
