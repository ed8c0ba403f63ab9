/**
 * k6's client-side TLS options as both protocols use them: `insecureSkipTLSVerify`, `tlsAuth` (a client
 * certificate per domain) and the trusted roots. k6 has no CA option for HTTP: Go reads the system roots,
 * which SSL_CERT_FILE replaces and SSL_CERT_DIR adds to; this runtime reads both the same way.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import type { TlsProtocolOptions } from './tls-options.ts';

/** One `tlsAuth` entry: the client certificate and key offered to the listed domains. */
export interface TlsAuthEntry {
  domains: string[];
  cert: string;
  key: string;
  /** Passphrase of an encrypted key. */
  password?: string;
}

/** The test's TLS options, as modules read them. */
export interface ClientTls {
  insecureSkipTLSVerify: boolean;
  tlsAuth: TlsAuthEntry[];
  /** tlsVersion and tlsCipherSuites, which every protocol honours, as in k6. */
  protocol?: TlsProtocolOptions;
}

/** No skip, no client certificates: k6's defaults. */
export const DEFAULT_CLIENT_TLS: ClientTls = { insecureSkipTLSVerify: false, tlsAuth: [] };

/** Validates k6's `tlsAuth` option; one line naming the entry and field when wrong. */
export function parseTlsAuth(value: unknown): TlsAuthEntry[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw new Error('invalid option tlsAuth: expected an array of {domains, cert, key}');
  return value.map((raw, i) => {
    const e = (raw ?? {}) as Record<string, unknown>;
    const text = (field: string): string => {
      const v = e[field];
      if (typeof v !== 'string' || v === '')
        throw new Error(
          `invalid option tlsAuth[${i}].${field}: expected a PEM string (e.g. open('cert.pem'))`,
        );
      return v;
    };
    const domains = e.domains ?? [];
    if (!Array.isArray(domains) || domains.some((d) => typeof d !== 'string'))
      throw new Error(`invalid option tlsAuth[${i}].domains: expected an array of host names`);
    const entry: TlsAuthEntry = { domains: domains as string[], cert: text('cert'), key: text('key') };
    if (typeof e.password === 'string' && e.password !== '') entry.password = e.password;
    return entry;
  });
}

/**
 * The `tlsAuth` entry for a host: one naming it (a domain equal to it, or `*.suffix` matching one label in front),
 * else the first without domains. k6 recommends leaving domains empty (it warns when they are set): its Go client
 * offers the first certificate the server's request accepts, whatever the domains; Node's client cannot see that
 * request, so listed domains still choose here.
 */
export function tlsAuthFor(tls: ClientTls, host: string): TlsAuthEntry | undefined {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  const named = tls.tlsAuth.find((e) =>
    e.domains.some((d) => {
      const domain = d.toLowerCase();
      if (domain.startsWith('*.')) {
        const dot = h.indexOf('.');
        return dot > 0 && h.slice(dot) === domain.slice(1);
      }
      return domain === h;
    }),
  );
  return named ?? tls.tlsAuth.find((e) => e.domains.length === 0);
}

const PEM_CERT_RE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The roots Go would trust: SSL_CERT_FILE's in place of the default bundle (Node's), plus every file of
 * SSL_CERT_DIR's folders (colon-separated); undefined when neither is set: Node's own bundle.
 */
export function readRoots(env: NodeJS.ProcessEnv): string | undefined {
  const file = env.SSL_CERT_FILE;
  const dirs = (env.SSL_CERT_DIR ?? '').split(':').filter(Boolean);
  if (!file && dirs.length === 0) return undefined;
  if (dirs.length === 0) return readFileSync(file!, 'utf8');
  const base = file ? readFileSync(file, 'utf8') : rootCertificates.join('\n');
  const more = dirs.flatMap((d) => certFiles(d).map((f) => readFileSync(f, 'utf8')));
  // Each certificate once: a folder often holds the bundle file's certificates again.
  const blocks = [base, ...more].join('\n').match(PEM_CERT_RE) ?? [];
  return `${[...new Set(blocks)].join('\n')}\n`;
}

let roots: string | null | undefined;
/** readRoots of the process environment, read once. */
export function trustedRoots(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (roots === undefined) roots = readRoots(env) ?? null;
  return roots ?? undefined;
}

/** The files of a certificate folder (Go reads each; one it cannot parse adds nothing). */
function certFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() || e.isSymbolicLink())
      .map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

/** node:tls options for a connection to `host`: verification, roots, the client certificate, versions and ciphers. */
export function tlsConnectOptions(
  tls: ClientTls,
  host: string,
): TlsProtocolOptions & {
  rejectUnauthorized: boolean;
  ca?: string;
  cert?: string;
  key?: string;
  passphrase?: string;
} {
  const auth = tlsAuthFor(tls, host);
  const ca = trustedRoots();
  return {
    ...tls.protocol,
    rejectUnauthorized: !tls.insecureSkipTLSVerify,
    ...(ca ? { ca } : {}),
    ...(auth ? { cert: auth.cert, key: auth.key } : {}),
    ...(auth?.password ? { passphrase: auth.password } : {}),
  };
}
