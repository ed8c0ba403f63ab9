/**
 * k6/websockets: the browser-like WebSocket class (and its Blob). `new WebSocket(url, [protocols], [params])`
 * connects in the background; events reach `on*` handlers and addEventListener listeners (open, message, error,
 * close, ping, pong); send, ping and close work once it is open; readyState, binaryType ('blob' or
 * 'arraybuffer'), bufferedAmount, protocol and extensions follow it. The VU's iteration lasts until every
 * socket it opened has closed, as in k6; a listener that throws closes its socket and fails the iteration.
 * Metrics, tags, validation and error texts are k6's (its internal/js/modules/k6/websockets).
 */
import { performance } from 'node:perf_hooks';
import type WsSocket from 'ws';
import { logLine } from '../log.ts';
import { currentVu, runInVu, type Tags, type VuState } from '../vu-context.ts';
import { holdIteration } from './timers.ts';
import { Blob } from './websockets-blob.ts';
import {
  emitSessionEnd,
  type Handshake,
  handshake,
  peerClose,
  sessionParams,
  startSession,
} from './ws-handshake.ts';

export { Blob };

type Listener = (event: unknown) => unknown;

const EVENT_TYPES = ['open', 'message', 'error', 'close', 'ping', 'pong'] as const;
type EventType = (typeof EVENT_TYPES)[number];

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

/** The URL as k6 checks it: present, ws or wss, no fragment. */
function socketUrl(raw: unknown): URL {
  if (raw === null || raw === undefined) throw new Error('WebSocket requires a url');
  const text = String(raw);
  let url: URL;
  try {
    url = new URL(text);
  } catch (err) {
    throw new Error(
      `WebSocket requires valid url, but got ${JSON.stringify(text)} which resulted in ${(err as Error).message}`,
    );
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== 'ws' && scheme !== 'wss')
    throw new Error(`WebSocket requires url with scheme ws or wss, but got ${JSON.stringify(scheme)}`);
  if (url.hash !== '')
    throw new Error(`WebSocket requires no url fragment, but got ${JSON.stringify(url.hash.slice(1))}`);
  return url;
}

/** An event as k6 builds one: type, target, timestamp (ms since the epoch), and the event's own fields. */
function newEvent(type: EventType, target: WebSocket, fields: Record<string, unknown> = {}): object {
  return { type, target, timestamp: performance.timeOrigin + performance.now(), ...fields };
}

/** k6's WebSocket. */
export class WebSocket {
  readonly url: string;
  readonly #vu: VuState;
  readonly #listeners = new Map<EventType, Listener[]>();
  readonly #on = new Map<EventType, Listener>();
  readonly #pings = new Map<string, number>();
  #pingCount = 0;
  #ws: WsSocket | null = null;
  #hs: Handshake | null = null;
  #tags: Tags = {};
  #readyState = CONNECTING;
  #bufferedAmount = 0;
  #binaryType: 'blob' | 'arraybuffer' = 'blob';
  #closeCode = 0;
  #closeReason = '';
  #ended = false;
  #release: (err?: unknown) => void = () => undefined;

  constructor(url: unknown, protocols?: unknown, params?: unknown) {
    const vu = currentVu();
    if (vu.inInit) throw new Error('using websockets in the init context is not supported');
    const target = socketUrl(url);
    const p = sessionParams(params, true);
    const offered =
      protocols === null || protocols === undefined
        ? []
        : Array.isArray(protocols)
          ? protocols.map(String)
          : typeof protocols === 'string'
            ? [protocols]
            : [];
    this.#vu = vu;
    // As written (Go's url.String() keeps `ws://host:port` without the slash URL.href would add).
    this.url = String(url);
    // The iteration waits for the socket; an interrupted iteration closes it (1000), as k6 does.
    this.#release = holdIteration(vu, () => this.#interrupted());
    void handshake(vu, target, { headers: p.headers, protocols: offered, deflate: p.deflate }).then((hs) =>
      this.#connected(hs, p.tags),
    );
  }

  get readyState(): number {
    return this.#readyState;
  }
  get bufferedAmount(): number {
    return this.#bufferedAmount;
  }
  get protocol(): string {
    return this.#hs?.subprotocol ?? '';
  }
  get extensions(): string[] {
    return this.#hs?.extensions ?? [];
  }
  get binaryType(): string {
    return this.#binaryType;
  }
  set binaryType(value: unknown) {
    if (value !== 'blob' && value !== 'arraybuffer')
      throw new Error(`unknown binaryType ${String(value)}, the supported ones are "blob" and "arraybuffer"`);
    this.#binaryType = value;
  }

