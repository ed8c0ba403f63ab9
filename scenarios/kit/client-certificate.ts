/**
 * The client certificate a run offers (TLS_CLIENT_CERT and TLS_CLIENT_KEY, PEM files; perf_analyzer's
 * --ssl-https-client-certificate-file and --ssl-https-private-key-file), as k6's tlsAuth option. Runs inside
 * k6: the files are read with the init context's open().
 */
import type { Options } from 'k6/options';

/**
 * `options` with a tlsAuth entry when the environment names a client certificate. The entry names no domains, as
 * k6 recommends (it warns when they are set): the certificate goes to whichever target asks for one.
 */
export function withClientCertificate(
  options: Options,
  env: Record<string, string | undefined>,
  read: (path: string) => string,
): Options {
  const cert = env.TLS_CLIENT_CERT || undefined;
  const key = env.TLS_CLIENT_KEY || undefined;
  if (cert === undefined && key === undefined) return options;
  if (cert === undefined || key === undefined)
    throw new Error(
      `TLS_CLIENT_${cert === undefined ? 'CERT' : 'KEY'} is missing: a client certificate needs both TLS_CLIENT_CERT and TLS_CLIENT_KEY (PEM files)`,
    );
  return { ...options, tlsAuth: [{ cert: read(cert), key: read(key) }] };
}
