/**
 * The experimental-prometheus-rw output without a Prometheus: k6's series names, labels and trend stats
 * (series.ts), the K6_PROMETHEUS_RW_* settings (config.ts), the wire bytes (wire.ts), and the pushes a local
 * HTTP receiver gets (output.ts, push.ts). test/e2e/agreement/prometheus-rw.test.ts checks all this against
 * real k6 and a real Prometheus.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import type { TLSSocket } from 'node:tls';
import { selfSignedIdentity, type TlsIdentity } from '@k6-triton/server';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import snappy from 'snappyjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLogSink } from '../src/log.ts';
import { Metric } from '../src/metrics/registry.ts';
import { readRwConfig } from '../src/outputs/prometheus-rw/config.ts';
import { PrometheusRwOutput } from '../src/outputs/prometheus-rw/output.ts';
import { SampleRelayOutput } from '../src/outputs/prometheus-rw/relay.ts';
import { RelayWriter } from '../src/workers/link.ts';
import { type PromSeries, SeriesStore, trendStatSuffix } from '../src/outputs/prometheus-rw/series.ts';
import { decodeWriteRequest, writeRequestBytes } from '../src/outputs/prometheus-rw/wire.ts';
import { EXIT } from '../src/exit-codes.ts';
import { runScript, values } from './run-script.ts';

const T0 = 1_795_000_000_000;
const counter = new Metric('iterations', 'counter', 'default');
const gauge = new Metric('vus', 'gauge', 'default');
const rate = new Metric('checks', 'rate', 'default');
const trend = new Metric('http_req_duration', 'trend', 'time');
const plain = new Metric('queue', 'trend', 'default');

/** name{labels} → value of every sample, for compact assertions. */
function flat(series: PromSeries[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of series) {
    const name = s.labels.find((l) => l.name === '__name__')!.value;
    const rest = s.labels.filter((l) => l.name !== '__name__').map((l) => `${l.name}=${l.value}`);
    out[`${name}{${rest.join(',')}}`] = s.samples[0]!.value;
  }
  return out;
}

