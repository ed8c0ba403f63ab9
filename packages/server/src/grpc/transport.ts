/**
 * HTTP/2 transport settings grpc-js does not expose. Triton's gRPC server (gRPC C++) grows its
 * receive window and sends without Nagle delays; grpc-js keeps HTTP/2's 64 KiB window and Nagle
 * on, which stalls 600 KB tensors on round trips and small replies on delayed ACKs. We reach the
 * underlying http2 servers to match Triton, and let a StreamTaker (model-infer.ts) answer a stream
 * before grpc-js sees it; if grpc-js changes its internals this does nothing and grpc-js answers all.
 */
import type { Http2Server, IncomingHttpHeaders, ServerHttp2Session, ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';
import type * as grpc from '@grpc/grpc-js';
import type { StreamTaker } from './model-infer.ts';

/** HTTP/2 receive window per stream and connection. */
export const RECEIVE_WINDOW_BYTES = 16 * 1024 * 1024;

const tuned = new WeakSet<Http2Server>();

/** What tuneGrpcTransport changes beyond the window and Nagle. */
export interface TransportOptions {
  /** Open connections at most (past the cap, Node closes them at accept). */
  maxConnections?: number;
  /** Offered every new stream before grpc-js. */
  takeStream?: StreamTaker;
}

/**
 * Opens a large receive window and turns Nagle off on every connection of a bound gRPC server, caps its
 * open connections, and puts `takeStream` ahead of grpc-js. Safe to call again after a rebind.
 */
export function tuneGrpcTransport(server: grpc.Server, opts: TransportOptions = {}): void {
  const { maxConnections, takeStream } = opts;
  const http2Servers = (server as unknown as { http2Servers?: Map<Http2Server, unknown> }).http2Servers;
  if (!(http2Servers instanceof Map)) return;
  for (const h2 of http2Servers.keys()) {
    if (tuned.has(h2)) continue;
    tuned.add(h2);
    if (maxConnections !== undefined) h2.maxConnections = maxConnections;
    h2.on('connection', (socket: Socket) => socket.setNoDelay(true));
    h2.on('session', (session: ServerHttp2Session) => {
      session.settings({ initialWindowSize: RECEIVE_WINDOW_BYTES });
      session.setLocalWindowSize(RECEIVE_WINDOW_BYTES);
    });
    if (takeStream) putFirst(h2, takeStream);
  }
}

/**
 * Routes each stream to `take`, and those it leaves to grpc-js's own listener. grpc-js's per-stream
 * bookkeeping then skips taken streams; it only feeds the idle-connection timer, off unless
 * grpc.max_connection_idle_ms is set, which this server does not set.
 */
function putFirst(h2: Http2Server, take: StreamTaker): void {
  const grpcJs = h2.listeners('stream');
  // One listener is what grpc-js registers; anything else is internals this code does not know.
  if (grpcJs.length !== 1) return;
  const handOn = grpcJs[0] as (...args: unknown[]) => void;
  h2.removeAllListeners('stream');
  h2.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, ...rest: unknown[]) => {
    if (!take(stream, headers)) handOn.call(h2, stream, headers, ...rest);
  });
}
