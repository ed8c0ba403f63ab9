/**
 * Unary gRPC calls for k6/net/grpc's invoke on plaintext connections. A unary call is one HTTP/2 stream:
 * headers, one length-prefixed message, then the response message and the grpc-status trailer. grpc-js
 * adds channels, resolvers, interceptors and filters around that, and node:http2 a Duplex per stream:
 * together about twice the client CPU per MNIST-size call of the lean HTTP/2 connection used here
 * (http2-connection.ts; bench/fidelity/HISTORY.md), and a load generator's client CPU is what it cannot
 * spare. k6's Stream runs here too (stream()): grpc-js's set-up of a new stream was most of what the client
 * added to a streamed request's first response (bench/genai/RESULTS.md). TLS and reflection stay on grpc-js.
 */
import * as grpcjs from '@grpc/grpc-js';
import { encodeHeaders } from '../wire/hpack.ts';
import { Http2Connection, type StreamCall, type StreamListener } from './http2-connection.ts';
import { failure, type UnaryOutcome } from './unary-outcome.ts';

/** Options of a unary channel. */
export interface UnaryChannelOptions {
  /** HTTP/2 receive window, bytes. */
  window_bytes: number;
  /** Largest response message accepted. @default 4 MiB, gRPC's default */
  maxReceive_bytes?: number;
  userAgent: string;
}

/** One HTTP/2 connection to a gRPC server, carrying unary calls. */
export class UnaryChannel {
  readonly #address: string;
  readonly #options: UnaryChannelOptions;
  #conn: Http2Connection | null = null;
  /** The connection's wire bytes already reported by takeWireBytes. */
  #reported = { written: 0, read: 0 };
  /**
   * Request header blocks per metadata object, timeout and method path: a frozen params object's
   * metadata is reused, and calls without metadata share one (grpc-call.ts).
   */
  readonly #heads = new WeakMap<grpcjs.Metadata, Map<string, Buffer>>();

  constructor(address: string, options: UnaryChannelOptions) {
    this.#address = address;
    this.#options = options;
  }

  /** Resolves when the connection is up: a new connection after GOAWAY, a close, or an error. */
  ready(): Promise<void> {
    const conn = this.#conn;
    if (conn && !conn.dead) return conn.ready;
    const [host, port] = splitAddress(this.#address);
    const next = new Http2Connection(host, port, {
      window_bytes: this.#options.window_bytes,
      maxReceive_bytes: this.#options.maxReceive_bytes ?? DEFAULT_MAX_RECEIVE_BYTES,
    });
    this.#conn = next;
    this.#reported = { written: 0, read: 0 };
    return next.ready;
  }

  /**
   * Sends one message (encoded, unprefixed) on `path`; resolves with the status, never rejects. A
   * connected connection is used without waiting a turn.
   */
  async call(
    path: string,
    message: Buffer,
    metadata: grpcjs.Metadata,
    timeout_ms: number,
  ): Promise<UnaryOutcome> {
    let conn = this.#conn;
    if (!conn || conn.dead || !conn.connected) {
      try {
        await this.ready();
      } catch (err) {
        return failure(grpcjs.status.UNAVAILABLE, `connection error: ${(err as Error).message}`);
      }
      conn = this.#conn!;
    }
    return conn.call(this.#head(path, metadata, timeout_ms), message, timeout_ms);
  }

  /**
   * Opens a streaming call on `path` (k6's Stream). Usable before the connection is up: what is written
   * waits in the socket; a dial that fails ends the stream with UNAVAILABLE.
   */
  stream(path: string, metadata: grpcjs.Metadata, timeout_ms: number, listener: StreamListener): StreamCall {
    if (!this.#conn || this.#conn.dead) this.ready().catch(() => undefined);
    return this.#conn!.stream(this.#head(path, metadata, timeout_ms), timeout_ms, listener);
  }

  /**
   * The HPACK block of a call's request headers, built once per metadata object, path and timeout: the
   * encoder never indexes, so a block can be reused.
   */
  #head(path: string, metadata: grpcjs.Metadata, timeout_ms: number): Buffer {
    let byPath = this.#heads.get(metadata);
    if (!byPath) {
      byPath = new Map();
      this.#heads.set(metadata, byPath);
    }
    const key = `${timeout_ms} ${path}`;
    let block = byPath.get(key);
    if (!block) {
      // One object first, so metadata naming a header the call sets gives way to the call's value.
      const headers: Record<string, string | string[] | number | undefined> = {
        ...metadata.toHttp2Headers(),
        ':method': 'POST',
        ':path': path,
        ':authority': this.#address,
        ':scheme': 'http',
        'content-type': 'application/grpc',
        te: 'trailers',
        'user-agent': this.#options.userAgent,
        ...(timeout_ms > 0 ? { 'grpc-timeout': `${Math.ceil(timeout_ms)}m` } : {}),
      };
      const fields = headerFields(headers);
      block = encodeHeaders(fields);
      byPath.set(key, block);
    }
    return block;
  }

  /**
   * The connection's wire bytes since the last call of this method: each call reports what the
   * connection sent and read meanwhile (its frames and headers, the preface on the first), so the
   * samples add up to the connection's traffic, as k6 counts it.
   */
  takeWireBytes(): { sent: number; received: number } {
    const now = this.#conn?.wireBytes();
    if (!now) return { sent: 0, received: 0 };
    const out = { sent: now.written - this.#reported.written, received: now.read - this.#reported.read };
    this.#reported = now;
    return out;
  }

  /** Closes the connection. */
  close(): void {
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
function headerFields(headers: Record<string, string | string[] | number | undefined>): [string, string][] {
  const pseudo: [string, string][] = [];
  const regular: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const list = name.startsWith(':') ? pseudo : regular;
    for (const v of Array.isArray(value) ? value : [value]) list.push([name.toLowerCase(), String(v)]);
  }
  return [...pseudo, ...regular];
}