describe("k6's series mapping", () => {
  it('names counters _total, rates _rate, gauges bare, trends by stat; labels are the non-empty tags, sorted', () => {
    const store = new SeriesStore(['p(99)', 'avg', 'count', 'sum', 'max']);
    const tags = { scenario: 'default', group: '', Status: '200', method: 'GET' };
    store.add(counter, 1, tags, T0);
    store.add(counter, 1, tags, T0 + 1.7);
    store.add(gauge, 3, {}, T0);
    store.add(gauge, 2, {}, T0 + 5);
    store.add(rate, 1, tags, T0);
    store.add(rate, 0, tags, T0 + 2);
    store.add(rate, 1, tags, T0 + 3);
    store.add(rate, 1, tags, T0 + 4);
    store.add(trend, 100, tags, T0);
    store.add(trend, 300, tags, T0 + 9);
    store.add(plain, 7, tags, T0);
    const labels = 'Status=200,method=GET,scenario=default';
    expect(flat(store.take())).toEqual({
      [`k6_iterations_total{${labels}}`]: 2,
      'k6_vus{}': 2,
      [`k6_checks_rate{${labels}}`]: 0.75,
      // Time trends go in seconds, every stat alike: k6 divides the count by 1000 too.
      // k6's p99 of 100 and 300 ms: linear between the closest ranks.
      [`k6_http_req_duration_p99{${labels}}`]: 0.298,
      [`k6_http_req_duration_avg{${labels}}`]: 0.2,
      [`k6_http_req_duration_count{${labels}}`]: 0.002,
      [`k6_http_req_duration_sum{${labels}}`]: 0.4,
      [`k6_http_req_duration_max{${labels}}`]: 0.3,
      [`k6_queue_p99{${labels}}`]: 7,
      [`k6_queue_avg{${labels}}`]: 7,
      [`k6_queue_count{${labels}}`]: 1,
      [`k6_queue_sum{${labels}}`]: 7,
      [`k6_queue_max{${labels}}`]: 7,
    });
  });

  it('stamps a series with its latest sample in whole ms and sends it again only after a later ms', () => {
    const store = new SeriesStore();
    const tags = { scenario: 'a' };
    store.add(counter, 1, tags, T0 + 0.4);
    store.add(counter, 1, tags, T0 + 1.9);
    const [first] = store.take();
    expect(first!.samples).toEqual([{ value: 2, timestamp: T0 + 1 }]);
    expect(first!.labels).toEqual([
      { name: '__name__', value: 'k6_iterations_total' },
      { name: 'scenario', value: 'a' },
    ]);
    // Same millisecond as the last push: aggregated, not sent (Prometheus would see a duplicate).
    store.add(counter, 1, tags, T0 + 1.2);
    expect(store.take()).toEqual([]);
    store.add(counter, 1, { scenario: 'a' }, T0 + 2);
    expect(store.take().map((s) => s.samples)).toEqual([[{ value: 4, timestamp: T0 + 2 }]]);
  });

  it('marks every series stale 1 ms after the end, each trend stat too', () => {
    const store = new SeriesStore(['p(90)', 'min']);
    store.add(counter, 1, {}, T0);
    store.add(trend, 5, { a: 'b' }, T0);
    store.take();
    const stale = store.staleMarkers(T0 + 1000.6);
    expect(stale.map((s) => s.labels[0]!.value).sort()).toEqual([
      'k6_http_req_duration_min',
      'k6_http_req_duration_p90',
      'k6_iterations_total',
    ]);
    for (const s of stale)
      expect(s.samples).toEqual([{ value: Number.NaN, timestamp: T0 + 1001, stale: true }]);
  });

  it("names percentiles as k6 does and refuses a stat k6 does not know in k6's words", () => {
    expect(['p(99)', 'p(99.9)', 'p(0.95)', 'med', 'sum'].map(trendStatSuffix)).toEqual([
      'p99',
      'p999',
      'p095',
      'med',
      'sum',
    ]);
    expect(() => new SeriesStore(['p(99)', 'foo'])).toThrow("invalid trend stat 'foo', unknown format");
    expect(() => new SeriesStore(['p(101)'])).toThrow("invalid trend stat 'p(101)', unknown format");
  });
});

describe('K6_PROMETHEUS_RW_* settings', () => {
  it("has k6's defaults", () => {
    expect(readRwConfig({})).toEqual({
      url: 'http://localhost:9090/api/v1/write',
      pushInterval_ms: 5000,
      insecureSkipTLSVerify: false,
      basicAuth: null,
      bearerToken: '',
      clientCertificate: null,
      headers: {},
      trendStats: ['p(99)'],
      staleMarkers: false,
    });
  });

  it('reads every honoured variable', () => {
    const c = readRwConfig({
      K6_PROMETHEUS_RW_SERVER_URL: 'https://prom.test/api/v1/write',
      K6_PROMETHEUS_RW_PUSH_INTERVAL: '1m30s',
      K6_PROMETHEUS_RW_INSECURE_SKIP_TLS_VERIFY: 'true',
      K6_PROMETHEUS_RW_USERNAME: 'u',
      K6_PROMETHEUS_RW_PASSWORD: 'p',
      K6_PROMETHEUS_RW_BEARER_TOKEN: 't',
      K6_PROMETHEUS_RW_CLIENT_CERTIFICATE: 'c.pem',
      K6_PROMETHEUS_RW_CLIENT_CERTIFICATE_KEY: 'k.pem',
      'K6_PROMETHEUS_RW_HEADERS_X-Old': 'old',
      'K6_PROMETHEUS_RW_HEADERS_X-Scope-OrgID': 'replaced',
      K6_PROMETHEUS_RW_HTTP_HEADERS: 'X-Scope-OrgID:org,empty:',
      K6_PROMETHEUS_RW_TREND_STATS: 'p(95),avg',
      K6_PROMETHEUS_RW_STALE_MARKERS: 'T',
      K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM: 'false',
    });
    expect(c).toEqual({
      url: 'https://prom.test/api/v1/write',
      pushInterval_ms: 90_000,
      insecureSkipTLSVerify: true,
      basicAuth: { username: 'u', password: 'p' },
      bearerToken: 't',
      clientCertificate: { cert: 'c.pem', key: 'k.pem' },
      headers: { 'X-Old': 'old', 'X-Scope-OrgID': 'org', empty: '' },
      trendStats: ['p(95)', 'avg'],
      staleMarkers: true,
    });
  });

  it('refuses native histograms and SigV4 by name, and malformed values with a line', () => {
    expect(() => readRwConfig({ K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM: 'true' })).toThrow(
      'K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true is not supported by the Node runtime',
    );
    expect(() => readRwConfig({ K6_PROMETHEUS_RW_SIGV4_REGION: 'eu-west-1' })).toThrow(
      'K6_PROMETHEUS_RW_SIGV4_REGION: SigV4 signing is not supported by the Node runtime; run with k6',
    );
    expect(() => readRwConfig({ K6_PROMETHEUS_RW_HTTP_HEADERS: 'a:b,c' })).toThrow(
      'the provided header (c) does not respect the expected format <header key>:<value>',
    );
    expect(() => readRwConfig({ K6_PROMETHEUS_RW_STALE_MARKERS: 'maybe' })).toThrow(
      'invalid K6_PROMETHEUS_RW_STALE_MARKERS="maybe"',
    );
    expect(() => readRwConfig({ K6_PROMETHEUS_RW_PUSH_INTERVAL: 'soon' })).toThrow(
      'K6_PROMETHEUS_RW_PUSH_INTERVAL',
    );
    expect(() => readRwConfig({ K6_PROMETHEUS_RW_TREND_STATS: 'p(99),mean' })).toThrow(
      "invalid trend stat 'mean'",
    );
  });
});

