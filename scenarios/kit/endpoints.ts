/**
 * A run's three endpoints from what the user named. Triton serves HTTP on 8000, gRPC on 8001 and metrics on
 * 8002 of one host, so an HTTP URL on 8000 (or with no port) implies the other two; a URL on another port
 * (a port-forward, a proxy) says nothing about them, so they must be named. The CLI and the scenario both read
 * them here, so a bench and a bare `k6 run` of the bundle reach the same gRPC address. Pure: runs inside k6.
 */

/** Triton's default ports. */
export const TRITON_PORTS = { http: 8000, grpc: 8001, metrics: 8002 } as const;

/** The gRPC address (host:port, grpcs:// for TLS) and metrics URL an HTTP URL implies; empty when none. */
export function impliedEndpoints(url: string): { grpc?: string; metrics?: string } {
  const match = /^(https?):\/\/(\[[^\]]+\]|[^/:?#]+)(?::(\d+))?/.exec(url);
  if (!match) return {};
  const [, scheme, host, port] = match;
  if (port !== undefined && Number(port) !== TRITON_PORTS.http) return {};
  return {
    grpc: `${scheme === 'https' ? 'grpcs://' : ''}${host}:${TRITON_PORTS.grpc}`,
    metrics: `http://${host}:${TRITON_PORTS.metrics}/metrics`,
  };
}

/** The flags of the run's endpoints, with their variables, as the one-line errors name them. */
export const ENDPOINT_FLAGS = {
  url: '--url (TRITON_URL)',
  grpc: '--grpc-url host:port (TRITON_GRPC_URL)',
  metrics: "--metrics-url http://host:port/metrics (or 'off')",
} as const;

/**
 * How the user named a setting, for hints: its flag when the CLI says one was given (VARIABLE_FLAG, e.g.
 * TRITON_URL_FLAG=--url), else the variable itself.
 */
export function settingName(env: Record<string, string | undefined>, variable: string): string {
  return env[`${variable}_FLAG`] || variable;
}

/** `--url http://h:1` or `TRITON_URL=http://h:1`: a setting as the user wrote it. */
export function asGiven(name: string, value: string): string {
  return name.startsWith('--') ? `${name} ${value}` : `${name}=${value}`;
}

/** The one-line refusal of a run whose gRPC or metrics endpoint the HTTP URL cannot imply. */
export function notImplied(what: 'grpc' | 'metrics', urlName: string, url: string): string {
  const label = what === 'grpc' ? 'gRPC endpoint' : 'metrics endpoint';
  return `${asGiven(urlName, url)} is not on Triton's HTTP port ${TRITON_PORTS.http}, so the ${label} is not implied; give ${ENDPOINT_FLAGS[what]}`;
}
