/**
 * Which client carries plaintext unary gRPC calls (k6/net/grpc invoke): the runtime's own HTTP/2
 * connection (grpc-unary.ts) or grpc-js, which carries streams, TLS and reflection. Runs always use the
 * default; only the benchmark that compares the two (bench/runtime/wire-vs-library.ts) switches, so the
 * comparison can be made again.
 */
export type WirePath = 'own' | 'library';

let current: WirePath = 'own';

/** The path new unary gRPC calls take. */
export function wirePath(): WirePath {
  return current;
}

/** Sets the path for unary gRPC calls made from now on (benchmarks only). */
export function setWirePath(path: WirePath): void {
  current = path;
}
