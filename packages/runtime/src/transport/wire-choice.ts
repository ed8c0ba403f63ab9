/**
 * Which client carries plaintext gRPC calls and streams (k6/net/grpc invoke and Stream): the runtime's own
 * HTTP/2 connection (grpc-unary.ts) or grpc-js, which carries TLS and reflection. Runs always use the
 * default; only the benchmarks that compare the two (bench/runtime/wire-vs-library.ts,
 * bench/genai/stream-open.ts) switch, so the comparison can be made again.
 */
export type WirePath = 'own' | 'library';

let current: WirePath = 'own';

/** The path new gRPC connections' calls and streams take. */
export function wirePath(): WirePath {
  return current;
}

/** Sets the path for gRPC connections made from now on (benchmarks only). */
export function setWirePath(path: WirePath): void {
  current = path;
}
