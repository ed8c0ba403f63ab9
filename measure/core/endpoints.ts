/**
 * The three endpoints a run uses (HTTP, gRPC, Prometheus metrics) and the header lines that name them and
 * where each came from: the server the command started, a flag or variable the user gave, or Triton's ports
 * implied by the HTTP URL (scenarios/kit/endpoints.ts, which the scenario reads too).
 */
import { asGiven, impliedEndpoints, TRITON_PORTS } from '../../scenarios/kit/endpoints.ts';
import type { Settings } from '../../scenarios/kit/settings.ts';
import { checkMetricsUrl } from './metrics-scrape.ts';

/** Where the run's requests and scrapes go; undefined: none. */
export interface RunEndpoints {
  url: string;
  /** host:port, grpcs://host:port over TLS. */
  grpcUrl?: string;
  metricsUrl?: string;
  /** The header: one line per endpoint, naming its origin. */
  lines: string[];
}

/** A started server's endpoints, as the run reaches them. */
export interface StartedEndpoints {
  url: string;
  grpcUrl: string;
  metricsUrl?: string;
  /** 'embedded server' or 'tritonserver'. */
  label: string;
}

/**
 * The run's endpoints: a started server's, else the user's URL with gRPC and metrics given or implied;
 * `metricsOption` is --metrics-url ('off': none), which wins over any other.
 */
export function runEndpoints(
  settings: Settings,
  server: StartedEndpoints | undefined,
  metricsOption?: string,
): RunEndpoints {
  const metricsGiven = metricsOption && metricsOption !== 'off' ? checkMetricsUrl(metricsOption) : undefined;
  const metricsLine = (fallback: string | undefined, origin: string): [string | undefined, string] => {
    if (metricsOption === 'off') return [undefined, 'none (--metrics-url off)'];
    if (metricsGiven) return [metricsGiven, `${metricsGiven} (--metrics-url)`];
    return [fallback, fallback ? `${fallback} (${origin})` : origin];
  };
  if (server) {
    const [metricsUrl, metrics] = metricsLine(server.metricsUrl, server.label);
    return {
      url: server.url,
      grpcUrl: server.grpcUrl,
      ...(metricsUrl ? { metricsUrl } : {}),
      lines: [
        `HTTP ${server.url} (${server.label})`,
        `gRPC ${server.grpcUrl} (${server.label})`,
        `metrics ${metrics}`,
      ],
    };
  }
  const { names } = settings;
  const implied = impliedEndpoints(settings.url);
  const besideUrl = `Triton's port beside ${names.url}`;
  const grpcUrl = settings.grpcUrl ? `${settings.grpcTls ? 'grpcs://' : ''}${settings.grpcUrl}` : undefined;
  const grpc = grpcUrl
    ? `${grpcUrl} (${settings.grpcImplied ? besideUrl : names.grpcUrl})`
    : `not used (${asGiven(names.url, settings.url)} is not on port ${TRITON_PORTS.http}, so none is implied)`;
  const [metricsUrl, metrics] = metricsLine(
    implied.metrics,
    implied.metrics
      ? besideUrl
      : `none (not implied off port ${TRITON_PORTS.http}; give --metrics-url to scrape)`,
  );
  return {
    url: settings.url,
    ...(grpcUrl ? { grpcUrl } : {}),
    ...(metricsUrl ? { metricsUrl } : {}),
    lines: [`HTTP ${settings.url} (${names.url})`, `gRPC ${grpc}`, `metrics ${metrics}`],
  };
}
