/**
 * k6's HTTP error codes (k6 docs "Error codes", lib/netext/httpext/error_codes.go): maps the errors
 * Node and undici raise to the code and the short message k6 puts in `error_code` and `error`.
 */

/** A k6 error: numeric code (1000-1999) and the message scripts see in Response.error. */
export interface K6HttpError {
  code: number;
  message: string;
  /** The longer text k6's "Request Failed" warning gives, when it differs from `message`. */
  detail?: string;
}

export const ERR_GENERIC = 1000;
export const ERR_INVALID_URL = 1020;
export const ERR_REQUEST_TIMEOUT = 1050;

/** Raised by our own request timer so the mapping can tell it from undici's timeouts. */
export class RequestTimeoutError extends Error {
  readonly code = 'K6_REQUEST_TIMEOUT';
  constructor() {
    super('request timeout');
  }
}

/** Node's codes for a certificate whose authority is not trusted (Go: x509 unknown authority). */
export const TLS_UNKNOWN_AUTHORITY = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);

/** Go's texts of the TLS alerts (crypto/tls alert.go), by alert number. */
const GO_ALERTS: Record<number, string> = {
  0: 'close notify',
  10: 'unexpected message',
  20: 'bad record MAC',
  21: 'decryption failed',
  22: 'record overflow',
  30: 'decompression failure',
  40: 'handshake failure',
  42: 'bad certificate',
  43: 'unsupported certificate',
  44: 'revoked certificate',
  45: 'expired certificate',
  46: 'unknown certificate',
  47: 'illegal parameter',
  48: 'unknown certificate authority',
  49: 'access denied',
  50: 'error decoding message',
  51: 'error decrypting message',
  70: 'protocol version not supported',
  71: 'insufficient security level',
  80: 'internal error',
  86: 'inappropriate fallback',
  90: 'user canceled',
  100: 'no renegotiation',
  109: 'missing extension',
  110: 'unsupported extension',
  112: 'unrecognized name',
  116: 'certificate required',
  120: 'no application protocol',
};

/**
 * An alert the server sent (OpenSSL: "SSL alert number 70"): Go reports it as a net.OpError without a
 * network, which k6 files under 1010, in Go's words.
 */
function remoteAlert(message: string): K6HttpError | null {
  const m = /SSL alert number (\d+)/.exec(message);
  if (!m) return null;
  const n = Number(m[1]);
  return { code: 1010, message: `remote error: tls: ${GO_ALERTS[n] ?? `alert(${n})`}` };
}

/** Finds the innermost error that carries a Node `code` (undici wraps socket errors in `cause`). */
function errorWithCode(err: unknown): { code?: string; message: string; syscall?: string } {
  let cur = err as { code?: string; message?: string; syscall?: string; cause?: unknown } | undefined;
  for (let depth = 0; cur && depth < 5; depth++) {
    if (cur.code && !cur.code.startsWith('UND_ERR_SOCKET')) {
      return { code: cur.code, message: cur.message ?? String(cur), syscall: cur.syscall };
    }
    if (!cur.cause) break;
    cur = cur.cause as typeof cur;
  }
  const top = err as { code?: string; message?: string } | undefined;
  return { code: top?.code, message: top?.message ?? String(err) };
}

/**
 * An answer that is not HTTP/1.x (undici's HTTPParserError, the bytes in `data`) in Go's words, which
 * k6 reports: `malformed HTTP response "SSH-2.0-OpenSSH"`.
 */
function malformedResponse(err: unknown): string | null {
  const e = err as { name?: string; data?: unknown } | undefined;
  if (e?.name !== 'HTTPParserError') return null;
  const line = typeof e.data === 'string' ? e.data.split('\r\n')[0]! : '';
  return `malformed HTTP response ${JSON.stringify(line.slice(0, 40))}`;
}

/** Maps an error thrown while making a request to k6's error code and message. */
export function k6ErrorFor(err: unknown): K6HttpError {
  const malformed = malformedResponse(err);
  if (malformed) return { code: ERR_GENERIC, message: malformed };
  const { code, message, syscall } = errorWithCode(err);
  const op = syscall === 'write' ? 'write' : 'read';
  switch (code) {
    case 'K6_REQUEST_TIMEOUT':
      return { code: ERR_REQUEST_TIMEOUT, message: 'request timeout' };
    case 'K6_BLOCKED_HOSTNAME':
      return { code: 1111, message: 'hostname is blocked', detail: message };
    case 'K6_BLACKLISTED_IP':
      return { code: 1110, message: 'ip is blacklisted', detail: message };
    case 'ECONNREFUSED':
      return { code: 1212, message: 'dial: connection refused' };
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return { code: 1211, message: 'dial: i/o timeout' };
    case 'ECONNRESET':
      return { code: 1220, message: `${op}: connection reset by peer` };
    case 'EPIPE':
      return { code: 1201, message: 'write: broken pipe' };
    case 'ENOTFOUND':
      return { code: 1101, message: 'lookup: no such host' };
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return { code: 1100, message };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
      return { code: 1213, message: `dial: ${message}` };
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return { code: 1311, message: "x509: certificate doesn't match hostname" };
    case 'ERR_INVALID_URL':
      return { code: ERR_INVALID_URL, message };
    default:
      if (code && TLS_UNKNOWN_AUTHORITY.has(code)) return { code: 1310, message: 'x509: unknown authority' };
      if (code?.startsWith('ERR_SSL') || code?.startsWith('ERR_TLS'))
        return remoteAlert(message) ?? { code: 1300, message };
      // undici's "other side closed" is Go's io.EOF: k6 reports it as a generic error.
      if (code === 'UND_ERR_SOCKET' || code === 'K6_EOF') return { code: ERR_GENERIC, message: 'EOF' };
      return { code: ERR_GENERIC, message };
  }
}
