/**
 * One VU's HTTP connections, on undici (plain HTTP and HTTPS alike; a hand-written HTTP/1 client for plain
 * HTTP did not save client CPU consistently enough to keep: bench/figures/RESULTS.md, "Runtime: hand-written
 * wire vs libraries"): per origin a list of Clients of one socket each, so that every request knows its own socket. That gives k6's per-VU keep-alive (a connection is reused by the next
 * request of the same VU), exact wire byte counts (socket counters before/after) and k6's timing phases
 * (blocked, connecting, tls_handshaking, sending, waiting, receiving) from a monotonic clock.
 */
import { performance } from 'node:perf_hooks';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { buildConnector, Client } from 'undici';
import { RequestTimeoutError } from '../modules/http-errors.ts';
import { k6Timings, type Timings } from '../modules/http-timings.ts';
import type { WireRequest, WireResult } from './wire-types.ts';
import { type DialPolicy, OPEN_DIAL, policyConnector } from './dial-policy.ts';
import { type ClientTls, DEFAULT_CLIENT_TLS, tlsConnectOptions } from './tls-client.ts';
import { goStatusText } from './status-text.ts';
import { goCipherName } from './tls-options.ts';

/** k6 dials with a 30 s timeout; our own request timer usually fires first. */
const DIAL_TIMEOUT_MS = 30_000;
/** Go's transport keeps idle connections for 90 s; servers usually close them earlier. */
const IDLE_KEEP_ALIVE_MS = 90_000;

type Undici = typeof import('undici');
let undici: Promise<Undici> | undefined;
/**
 * undici, loaded by the first request: a script without k6/http requests never does, and loading it
 * costs a thread about 9 MiB of memory.
 */
const loadUndici = (): Promise<Undici> => (undici ??= import('undici'));

/**
 * Loads undici ahead of the first request (a script that imports k6/http, during init): loaded by the first
 * request instead, its ~70 ms counted in that iteration's iteration_duration. A failure shows at the first
 * request.
 */
export async function preloadHttpClient(): Promise<void> {
  await loadUndici().catch(() => {});
}

const retired = (): Promise<never> =>
  Promise.reject(new Error('the VU has been retired; its connections are closed'));

/** One connection of a VU to an origin and the timestamps of its latest dial. */
class Slot {
  readonly client: Client;
  busy = false;
  dead = false;
  socket: Socket | null = null;
  connectStart = -1;
  tcpEnd = -1;
  connectEnd = -1;

  constructor(lib: Undici, origin: string, connector: buildConnector.connector) {
    this.client = new lib.Client(origin, {
      pipelining: 1,
      // HTTP/2 when the TLS server picks it by ALPN, as Go's client (k6) does; plain HTTP stays HTTP/1.1 (no h2c).
      allowH2: true,
      keepAliveTimeout: IDLE_KEEP_ALIVE_MS,
      keepAliveMaxTimeout: IDLE_KEEP_ALIVE_MS,
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: (opts, callback) => {
        this.connectStart = performance.now();
        this.tcpEnd = -1;
        const socket: unknown = connector(opts, (...args) => {
          this.connectEnd = performance.now();
          if (!args[0]) this.socket = args[1];
          callback(...args);
        });
        // For TLS the connector calls back after the handshake; 'connect' marks the end of the TCP part.
        if (opts.protocol === 'https:' && socket instanceof EventEmitter) {
          socket.once('connect', () => (this.tcpEnd = performance.now()));
        }
      },
    });
  }
}

/** undici handler of one request: records the phase timestamps and collects the body. */
class Exchange {
  gotConn = -1;
  sentEnd = -1;
  firstByte = -1;
  baseWritten = 0;
  baseRead = 0;
  status = 0;
  statusText = '';
  rawHeaders: Buffer[] = [];
  chunks: Buffer[] = [];
  length_bytes = 0;
  abort: ((err?: Error) => void) | null = null;
  timer: NodeJS.Timeout | null = null;
  done = false;