describe('remote-write wire', () => {
  it("writes a WriteRequest that decodes back, with Prometheus's exact staleness NaN", () => {
    const series: PromSeries[] = [
      {
        labels: [
          { name: '__name__', value: 'k6_vus' },
          { name: 'runtime', value: 'nöde' },
        ],
        samples: [{ value: 4.5, timestamp: T0 }],
      },
      {
        labels: [{ name: '__name__', value: 'k6_x' }],
        samples: [{ value: 0, timestamp: T0 + 1, stale: true }],
      },
    ];
    const bytes = writeRequestBytes(series);
    // The staleness marker's bits, 0x7ff0000000000002, little-endian after the double's field key (0x09).
    expect(Buffer.from(bytes).toString('hex')).toContain('09020000000000f07f');
    // Through snappy and back, as a receiver reads it.
    const decoded = decodeWriteRequest(snappy.compress(bytes));
    expect(decoded[0]).toEqual(series[0]);
    expect(decoded[1]!.samples[0]!.timestamp).toBe(T0 + 1);
    expect(Number.isNaN(decoded[1]!.samples[0]!.value)).toBe(true);
  });
});

interface Received {
  headers: IncomingHttpHeaders;
  series: PromSeries[];
}

describe('pushes to a remote-write endpoint', () => {
  let server: Server;
  let url = '';
  let status = 204;
  const received: Received[] = [];
  let onPush: (() => void) | null = null;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, series: decodeWriteRequest(Buffer.concat(chunks)) });
        res.writeHead(status).end();
        onPush?.();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/write`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const fresh = () => {
    received.length = 0;
    status = 204;
  };

  it("sends k6's headers and, at close, the series with news and then the stale markers", async () => {
    fresh();
    const out = new PrometheusRwOutput(
      readRwConfig({
        K6_PROMETHEUS_RW_SERVER_URL: url,
        K6_PROMETHEUS_RW_USERNAME: 'user',
        K6_PROMETHEUS_RW_PASSWORD: 'secret',
        K6_PROMETHEUS_RW_STALE_MARKERS: 'true',
      }),
    );
    out.sample(counter, 1, { scenario: 'default' }, T0);
    out.sample(counter, 1, { scenario: 'default' }, T0 + 3);
    await out.close();
    expect(received).toHaveLength(2);
    const h = received[0]!.headers;
    expect([
      h['content-encoding'],
      h['content-type'],
      h['user-agent'],
      h['x-prometheus-remote-write-version'],
    ]).toEqual(['snappy', 'application/x-protobuf', 'k6-prometheus-rw-output', '0.1.0']);
    expect(h.authorization).toBe(`Basic ${Buffer.from('user:secret').toString('base64')}`);
    expect(flat(received[0]!.series)).toEqual({ 'k6_iterations_total{scenario=default}': 2 });
    expect(received[1]!.series[0]!.samples[0]!.value).toBeNaN();
  });

  it("aggregates another worker's relayed samples into the same series, pushed once", async () => {
    fresh();
    const out = new PrometheusRwOutput(readRwConfig({ K6_PROMETHEUS_RW_SERVER_URL: url }));
    const relay = new SampleRelayOutput(new RelayWriter((chunk) => out.absorb(chunk)));
    const tags = { scenario: 'default', name: 'a\tb "c"' };
    out.sample(counter, 1, { ...tags }, T0);
    relay.sample(counter, 2, tags, T0 + 1);
    relay.sample(counter, 0.1, tags, T0 + 2);
    relay.sample(rate, 1, {}, T0 + 2);
    await relay.close();
    await out.close();
    expect(received).toHaveLength(1);
    expect(flat(received[0]!.series)).toEqual({
      'k6_iterations_total{name=a\tb "c",scenario=default}': 3.1,
      'k6_checks_rate{}': 1,
    });
  });

  it('pushes every push interval, during the run', async () => {
    fresh();
    const out = new PrometheusRwOutput(
      readRwConfig({ K6_PROMETHEUS_RW_SERVER_URL: url, K6_PROMETHEUS_RW_PUSH_INTERVAL: '20ms' }),
    );
    const pushed = new Promise<void>((r) => {
      onPush = r;
    });
    out.sample(gauge, 7, {}, Date.now());
    await pushed;
    onPush = null;
    expect(flat(received[0]!.series)).toEqual({ 'k6_vus{}': 7 });
    await out.close();
    // Nothing new since: the last push at close sends nothing.
    expect(received).toHaveLength(1);
  });

  it('lets configured headers replace basic auth and a bearer token win, as k6 does', async () => {
    fresh();
    const out = new PrometheusRwOutput(
      readRwConfig({
        K6_PROMETHEUS_RW_SERVER_URL: url,
        K6_PROMETHEUS_RW_USERNAME: 'user',
        K6_PROMETHEUS_RW_HTTP_HEADERS: 'X-Scope-OrgID:org',
        K6_PROMETHEUS_RW_BEARER_TOKEN: 'tok',
      }),
    );
    out.sample(counter, 1, {}, T0);
    await out.close();
    expect(received[0]!.headers['x-scope-orgid']).toBe('org');
    expect(received[0]!.headers.authorization).toBe('Bearer tok');
  });

  /** Runs `fn` with K6_PROMETHEUS_RW_* variables set (the output reads the process environment, as k6's does). */
  async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
    Object.assign(process.env, vars);
    try {
      return await fn();
    } finally {
      for (const k of Object.keys(vars)) delete process.env[k];
    }
  }

  const jsonDir = mkdtempSync(join(tmpdir(), 'k6t-rw-'));
  const jsonOut = join(jsonDir, 'out.json');
  afterAll(() => rmSync(jsonDir, { recursive: true, force: true }));

  it("takes a run's samples from `--out experimental-prometheus-rw`, its counters equal to the summary", async () => {
    fresh();
    const r = await withEnv({ K6_PROMETHEUS_RW_SERVER_URL: url }, () =>
      runScript('per-vu-iterations.js', {
        out: ['experimental-prometheus-rw', `json=${jsonOut}`],
        quiet: false,
      }),
    );
    expect(r.exitCode).toBe(EXIT.OK);
    // k6's banner names each output by its description.
    expect(r.stdout).toContain(`output: Prometheus remote write (${url}), json (${jsonOut})`);
    const sent = received.flatMap((x) => x.series);
    const last = (name: string) =>
      sent.filter((s) => s.labels[0]!.value === name).reduce((sum, s) => sum + s.samples[0]!.value, 0);
    // One push at the end (the 5 s interval never came): each series once, with its total.
    expect(received).toHaveLength(1);
    expect(last('k6_iterations_total')).toBe(values(r, 'iterations')['count']);
    expect(last('k6_per_vu_total')).toBe(12);
    expect(sent.filter((s) => s.labels[0]!.value === 'k6_per_vu_total').map((s) => s.labels)).toContainEqual([
      { name: '__name__', value: 'k6_per_vu_total' },
      { name: 'scenario', value: 'each' },
      { name: 'vu', value: '2' },
    ]);
  });

  it('exits 255 naming a refused setting before the run', async () => {
    const r = await withEnv({ K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM: '1' }, () =>
      runScript('per-vu-iterations.js', { out: ['experimental-prometheus-rw'] }),
    );
    expect(r.exitCode).toBe(EXIT.GENERIC);
    expect(r.log).toContain(
      "could not create the 'experimental-prometheus-rw' output: K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=1 is not supported",
    );
  });

  it("logs a refused push in k6's words and goes on", async () => {
    fresh();
    status = 400;
    const lines: string[] = [];
    const prev = setLogSink((l) => lines.push(l));
    try {
      const out = new PrometheusRwOutput(readRwConfig({ K6_PROMETHEUS_RW_SERVER_URL: url }));
      out.sample(counter, 1, {}, T0);
      await out.close();
    } finally {
      setLogSink(prev);
    }
    expect(lines.join('')).toContain('Failed to send the time series data to the endpoint');
    expect(lines.join('')).toContain('got status code: 400 instead expected a 2xx successful status code');
    expect(lines.join('')).toContain('Prometheus remote write');
  });
});

describe('pushes over HTTPS', () => {
  let server: HttpsServer;
  let url = '';
  let dir = '';
  let client: TlsIdentity;
  const peers: string[] = [];
  beforeAll(async () => {
    const [identity, clientIdentity] = await Promise.all([selfSignedIdentity(), selfSignedIdentity()]);
    client = clientIdentity;
    // Any client certificate is taken and recorded: the test looks at which one came.
    server = createHttpsServer({ ...identity, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      peers.push(peer.fingerprint256 ?? '');
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/write`;
    dir = mkdtempSync(join(tmpdir(), 'k6t-rw-tls-'));
    writeFileSync(join(dir, 'client.pem'), client.cert);
    writeFileSync(join(dir, 'client-key.pem'), client.key);
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Pushes one sample with `vars` and returns the log lines. */
  async function pushOnce(vars: Record<string, string>): Promise<string> {
    let log = '';
    const prev = setLogSink((l) => {
      log += l;
    });
    try {
      const out = new PrometheusRwOutput(readRwConfig({ K6_PROMETHEUS_RW_SERVER_URL: url, ...vars }));
      out.sample(counter, 1, {}, T0);
      await out.close();
    } finally {
      setLogSink(prev);
    }
    return log;
  }

  it('verifies the server certificate unless K6_PROMETHEUS_RW_INSECURE_SKIP_TLS_VERIFY', async () => {
    peers.length = 0;
    expect(await pushOnce({})).toContain('HTTP POST request failed');
    expect(peers).toEqual([]);
    expect(await pushOnce({ K6_PROMETHEUS_RW_INSECURE_SKIP_TLS_VERIFY: 'true' })).toBe('');
    expect(peers).toHaveLength(1);
  });

  it('presents the client certificate of K6_PROMETHEUS_RW_CLIENT_CERTIFICATE(_KEY)', async () => {
    peers.length = 0;
    const log = await pushOnce({
      K6_PROMETHEUS_RW_INSECURE_SKIP_TLS_VERIFY: 'true',
      K6_PROMETHEUS_RW_CLIENT_CERTIFICATE: join(dir, 'client.pem'),
      K6_PROMETHEUS_RW_CLIENT_CERTIFICATE_KEY: join(dir, 'client-key.pem'),
    });
    expect(log).toBe('');
    expect(peers).toEqual([new X509Certificate(client.cert).fingerprint256]);
  });
});
