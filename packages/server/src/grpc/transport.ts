/**
 * The gRPC port: a TCP listener this server owns, handing each connection to grpc-js through grpc-js's public
 * connection injector (TLS, when asked, is grpc-js's, on the handed-over socket). Owning the socket lets the
 * server do what Triton's gRPC C++ does and grpc-js does not: send without Nagle delays (which hold small
 * replies on delayed ACKs) and cap open connections at accept. grpc-js's HTTP/2 receive window (64 KiB per
 * stream) stays as grpc-js sets it: no public setting reaches it.
 */
import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { closeGrpc, listen } from '../listen.ts';
import type { TlsIdentity } from '../tls.ts';

/** A bound gRPC port and how to close it. */
export interface GrpcListener {
  port: number;
  /** Stops accepting, then shuts the grpc-js server down (`grace_ms` 0: cut every connection at once). */
  close(grace_ms?: number): Promise<void>;
}

/** Listens on host:port for `server`'s connections; resolves once bound, with the port. */
export async function listenGrpc(
  server: grpc.Server,
  host: string,
  port: number,
  opts: { tls?: TlsIdentity; maxConnections?: number } = {},
): Promise<GrpcListener> {
  const credentials = opts.tls
    ? grpc.ServerCredentials.createSsl(null, [
        { cert_chain: Buffer.from(opts.tls.cert), private_key: Buffer.from(opts.tls.key) },
      ])
    : grpc.ServerCredentials.createInsecure();
  const injector = server.createConnectionInjector(credentials);
  const tcp = net.createServer({ noDelay: true }, (socket) => injector.injectConnection(socket));
  if (opts.maxConnections !== undefined) tcp.maxConnections = opts.maxConnections;
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