  constructor(
    readonly slot: Slot,
    readonly t0: number,
    readonly keepBody: boolean,
    readonly https: boolean,
    readonly finish: (ex: Exchange, error: unknown) => void,
  ) {}

  onConnect(abort: (err?: Error) => void): void {
    this.abort = abort;
    this.gotConn = performance.now();
    const socket = this.slot.socket;
    if (socket) {
      this.baseWritten = socket.bytesWritten;
      this.baseRead = socket.bytesRead;
    }
  }
  onRequestSent(): void {
    this.sentEnd = performance.now();
  }
  onResponseStarted(): void {
    this.firstByte = performance.now();
  }
  onHeaders(status: number, rawHeaders: Buffer[], _resume: () => void, statusText: string): boolean {
    // 1xx informational responses are followed by the real one.
    if (status < 200) return true;
    this.status = status;
    this.statusText = statusText;
    this.rawHeaders = rawHeaders;
    return true;
  }
  onData(chunk: Buffer): boolean {
    this.length_bytes += chunk.length;
    if (this.keepBody) this.chunks.push(chunk);
    return true;
  }
  onComplete(): void {
    this.finish(this, null);
  }
  onError(err: Error): void {
    this.finish(this, err);
  }
  onUpgrade(): void {
    this.finish(this, new Error('unexpected protocol upgrade'));
  }

  /** k6's phases; a phase that never started (error) ends where the request ended. */
  timings(end: number): Timings {
    const slot = this.slot;
    const newConn = slot.connectStart >= this.t0;
    return k6Timings({
      t0: this.t0,
      connectStart: newConn ? slot.connectStart : -1,
      tcpEnd: this.https ? slot.tcpEnd : -1,
      connectEnd: slot.connectEnd,
      gotConn: this.gotConn,
      sentEnd: this.sentEnd,
      firstByte: this.firstByte,
      end,
    });
  }
}

/** k6's Response.proto: the protocol ALPN picked on the connection. */
function protoOf(socket: Socket | null): string {
  return socket instanceof TLSSocket && socket.alpnProtocol === 'h2' ? 'HTTP/2.0' : 'HTTP/1.1';
}

/** The negotiated TLS version and cipher as k6 names them (Go's crypto/tls constants). */
function tlsFacts(socket: Socket | null): { tlsVersion: string; tlsCipherSuite: string } {
  if (!(socket instanceof TLSSocket)) return { tlsVersion: '', tlsCipherSuite: '' };
  const protocol = socket.getProtocol() ?? '';
  return {
    tlsVersion: protocol.startsWith('TLSv') ? `tls${protocol.slice(4).padEnd(3, '.0')}` : '',
    tlsCipherSuite: goCipherName(socket.getCipher()?.standardName ?? ''),
  };
}

/** All connections of one VU, keyed by origin; close() ends them (VU retired or test over). */
export class VuConnections {
  readonly #slots = new Map<string, Slot[]>();
  /** One connector per host: each host has its own client certificate (tlsAuth). */
  readonly #connectors = new Map<string, buildConnector.connector>();
  #closed = false;

  constructor(
    private readonly tls: ClientTls = DEFAULT_CLIENT_TLS,
    /** k6's hosts, blockHostnames, blacklistIPs, dns and localIPs options. */
    private readonly dial: DialPolicy = OPEN_DIAL,
    /** This VU's source address (localIPs), or null. */
    private readonly localAddress: string | null = null,
  ) {}