  // onopen, onmessage, onerror, onclose, onping and onpong: a function, or null to unset (k6 refuses other values).
  static {
    for (const type of EVENT_TYPES)
      Object.defineProperty(WebSocket.prototype, `on${type}`, {
        get(this: WebSocket) {
          return this.#on.get(type) ?? null;
        },
        set(this: WebSocket, fn: unknown) {
          this.#setOn(type, fn);
        },
      });
  }

  #setOn(type: EventType, fn: unknown): void {
    if (fn === null || fn === undefined) this.#on.delete(type);
    else if (typeof fn !== 'function') throw new Error(`a value for 'on${type}' should be callable`);
    else this.#on.set(type, fn as Listener);
  }

  /** Adds a listener for open, message, error, close, ping or pong (another type is warned about and ignored). */
  addEventListener(type: unknown, handler: unknown): void {
    const name = String(type);
    if (typeof handler !== 'function')
      throw new Error(`handler for event type ${JSON.stringify(name)} isn't a callable function`);
    if (!(EVENT_TYPES as readonly string[]).includes(name)) {
      logLine('WARN', `can't add event handler: unknown event type: ${name}`);
      return;
    }
    const list = this.#listeners.get(name as EventType) ?? [];
    list.push(handler as Listener);
    this.#listeners.set(name as EventType, list);
  }

  /** Sends a string as text, or an ArrayBuffer, a typed array, a DataView or a Blob as binary. */
  send(data: unknown): void {
    this.#assertOpen();
    let payload: string | Uint8Array;
    if (typeof data === 'string') payload = data;
    else if (data instanceof ArrayBuffer) payload = new Uint8Array(data.slice(0));
    else if (ArrayBuffer.isView(data))
      payload = new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
    else if (data instanceof Blob) payload = Blob.bytesOf(data).slice();
    else throw new Error(`unsupported send type ${data === null ? 'null' : typeof data}`);
    const size = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
    this.#bufferedAmount += size;
    this.#ws!.send(payload, { binary: typeof payload !== 'string' }, (err) => {
      this.#bufferedAmount -= size;
      if (!err) this.#sent();
    });
  }

  /** k6 counts every frame it wrote from its queue as a message sent: data, pings and the close frame. */
  #sent(): void {
    this.#vu.emit([{ metric: 'ws_msgs_sent', value: 1, tags: this.#tags }]);
  }

  /** Sends a ping; its pong gives a ws_ping sample and a pong event. */
  ping(): void {
    this.#assertOpen();
    const id = String(this.#pingCount++);
    this.#pings.set(id, performance.now());
    this.#ws!.ping(id, undefined, (err) => {
      if (!err) this.#sent();
    });
  }

  /** Starts the closing handshake: code 1000 or 3000-4999 (1000 by default), a reason of at most 123 bytes. */
  close(code?: unknown, reason?: unknown): void {
    if (this.#readyState === CLOSED || this.#readyState === CLOSING) return;
    const c = code === undefined ? 0 : Math.trunc(Number(code)) || 0;
    if (c !== 0 && c !== 1000 && !(c >= 3000 && c <= 4999))
      throw new Error(
        "InvalidAccessError: Failed to execute 'close' on 'WebSocket': " +
          `The close code must be either 1000, or between 3000 and 4999. ${c} is neither`,
      );
    const text = reason === undefined ? '' : String(reason);
    if (Buffer.byteLength(text) > 123)
      throw new Error(
        "SyntaxError: Failed to execute 'close' on 'WebSocket': The message must not be greater than 123 bytes",
      );
    this.#readyState = CLOSING;
    this.#closeCode = c || 1000;
    // Before the handshake ends there is no socket yet: k6 then closes once it opens (#connected).
    if (this.#ws) this.#closeFrame(this.#ws, text);
  }

  #closeFrame(ws: WsSocket, reason: string): void {
    ws.close(this.#closeCode, reason);
    this.#sent();
  }

  #assertOpen(): void {
    if (this.#readyState !== OPEN) throw new Error('InvalidStateError');
  }

  /** The handshake ended: samples, then open (and the socket's events) or error and close. */
  #connected(hs: Handshake, ownTags: Tags): void {
    // The iteration ended during the handshake: nothing more reaches the script.
    if (this.#readyState === CLOSED) {
      hs.socket?.terminate();
      return;
    }
    this.#hs = hs;
    this.#tags = startSession(this.#vu, ownTags, this.url, hs, { name: true });
    const ws = hs.socket;
    if (!ws) {
      emitSessionEnd(this.#vu, this.#tags, hs, false);
      this.#closed(hs.error);
      return;
    }
    this.#ws = ws;
    ws.on('message', (data: Buffer, isBinary: boolean) => this.#message(data, isBinary));
    ws.on('ping', () => this.#dispatch('ping', newEvent('ping', this)));
    ws.on('pong', (data: Buffer) => {
      const sent = this.#pings.get(data.toString());
      if (sent === undefined) logLine('WARN', `received pong for unknown ping ID ${data.toString()}`);
      else this.#vu.emit([{ metric: 'ws_ping', value: performance.now() - sent, tags: this.#tags }]);
      this.#dispatch('pong', newEvent('pong', this));
    });
    let lastError = '';
    ws.on('error', (err: Error) => {
      lastError = err.message;
    });
    ws.on('close', (code: number, reason: Buffer) => {
      if (this.#readyState === CLOSED) return;
      const peer = peerClose(code, reason, lastError);
      if (code !== 1005) {
        this.#closeCode = code;
        this.#closeReason = peer.reason;
      }
      this.#endSession();
      this.#closed(peer.error);
    });
    if (this.#readyState === CLOSING) {
      this.#closeFrame(ws, '');
      ws.resume();
      return;
    }
    this.#readyState = OPEN;
    this.#dispatch('open', newEvent('open', this));
    ws.resume();
  }

  #message(data: Buffer, isBinary: boolean): void {
    // k6 drops what arrives once the socket is closing.
    if (this.#readyState !== OPEN) return;
    this.#vu.emit([{ metric: 'ws_msgs_received', value: 1, tags: this.#tags }]);
    let payload: unknown;
    if (!isBinary) payload = data.toString('utf8');
    else if (this.#binaryType === 'arraybuffer') payload = new Uint8Array(data).buffer;
    else payload = new Blob([data]);
    this.#dispatch('message', newEvent('message', this, { data: payload, origin: this.url }));
  }

  /** k6's connectionClosedWithError: CLOSED, the error listeners (if any error), the close listeners, the end. */
  #closed(error: string): void {
    if (this.#readyState === CLOSED) return;
    this.#readyState = CLOSED;
    const ok =
      (error === '' || this.#dispatch('error', newEvent('error', this, { error }))) &&
      this.#dispatch(
        'close',
        newEvent('close', this, {
          ...(this.#closeCode !== 0 ? { code: this.#closeCode } : {}),
          reason: this.#closeReason,
        }),
      );
    if (ok) this.#release();
  }

  /** Calls the on* handler, then the listeners; a throw closes the socket and fails the iteration. */
  #dispatch(type: EventType, event: object): boolean {
    const on = this.#on.get(type);
    const all = on ? [on, ...(this.#listeners.get(type) ?? [])] : (this.#listeners.get(type) ?? []);
    for (const fn of all) {
      try {
        runInVu(this.#vu, () => fn(event));
      } catch (err) {
        this.#fail(type, err);
        return false;
      }
    }
    return true;
  }

  /** A listener threw: k6 cuts the connection and, unless it was an error or close listener, reports it closed. */
  #fail(type: EventType, err: unknown): void {
    this.#ws?.terminate();
    this.#endSession();
    if (type !== 'error' && type !== 'close' && this.#readyState !== CLOSED) {
      this.#readyState = CLOSED;
      this.#dispatch('error', newEvent('error', this, { error: String((err as Error)?.message ?? err) }));
      this.#dispatch('close', newEvent('close', this, { reason: this.#closeReason }));
    }
    this.#readyState = CLOSED;
    this.#release(err);
  }

  /** The iteration ended under the socket (interrupted, or a callback threw): close it as k6 does. */
  #interrupted(): void {
    if (this.#readyState === CLOSED) return;
    if (this.#readyState === OPEN) this.#ws?.close(1000);
    this.#readyState = CLOSED;
    // k6 drops what a VU records once its iteration's context has ended: only the wire bytes are counted.
    this.#endSession(false);
  }

  /** ws_session_duration (unless interrupted) and the wire bytes, once, when an opened socket ends. */
  #endSession(duration = true): void {
    if (this.#ended || !this.#ws || !this.#hs) return;
    this.#ended = true;
    emitSessionEnd(this.#vu, this.#tags, this.#hs, duration);
  }
}

export default { WebSocket, Blob };
