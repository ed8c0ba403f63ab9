/**
 * The settings of k6's experimental-prometheus-rw output, read from the K6_PROMETHEUS_RW_* environment
 * variables with k6's defaults. What the Node runtime does not do (native histograms, SigV4) is refused by name.
 */
import { parseDuration_ms } from '@k6-triton/lib/duration.ts';
import { checkTrendStats, DEFAULT_RW_TREND_STATS } from './series.ts';

/** The output's settings. */
export interface RwConfig {
  url: string;
  pushInterval_ms: number;
  insecureSkipTLSVerify: boolean;
  /** Basic auth, when K6_PROMETHEUS_RW_USERNAME is set. */
  basicAuth: { username: string; password: string } | null;
  bearerToken: string;
  /** PEM file paths of a client certificate and its key (both or neither). */
  clientCertificate: { cert: string; key: string } | null;
  headers: Record<string, string>;
  trendStats: string[];
  staleMarkers: boolean;
}

const E = 'K6_PROMETHEUS_RW_';
const RUN_WITH_K6 = 'run with k6';

/** Go's strconv.ParseBool, which k6 reads these booleans with. */
function envBool(env: Record<string, string | undefined>, name: string): boolean | undefined {
  const v = env[name];
  if (v === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  throw new Error(`invalid ${name}=${JSON.stringify(v)}: expected true or false`);
}

/** The settings from `env`; throws a one-line error for a malformed or refused one. */
export function readRwConfig(env: Record<string, string | undefined>): RwConfig {
  if (envBool(env, `${E}TREND_AS_NATIVE_HISTOGRAM`) === true) {
    throw new Error(
      `${E}TREND_AS_NATIVE_HISTOGRAM=${env[`${E}TREND_AS_NATIVE_HISTOGRAM`]} is not supported by the Node runtime; trends go as the ${E}TREND_STATS gauges, or ${RUN_WITH_K6}`,
    );
  }
  const sigv4 = Object.keys(env).filter((k) => k.startsWith(`${E}SIGV4_`) && env[k] !== '');
  if (sigv4.length > 0) {
    throw new Error(
      `${sigv4.sort().join(', ')}: SigV4 signing is not supported by the Node runtime; ${RUN_WITH_K6}`,
    );
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (k.startsWith(`${E}HEADERS_`) && v !== undefined) headers[k.slice(`${E}HEADERS_`.length)] = v;
  }
  const list = env[`${E}HTTP_HEADERS`];
  if (list !== undefined) {
    for (const pair of list.split(',')) {
      const kv = pair.split(':');
      if (kv.length !== 2) {
        throw new Error(
          `the provided header (${pair}) does not respect the expected format <header key>:<value>`,
        );
      }
      headers[kv[0]!] = kv[1]!;
    }
  }
  const interval = env[`${E}PUSH_INTERVAL`];
  const pushInterval_ms = interval === undefined ? 5000 : parseDuration_ms(interval, `${E}PUSH_INTERVAL`);
  if (!(pushInterval_ms > 0))
    throw new Error(`${E}PUSH_INTERVAL must be above zero, not ${JSON.stringify(interval)}`);
  const cert = env[`${E}CLIENT_CERTIFICATE`];
  const key = env[`${E}CLIENT_CERTIFICATE_KEY`];
  const stats = env[`${E}TREND_STATS`];
  const trendStats = stats === undefined ? [...DEFAULT_RW_TREND_STATS] : stats.split(',');
  checkTrendStats(trendStats);
  const username = env[`${E}USERNAME`];
  return {
    url: env[`${E}SERVER_URL`] ?? 'http://localhost:9090/api/v1/write',
    pushInterval_ms,
    insecureSkipTLSVerify: envBool(env, `${E}INSECURE_SKIP_TLS_VERIFY`) ?? false,
    basicAuth: username === undefined ? null : { username, password: env[`${E}PASSWORD`] ?? '' },
    bearerToken: env[`${E}BEARER_TOKEN`] ?? '',
    clientCertificate: cert !== undefined && key !== undefined ? { cert, key } : null,
    headers,
    trendStats,
    staleMarkers: envBool(env, `${E}STALE_MARKERS`) ?? false,
  };
}
