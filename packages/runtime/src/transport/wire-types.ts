/** A request as the HTTP transport sends it and what comes back, shared by every connection kind. */
import type { Timings } from '../modules/http-timings.ts';

/** How the body of a response is kept: k6's responseType. */
export type ResponseType = 'text' | 'binary' | 'none';

/** One request as the transport sends it (already validated). */
export interface WireRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
  timeout_ms: number;
  responseType: ResponseType;
  /** False for k6's noConnectionReuse: the connection is closed after the response. */
  reuseConnection: boolean;
}

/** What came back: the response (status 0 when none) or the error, plus timings and wire bytes. */
export interface WireResult {
  status: number;
  statusText: string;
  /** k6's Response.proto: "HTTP/2.0" when ALPN picked h2, else "HTTP/1.1". */
  proto: string;
  /** The raw header list, made when asked: name, value, name, value... */
  rawHeaders: () => ReadonlyArray<Buffer | string>;
  /** The response has a Set-Cookie header: its headers are worth reading for the cookie jar. */
  setCookie: boolean;
  /** Body chunks (empty for responseType 'none'). */
  chunks: Buffer[];
  bodyLength_bytes: number;
  timings: Timings;
  sent_bytes: number;
  received_bytes: number;
  remoteIp: string;
  remotePort: number;
  /** k6's tls_version ("tls1.3") and Go's name of the cipher suite; empty for plain HTTP. */
  tlsVersion: string;
  tlsCipherSuite: string;
  error: unknown;
}
