/** What a unary gRPC call ends with, shared by the channel (grpc-unary.ts) and its connection (http2-connection.ts). */
import type { IncomingHttpHeaders } from 'node:http2';

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

/** An outcome without response: a status code and its details. */
export function failure(code: number, details: string): UnaryOutcome {
  return { code, details, headers: null, trailers: {}, reply: null };
}
