/**
 * `--out experimental-prometheus-rw` under real k6 and the Node runtime, both writing to one real Prometheus
 * (test/prometheus.ts): each run carries its own `runtime` tag, and Prometheus must then hold the same series
 * (names and label sets, that tag aside) for both, with counters equal to each run's own summary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prometheusAbsent, type Prometheus, startPrometheus } from '../../prometheus.ts';
import { findK6, runBoth, type Outcome } from './harness.ts';
import { type Listening, startHttp } from './protocol-servers.ts';

const k6 = findK6();
const skip = !k6.bin ? `no k6 (looked at ${k6.looked.join(', ')})` : prometheusAbsent;
if (skip) console.warn(`skipped: the Prometheus remote-write agreement: ${skip}`);

type Series = Record<string, string>;

describe.skipIf(skip)('experimental-prometheus-rw: real k6 and the Node runtime into one Prometheus', () => {
  let prom: Prometheus;
  let http: Listening;
  let ran: { k6: Outcome; node: Outcome };

  const series = async (runtime: string): Promise<Series[]> => {
    const q = new URLSearchParams({ 'match[]': `{runtime="${runtime}"}` });
    return (await prom.api(`/api/v1/series?${q}`)) as Series[];
  };
  /** The instant value of `sum(expr)` for one run. */
  const total = async (metric: string, runtime: string): Promise<number> => {
    const q = new URLSearchParams({ query: `sum(${metric}{runtime="${runtime}"})` });
    const data = (await prom.api(`/api/v1/query?${q}`)) as { result: { value: [number, string] }[] };
    return Number(data.result[0]?.value[1] ?? Number.NaN);
  };

  beforeAll(async () => {
    [prom, http] = await Promise.all([startPrometheus(), startHttp((_req, res) => res.end('ok'))]);
    ran = await runBoth(k6.bin!, 'prometheus-rw.js', {
      args: ['-o', 'experimental-prometheus-rw'],
      argsOf: (runtime) => ['--tag', `runtime=${runtime}`],
      env: {
        BASE: http.url,
        K6_PROMETHEUS_RW_SERVER_URL: prom.writeUrl,
        K6_PROMETHEUS_RW_TREND_STATS: 'p(99),p(99.9),avg,min,max,med,count,sum',
      },
    });
  }, 120_000);
  afterAll(async () => {
    await Promise.all([prom?.stop(), http?.close()]);
  });

  it('both runs pass and write series', () => {
    expect([ran.k6.code, ran.node.code], ran.node.stderr + ran.k6.stderr).toEqual([0, 0]);
    expect(ran.node.stderr).not.toContain('Failed to send');
  });

  it('writes the same metric names and label sets as k6', async () => {
    const canonical = (list: Series[]) =>
      list.map(({ runtime: _, ...labels }) => JSON.stringify(Object.entries(labels).sort())).sort();
    const [fromK6, fromNode] = await Promise.all([series('k6'), series('node')]);
    expect(fromK6.length).toBeGreaterThan(20);
    expect(canonical(fromNode)).toEqual(canonical(fromK6));
    const names = new Set(fromNode.map((s) => s.__name__));
    for (const name of [
      'k6_iterations_total',
      'k6_http_reqs_total',
      'k6_http_req_duration_p99',
      'k6_http_req_duration_p999',
      'k6_http_req_failed_rate',
      'k6_checks_rate',
      'k6_rw_jobs_total',
      'k6_rw_depth',
      'k6_rw_hits_rate',
      'k6_rw_wait_sum',
    ]) {
      expect(names, name).toContain(name);
    }
  });

  it("sends counters, rates and trends with the values of the run's own summary", async () => {
    for (const runtime of ['k6', 'node'] as const) {
      const m = ran[runtime].summary!.metrics;
      expect(await total('k6_iterations_total', runtime), runtime).toBe(m['iterations']!['count']);
      expect(await total('k6_http_reqs_total', runtime), runtime).toBe(m['http_reqs']!['count']);
      expect(await total('k6_data_sent_total', runtime), runtime).toBe(m['data_sent']!['count']);
      expect(await total('k6_rw_jobs_total', runtime), runtime).toBe(m['rw_jobs']!['count']);
      // A time trend's stats go in seconds, its count too (k6 divides every stat by 1000).
      expect(await total('k6_rw_wait_sum', runtime), runtime).toBeCloseTo(0.0125 * 6, 9);
      expect(await total('k6_rw_wait_count', runtime), runtime).toBeCloseTo(6 / 1000, 9);
      expect(await total('k6_rw_hits_rate', runtime), runtime).toBeCloseTo(
        m['rw_hits']!['value'] as number,
        9,
      );
    }
  });

  it('with K6_PROMETHEUS_RW_STALE_MARKERS both end every series, which Prometheus then no longer shows', async () => {
    const stale = await runBoth(k6.bin!, 'prometheus-rw.js', {
      args: ['-o', 'experimental-prometheus-rw'],
      argsOf: (runtime) => ['--tag', `runtime=${runtime}-stale`],
      env: {
        BASE: http.url,
        K6_PROMETHEUS_RW_SERVER_URL: prom.writeUrl,
        K6_PROMETHEUS_RW_STALE_MARKERS: 'true',
      },
    });
    expect([stale.k6.code, stale.node.code]).toEqual([0, 0]);
    for (const runtime of ['k6-stale', 'node-stale']) {
      expect((await series(runtime)).length, runtime).toBeGreaterThan(20);
      // The first runs (no stale markers) still answer this query; a series marked stale does not (a plain
      // NaN sample instead of the marker's bits would still be answered, as NaN).
      const q = new URLSearchParams({ query: `k6_iterations_total{runtime="${runtime}"}` });
      expect(await prom.api(`/api/v1/query?${q}`), runtime).toMatchObject({ result: [] });
    }
  }, 60_000);
});
