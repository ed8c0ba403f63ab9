/**
 * Unary gRPC calls on node:http2 alone, for k6/net/grpc's invoke on plaintext connections. A unary
 * call is one HTTP/2 stream: headers, one length-prefixed message, then the response message and the
 * grpc-status trailer. grpc-js adds channels, resolvers, interceptors and filters around that, which
 * cost about twice the CPU per MNIST-size call (bench/fidelity/raw-clients.ts: grpc-js against raw
 * http2 on the same server); a load generator's client CPU is what it cannot spare. Streams, TLS and
 * reflection stay on grpc-js. The calls go over the lean HTTP/2 client of http2-connection.ts, or over
 * node:http2 with K6_TRITON_GRPC_CLIENT=node-http2 (read at start-up, so the two can be compared).
 */
import {
  type ClientHttp2Session,
  connect,
  constants,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http2';
import * as grpcjs from '@grpc/grpc-js';
import { encodeHeaders } from './hpack.ts';
import { decodeMessage, failure, Http2Connection } from './http2-connection.ts';

/** node:http2 instead of the lean client (http2-connection.ts). */
const NODE_HTTP2 = process.env['K6_TRITON_GRPC_CLIENT'] === 'node-http2';

/** What a unary call ended with: grpc-js's status codes, the HTTP/2 headers as they arrived. */
export interface UnaryOutcome {
  code: number;
  details: string;
  /** The response headers; null for a trailers-only answer. */
  headers: IncomingHttpHeaders | null;
  /** The trailers (a trailers-only answer's headers). */
  trailers: IncomingHttpHeaders;
  /** The response message's bytes (without the 5-byte prefix), when one arrived. */
  reply: Buffer | null;
}

/** Options of a unary channel. */
export interface UnaryChannelOptions {
  /** HTTP/2 receive window, bytes. */
  window_bytes: number;
  /** Largest response message accepted. @default 4 MiB, gRPC's default */
  maxReceive_bytes?: number;
  userAgent: string;
}

/** A call's request headers, as node:http2 takes them and as one HPACK block for the lean client. */
interface RequestHead {
  headers: OutgoingHttpHeaders;
  block: Buffer | null;
}

const { HTTP2_HEADER_METHOD, HTTP2_HEADER_PATH, HTTP2_HEADER_AUTHORITY, HTTP2_HEADER_SCHEME } = constants;

/** One HTTP/2 connection to a gRPC server, carrying unary calls. */
export class UnaryChannel {
  readonly #address: string;
  readonly #options: UnaryChannelOptions;
  #session: ClientHttp2Session | null = null;
  #connected: Promise<void> | null = null;
  #conn: Http2Connection | null = null;
  /**
   * Request headers per metadata object and method path: a frozen params object's metadata is reused,
   * and calls without metadata share one (grpc-call.ts).
   */
  readonly #heads = new WeakMap<grpcjs.Metadata, Map<string, RequestHead>>();

  constructor(address: string, options: UnaryChannelOptions) {
    this.#address = address;
    this.#options = options;
  }

  /** Resolves when the connection is up (a new one is opened after the last one closed). */
  ready(): Promise<void> {
    if (!NODE_HTTP2) return this.#leanReady();
    if (this.#session && !this.#session.closed && !this.#session.destroyed && this.#connected)
      return this.#connected;
    const session = connect(`http://${this.#address}`, {
      settings: { initialWindowSize: this.#options.window_bytes },
    });
    this.#session = session;
    this.#connected = new Promise<void>((resolve, reject) => {
      session.once('connect', () => {
        session.setLocalWindowSize(this.#options.window_bytes);
        resolve();
      });
      session.once('error', (err) => reject(err));
    });
    session.on('error', () => undefined);
    session.once('close', () => {
      if (this.#session === session) this.#session = null;
    });
    return this.#connected;
  }

  /** The lean connection's ready(): a new connection after GOAWAY, a close, or an error. */
  #leanReady(): Promise<void> {
    const conn = this.#conn;
    if (conn && !conn.dead) return conn.ready;
    const [host, port] = splitAddress(this.#address);
    const next = new Http2Connection(host, port, {
      window_bytes: this.#options.window_bytes,
      maxReceive_bytes: this.#options.maxReceive_bytes ?? DEFAULT_MAX_RECEIVE_BYTES,
    });
    this.#conn = next;
    return next.ready;
  }

  /** Sends one message (encoded, unprefixed) on `path`; resolves with the status, never rejects. */
  async call(
    path: string,
    message: Buffer,
    metadata: grpcjs.Metadata,
    timeout_ms: number,
  ): Promise<UnaryOutcome> {
    if (!NODE_HTTP2) return this.#leanCall(path, message, metadata, timeout_ms);
    try {
      await this.ready();
    } catch (err) {
      return failure(grpcjs.status.UNAVAILABLE, `connection error: ${(err as Error).message}`);
    }
    const session = this.#session!;
    const headers = this.#head(path, metadata, timeout_ms).headers;
    const maxReceive = this.#options.maxReceive_bytes ?? DEFAULT_MAX_RECEIVE_BYTES;
    return new Promise<UnaryOutcome>((resolve) => {
      let responseHeaders: IncomingHttpHeaders | null = null;
      let trailers: IncomingHttpHeaders | null = null;
      const chunks: Buffer[] = [];
      let received = 0;
      let ended = false;
      let local: UnaryOutcome | null = null;
      const stream = session.request(headers, { endStream: false });
      const timer =
        timeout_ms > 0
          ? setTimeout(() => {
              local = failure(grpcjs.status.DEADLINE_EXCEEDED, 'Deadline exceeded');
              stream.close(constants.NGHTTP2_CANCEL);
            }, timeout_ms)
          : null;
      stream.on('response', (h) => (responseHeaders = h));
      stream.on('trailers', (t) => (trailers = t));
      stream.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxReceive + 5 && !local) {
          local = failure(
            grpcjs.status.RESOURCE_EXHAUSTED,
            `Received message larger than max (${received - 5} vs. ${maxReceive})`,
          );
          stream.close(constants.NGHTTP2_CANCEL);
          return;
        }
        chunks.push(chunk);
      });
      stream.on('end', () => (ended = true));
      stream.on('error', () => undefined);
      stream.on('close', () => {
        if (timer) clearTimeout(timer);
        if (local) return resolve(local);
        // A trailers-only answer (errors) carries the status in its headers.
        const status = trailers ?? responseHeaders;
        const code = Number(status?.['grpc-status']);
        if (!ended || !Number.isInteger(code)) {
          const rst = stream.rstCode;
          return resolve(
            failure(
              grpcjs.status.UNAVAILABLE,
              `stream closed before a status (HTTP/2 code ${rst}${responseHeaders ? '' : ', no response'})`,
            ),
          );
        }
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        const reply = body.length >= 5 ? body.subarray(5, 5 + body.readUInt32BE(1)) : null;
        resolve({
          code,
          details: decodeMessage(status?.['grpc-message']),
          headers: trailers ? responseHeaders : null,
          trailers: status ?? {},
          reply,
        });
      });
      const prefix = Buffer.alloc(5);
      prefix.writeUInt32BE(message.length, 1);
      stream.write(prefix);
      stream.end(message);
    });
  }

  /** A call on the lean connection; a connected one is used without waiting a turn. */
  async #leanCall(
    path: string,
    message: Buffer,
    metadata: grpcjs.Metadata,
    timeout_ms: number,
  ): Promise<UnaryOutcome> {
    let conn = this.#conn;
    if (!conn || conn.dead || !conn.connected) {
      try {
        await this.#leanReady();
      } catch (err) {
        return failure(grpcjs.status.UNAVAILABLE, `connection error: ${(err as Error).message}`);
      }
      conn = this.#conn!;
    }
    const head = this.#head(path, metadata, timeout_ms);
    head.block ??= encodeHeaders(headerFields(head.headers));
    return conn.call(head.block, message, timeout_ms);
  }

  /**
   * The request headers of a call, built once per metadata object, path and timeout: node:http2 copies
   * them into a header list of its own, and the lean client's HPACK block never indexes, so both can be
   * reused.
   */
  #head(path: string, metadata: grpcjs.Metadata, timeout_ms: number): RequestHead {
    let byPath = this.#heads.get(metadata);
    if (!byPath) {
      byPath = new Map();
      this.#heads.set(metadata, byPath);
    }
    const key = `${timeout_ms} ${path}`;
    let head = byPath.get(key);
    if (!head) {
      const headers = {
        ...metadata.toHttp2Headers(),
        [HTTP2_HEADER_METHOD]: 'POST',
        [HTTP2_HEADER_PATH]: path,
        [HTTP2_HEADER_AUTHORITY]: this.#address,
        [HTTP2_HEADER_SCHEME]: 'http',
        'content-type': 'application/grpc',
        te: 'trailers',
        'user-agent': this.#options.userAgent,
        ...(timeout_ms > 0 ? { 'grpc-timeout': `${Math.ceil(timeout_ms)}m` } : {}),
      };
      head = { headers, block: null };
      byPath.set(key, head);
    }
    return head;
  }

  /** Closes the connection. */
  close(): void {
    this.#session?.close();
    this.#session = null;
    this.#conn?.close();
    this.#conn = null;
  }
}

/** gRPC's default largest message. */
const DEFAULT_MAX_RECEIVE_BYTES = 4 * 1024 * 1024;

/** Host and port of "host:port" or "[v6]:port". */
function splitAddress(address: string): [string, number] {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon);
  return [host.startsWith('[') ? host.slice(1, -1) : host, Number(address.slice(colon + 1))];
}

/** Header fields in order, pseudo-headers first (HTTP/2 requires it), one per value of a list. */
function headerFields(headers: OutgoingHttpHeaders): [string, string][] {
  const pseudo: [string, string][] = [];
  const regular: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const list = name.startsWith(':') ? pseudo : regular;
    for (const v of Array.isArray(value) ? value : [value]) list.push([name.toLowerCase(), String(v)]);
  }
  return [...pseudo, ...regular];
}
