/**
 * The client certificate a run offers (TLS_CLIENT_CERT and TLS_CLIENT_KEY, PEM files; perf_analyzer's
 * --ssl-https-client-certificate-file and --ssl-https-private-key-file), as k6's tlsAuth option for the target's
 * hosts. Runs inside k6: the files are read with the init context's open().
 */
import type { Options } from 'k6/options';

/** The host of an endpoint: `https://h:8000/x`, `grpcs://h:8001` or `h:8001` give `h` (IPv6 without brackets). */
export function endpointHost(endpoint: string): string {
  const match = /^(?:[a-z][\w+.-]*:\/\/)?(\[[^\]]+\]|[^:/]+)/i.exec(endpoint);
  return (match?.[1] ?? endpoint).replace(/^\[|\]$/g, '');
}

/** `options` with a tlsAuth entry for the endpoints' hosts when the environment names a client certificate. */
export function withClientCertificate(
  options: Options,
  endpoints: string[],
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
  const domains = [...new Set(endpoints.map(endpointHost))];
  return { ...options, tlsAuth: [{ domains, cert: read(cert), key: read(key) }] };
}
