/**
 * k6's `tlsVersion` and `tlsCipherSuites` options, read as k6 reads them (Go's crypto/tls names) and turned
 * into node:tls options. As in Go, the cipher list applies to TLS 1.0–1.2 only: TLS 1.3 suites are not
 * configurable, so their names are accepted and left out.
 */
import type { SecureVersion } from 'node:tls';

/** k6's version names and node:tls's. */
const VERSIONS: Record<string, SecureVersion> = {
  'tls1.0': 'TLSv1',
  'tls1.1': 'TLSv1.1',
  'tls1.2': 'TLSv1.2',
  'tls1.3': 'TLSv1.3',
};

/** k6's cipher suite names (Go's constants) → OpenSSL's names; null for the TLS 1.3 suites Go does not let one pick. */
const CIPHERS: Record<string, string | null> = {
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_AES_128_GCM_SHA256: null,
  TLS_AES_256_GCM_SHA384: null,
  TLS_CHACHA20_POLY1305_SHA256: null,
};

/** What the two options set on a TLS connection (all absent: node's defaults, which are Go's versions). */
export interface TlsProtocolOptions {
  minVersion?: SecureVersion;
  maxVersion?: SecureVersion;
  /** OpenSSL cipher list for TLS ≤ 1.2. */
  ciphers?: string;
}

function version(v: unknown): SecureVersion | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new Error(`invalid option tlsVersion: ${JSON.stringify(v)}`);
  const known = VERSIONS[v];
  if (!known) throw new Error(`unknown TLS version '${v}'`);
  return known;
}

/** Reads `tlsVersion` ("tls1.2", or {min, max}) and `tlsCipherSuites` (Go names), failing in k6's words. */
export function parseTlsProtocol(tlsVersion: unknown, tlsCipherSuites: unknown): TlsProtocolOptions {
  const out: TlsProtocolOptions = {};
  if (typeof tlsVersion === 'string') {
    const v = version(tlsVersion);
    if (v) {
      out.minVersion = v;
      out.maxVersion = v;
    }
  } else if (tlsVersion && typeof tlsVersion === 'object' && !Array.isArray(tlsVersion)) {
    const { min, max } = tlsVersion as { min?: unknown; max?: unknown };
    const lo = version(min);
    const hi = version(max);
    if (lo) out.minVersion = lo;
    if (hi) out.maxVersion = hi;
  } else if (tlsVersion !== undefined && tlsVersion !== null) {
    throw new Error(
      `invalid option tlsVersion: expected "tls1.x" or {min, max}, got ${JSON.stringify(tlsVersion)}`,
    );
  }
  if (tlsCipherSuites !== undefined && tlsCipherSuites !== null) {
    if (!Array.isArray(tlsCipherSuites))
      throw new Error('invalid option tlsCipherSuites: expected an array of cipher suite names');
    const names = tlsCipherSuites.map((name) => {
      const openssl = typeof name === 'string' ? CIPHERS[name] : undefined;
      if (openssl === undefined) throw new Error(`unknown cipher suite '${String(name)}'`);
      return openssl;
    });
    // An empty TLS ≤ 1.2 list (only TLS 1.3 names) leaves TLS 1.2 without suites, as in Go.
    out.ciphers = names.filter((n): n is string => n !== null).join(':') || '!ALL';
  }
  // OpenSSL 3 refuses TLS 1.0/1.1 and the legacy suites above security level 0; Go allows what is asked for.
  if (out.minVersion === 'TLSv1' || out.minVersion === 'TLSv1.1') {
    out.ciphers = `${out.ciphers ?? 'DEFAULT'}:@SECLEVEL=0`;
  }
  return out;
}

/** Go's name of a negotiated suite, from OpenSSL's standard (IANA) name: Go drops ChaCha's "_SHA256" before TLS 1.3. */
export function goCipherName(standardName: string): string {
  return standardName.startsWith('TLS_ECDHE_')
    ? standardName.replace(/_CHACHA20_POLY1305_SHA256$/, '_CHACHA20_POLY1305')
    : standardName;
}
