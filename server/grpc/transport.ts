/**
 * HTTP/2 transport settings grpc-js does not expose. Triton's gRPC server (gRPC C++) grows its
 * receive window and sends without Nagle delays; grpc-js keeps HTTP/2's 64 KiB window and Nagle
 * on, which stalls 600 KB tensors on round trips and small replies on delayed ACKs. We reach the
 * underlying http2 servers to match Triton; if grpc-js changes its internals this does nothing.
 */
import type { Http2Server, ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import type * as grpc from '@grpc/grpc-js';

/** HTTP/2 receive window per stream and connection. */
export const RECEIVE_WINDOW_BYTES = 16 * 1024 * 1024;

const tuned = new WeakSet<Http2Server>();

/**
 * Opens a large receive window and turns Nagle off on every connection of a bound gRPC server, and caps its
 * open connections (past the cap, Node closes them at accept). Safe to call again after a rebind.
 */
export function tuneGrpcTransport(server: grpc.Server, maxConnections?: number): void {
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
  }
}
