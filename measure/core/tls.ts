/**
 * A run's TLS: which certificates the runtime trusts (TLS_CA, or the started server's own self-signed one),
 * whether it verifies them (INSECURE_SKIP_TLS_VERIFY), and a handshake made before any load, so that an
 * untrusted server fails the command at once with one line naming the fix rather than every request.
 * Both runtimes read the trusted roots from SSL_CERT_FILE (real k6 through Go's crypto/x509).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isIP } from 'node:net';
import tls from 'node:tls';
import { readOr } from '../../lib/settings/read.ts';
import { S } from '../../lib/settings/schema.ts';
import type { RunSettings } from './target.ts';

/** How the runtime treats the server's certificate. */
export interface RunTls {
  /** Don't verify (k6's --insecure-skip-tls-verify). */
  skipVerify: boolean;
  /** PEM file of the certificates trusted instead of the system's (SSL_CERT_FILE for the runtime). */
  caFile?: string;
}

/** The run's TLS settings: TLS_CA and INSECURE_SKIP_TLS_VERIFY. */
export function runTls(settings: RunSettings): RunTls {
  return {
    skipVerify: readOr(settings, S.INSECURE_SKIP_TLS_VERIFY, false),
    ...(settings.TLS_CA ? { caFile: resolve(settings.TLS_CA) } : {}),
  };
}

/** What the runtime is given for `t`: k6's flag and the environment naming the trusted roots. */
export function runtimeTlsArgs(t: RunTls): { k6Args: string[]; env: Record<string, string> } {
  return {
    k6Args: t.skipVerify ? ['--insecure-skip-tls-verify'] : [],
    env: t.caFile ? { SSL_CERT_FILE: t.caFile } : {},
  };
}

/** Writes a started server's certificate where the runtime can trust it; remove() deletes it. */
export function trustFile(certPem: string): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'k6t-ca-'));
  const path = join(dir, 'server-cert.pem');
  writeFileSync(path, certPem);
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const HANDSHAKE_TIMEOUT_MS = 10_000;

/**
 * Makes one TLS handshake to `address` (host:port) trusting what the runtime will trust; throws one line
 * naming the endpoint, why it is not trusted and the fix. Nothing is checked when verification is skipped.
 */
export async function checkTrusted(address: string, what: string, t: RunTls): Promise<void> {
  if (t.skipVerify) return;
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[|\]$/g, '');
  const port = Number(address.slice(colon + 1));
  let ca: string | undefined;
  if (t.caFile) {
    try {
      ca = readFileSync(t.caFile, 'utf8');
    } catch (err) {
      throw new Error(
        `TLS_CA=${t.caFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; give a readable PEM file of the server's CA`,
      );
    }
  }
  const reason = await new Promise<string | undefined>((done) => {
    const socket = tls.connect({
      host,
      port,
      ...(isIP(host) ? {} : { servername: host }),
      ...(ca ? { ca } : {}),
      rejectUnauthorized: true,
      ALPNProtocols: what === 'gRPC' ? ['h2'] : ['http/1.1'],
    });
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () => socket.destroy(new Error('no TLS handshake within 10 s')));
    socket.once('secureConnect', () => {
      socket.end();
      done(undefined);
    });
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done(err.code ? `${err.message} (${err.code})` : err.message),
    );
  });
  if (reason === undefined) return;
  const untrusted = /certificate|self.signed|issuer|CERT_|verify/i.test(reason);
  throw new Error(
    untrusted
      ? `${what} ${address}: the server's TLS certificate is not trusted: ${reason}; pass --insecure-skip-tls-verify (INSECURE_SKIP_TLS_VERIFY=1), or --tls-ca <file> (TLS_CA) with the CA that signed it`
      : `${what} ${address}: TLS handshake failed: ${reason}; check that the endpoint serves TLS (or use http:// / a plaintext gRPC address)`,
  );
}
