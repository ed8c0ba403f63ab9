/** Binding and closing the frontends' ports, with one-line errors naming the port and the fix. */
import type http from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import type * as grpc from '@grpc/grpc-js';

/** How long a graceful close waits for connections and streams left open by clients. */
export const CLOSE_GRACE_MS = 2000;

/** Listens on host:port; resolves with the bound port. */
export function listen(server: Server, host: string, port: number, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(
        new Error(
          `cannot listen for ${what} on ${host}:${port}: ${err.code ?? err.message}; pick another port (0 = any free port)`,
        ),
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Closes an HTTP server after its open requests finish; idle keep-alive sockets close at once, the rest after
 * the grace period (`grace_ms` 0: every connection at once, as a crash would).
 */
export function closeHttp(server: http.Server, grace_ms = CLOSE_GRACE_MS): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), grace_ms);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
    if (grace_ms === 0) server.closeAllConnections();
  });
}

/** Shuts a gRPC server down; open streams (ModelStreamInfer) are cut after the grace period. */
export function closeGrpc(server: grpc.Server, grace_ms = CLOSE_GRACE_MS): Promise<void> {
  return new Promise<void>((resolve) => {
    if (grace_ms === 0) {
      server.forceShutdown();
      resolve();
      return;
    }
    const force = setTimeout(() => server.forceShutdown(), grace_ms);
    force.unref();
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}
