/**
 * The gRPC port: a TCP listener this server owns, handing each connection to grpc-js through grpc-js's public
 * connection injector (TLS, when asked, is grpc-js's, on the handed-over socket). Owning the socket lets the
 * server do what Triton's gRPC C++ does and grpc-js does not: send without Nagle delays (which hold small
 * replies on delayed ACKs), cap open connections at accept (a newcomer past the cap replacing the oldest
 * connection with no call in progress), and close connections that never send the HTTP/2 preface. grpc-js's HTTP/2 receive window (64 KiB per
 * stream) stays as grpc-js sets it: no public setting reaches it.
 */
import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { ConnectionSlots } from '../connection-slots.ts';
import { type ActiveCalls, connectionKey } from './active-calls.ts';
import { closeGrpc, listen } from '../listen.ts';
import type { TlsIdentity } from '../tls.ts';

/** A bound gRPC port and how to close it. */
export interface GrpcListener {
  port: number;
  /** Stops accepting, then shuts the grpc-js server down (`grace_ms` 0: cut every connection at once). */
  close(grace_ms?: number): Promise<void>;
}

/** How the gRPC port treats connections; every field has a default. */
export interface GrpcConnectionOptions {
  tls?: TlsIdentity;
  /**
   * Open connections; past it a newcomer takes the slot of the oldest that holds no call: one that has not sent
   * its preface, or (given `calls`) has no call in progress.
   */
  maxConnections?: number;
  /** Calls in progress per connection (the call interceptor's count). */
  calls?: ActiveCalls;
  /**
   * A connection that has not sent the HTTP/2 preface this long after it opened is closed (0: never).
   * @default 120000 (gRPC C++'s server handshake timeout: Triton 2.60 closes such connections after 120 s)
   */
  prefaceTimeout_ms?: number;
}

export const DEFAULT_PREFACE_TIMEOUT_MS = 120_000;

/** The client's HTTP/2 connection preface, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" (over TLS: as many bytes of handshake). */
const PREFACE_BYTES = 24;

/** Whether the peer sent at least a preface's worth of bytes (grpc-js reads the socket; its count still grows). */
function sentPreface(socket: net.Socket): boolean {
  return socket.bytesRead >= PREFACE_BYTES;
}

/** Listens on host:port for `server`'s connections; resolves once bound, with the port. */
export async function listenGrpc(
  server: grpc.Server,
  host: string,
  port: number,
  opts: GrpcConnectionOptions = {},
): Promise<GrpcListener> {
  const credentials = opts.tls
    ? grpc.ServerCredentials.createSsl(null, [
        { cert_chain: Buffer.from(opts.tls.cert), private_key: Buffer.from(opts.tls.key) },
      ])
    : grpc.ServerCredentials.createInsecure();
  const injector = server.createConnectionInjector(credentials);
  const prefaceTimeout_ms = opts.prefaceTimeout_ms ?? DEFAULT_PREFACE_TIMEOUT_MS;
  const slots =
    opts.maxConnections === undefined
      ? undefined
      : new ConnectionSlots(
          opts.maxConnections,
          (socket) =>
            !sentPreface(socket) ||
            (opts.calls !== undefined &&
              !opts.calls.busy(connectionKey(socket.remoteAddress, socket.remotePort))),
        );
  const tcp = net.createServer({ noDelay: true }, (socket) => {
    if (slots && !slots.admit(socket)) return;
    if (prefaceTimeout_ms > 0) {
      const deadline = setTimeout(() => {
        if (!sentPreface(socket)) socket.destroy();
      }, prefaceTimeout_ms);
      deadline.unref();
      socket.once('close', () => clearTimeout(deadline));
    }
    injector.injectConnection(socket);
  });
  // Node's own refusal at accept stays only as a bound on descriptors.
  if (opts.maxConnections !== undefined) tcp.maxConnections = 2 * opts.maxConnections;
  const bound = await listen(tcp, host, port, 'gRPC');
  return {
    port: bound,
    async close(grace_ms) {
      const stopped = new Promise<void>((resolve) => tcp.close(() => resolve()));
      await closeGrpc(server, grace_ms);
      await stopped;
    },
  };
}