  /** Sends one request on an idle connection of this VU (or a new one) and resolves with the result. */
  send(req: WireRequest): Promise<WireResult> {
    if (this.#closed) return retired();
    return loadUndici().then((lib) => this.#dispatch(lib, req));
  }

  /** Sends one request through undici. */
  #dispatch(lib: Undici, req: WireRequest): Promise<WireResult> {
    if (this.#closed) return retired();
    const host = req.url.hostname;
    const secure = req.url.protocol === 'https:';
    const key = secure ? `https:${host}` : host;
    let connector = this.#connectors.get(key);
    if (!connector) {
      connector = lib.buildConnector({
        timeout: DIAL_TIMEOUT_MS,
        allowH2: true,
        // TLS settings (the trusted roots read from SSL_CERT_FILE/SSL_CERT_DIR, about 90 ms once on Debian's
        // 290-file folder) only where a connection will use them: a plain http:// test never reads them.
        ...(secure ? tlsConnectOptions(this.tls, host) : {}),
      });
      connector = policyConnector(connector, this.dial, this.localAddress);
      this.#connectors.set(key, connector);
    }
    const slot = this.#acquire(lib, req.url.origin, connector);
    const t0 = performance.now();
    return new Promise<WireResult>((resolve) => {
      const finish = (ex: Exchange, error: unknown): void => {
        if (ex.done) return;
        ex.done = true;
        const end = performance.now();
        if (ex.timer) clearTimeout(ex.timer);
        const socket = slot.socket;
        const sent_bytes = socket && ex.gotConn >= 0 ? socket.bytesWritten - ex.baseWritten : 0;
        const received_bytes = socket && ex.gotConn >= 0 ? socket.bytesRead - ex.baseRead : 0;
        slot.busy = false;
        const proto = protoOf(socket);
        resolve({
          status: error ? 0 : ex.status,
          // HTTP/2 has no reason phrase; Go's client puts its own text there.
          statusText: error ? '' : proto === 'HTTP/2.0' ? goStatusText(ex.status) : ex.statusText,
          proto,
          rawHeaders: error ? () => [] : () => ex.rawHeaders,
          setCookie: !error && ex.rawHeaders.some((h, i) => i % 2 === 0 && /^set-cookie$/i.test(String(h))),
          chunks: error ? [] : ex.chunks,
          bodyLength_bytes: error ? 0 : ex.length_bytes,
          timings: ex.timings(end),
          sent_bytes,
          received_bytes,
          remoteIp: socket?.remoteAddress ?? '',
          remotePort: socket?.remotePort ?? 0,
          ...tlsFacts(socket),
          error,
        });
      };
      const ex = new Exchange(slot, t0, req.responseType !== 'none', req.url.protocol === 'https:', finish);
      if (req.timeout_ms > 0 && Number.isFinite(req.timeout_ms)) {
        ex.timer = setTimeout(() => this.#timeout(ex), req.timeout_ms);
      }
      slot.client.dispatch(
        {
          path: req.url.pathname + req.url.search,
          method: req.method as 'GET',
          headers: req.headers,
          body: req.body,
          reset: !req.reuseConnection,
          // Requests with a body must not be retried or pipelined behind others.
          idempotent: false,
        },
        ex,
      );
    });
  }

  /** Closes every connection of this VU. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#slots.values()].flat();
    this.#slots.clear();
    await Promise.all(all.map((s) => s.client.destroy().catch(() => undefined)));
  }

  /** Number of open-or-idle connection slots, for tests and debugging. */
  get connectionCount(): number {
    let n = 0;
    for (const slots of this.#slots.values()) n += slots.length;
    return n;
  }

  #acquire(lib: Undici, origin: string, connector: buildConnector.connector): Slot {
    let slots = this.#slots.get(origin);
    if (!slots) {
      slots = [];
      this.#slots.set(origin, slots);
    }
    for (const s of slots) {
      if (!s.busy && !s.dead) {
        s.busy = true;
        return s;
      }
    }
    const slot = new Slot(lib, origin, connector);
    slot.busy = true;
    slots.push(slot);
    return slot;
  }

  #timeout(ex: Exchange): void {
    const err = new RequestTimeoutError();
    if (ex.abort) {
      ex.abort(err);
      return;
    }
    // Still dialing: undici cannot abort a queued request, so drop the whole connection slot.
    const slot = ex.slot;
    slot.dead = true;
    for (const [origin, slots] of this.#slots) {
      const i = slots.indexOf(slot);
      if (i >= 0) {
        slots.splice(i, 1);
        if (slots.length === 0) this.#slots.delete(origin);
      }
    }
    ex.onError(err);
    slot.client.destroy(err).catch(() => undefined);
  }
}
