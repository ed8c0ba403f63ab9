/**
 * Agreement: each script in scripts/ runs under real k6 and under the Node runtime; the facts
 * that do not depend on timing (exit codes, fixed counts, threshold verdicts, metric names and
 * tags, output shapes) must be the same. Real k6 comes from K6_BIN or ../shared/tools/bin/k6;
 * without it the suite is skipped, saying so.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoServer, startEchoServer } from '../../../packages/runtime/test/echo-grpc-server.ts';
import {
  checkCounts,
  count,
  findK6,
  groupTree,
  type Outcome,
  pointCount,
  runBoth,
  shape,
  sumByTag,
  tagNames,
  thresholdVerdicts,
} from './harness.ts';

const { bin: K6, looked } = findK6();
if (!K6) console.log(`agreement suite skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

/**
 * Metrics left out of name and tag comparisons: differences docs/runtime-differences.md lists. `vus` and
 * `vus_max` are sampled on a 1 s clock (k6 has none in a run shorter than that; the Node runtime
 * samples at the start); k6 emits `data_sent`/`data_received` (0) per iteration even without network.
 */
const LISTED = new Set(['vus', 'vus_max', 'data_sent', 'data_received']);
const listedOut = (m: string, network: boolean) =>
  network ? m !== 'vus' && m !== 'vus_max' : !LISTED.has(m);

/** The metric names a run declared (`--out json` Metric records), sorted, listed differences left out. */
const metricNames = (o: Outcome, network = false) =>
  [...new Set(o.records.filter((r) => r.type === 'Metric').map((r) => r.metric))]
    .filter((m) => listedOut(m, network))
    .sort();
/** Tag names per metric, listed differences left out (k6's `error_code` on HTTP error responses, too). */
const tags = (o: Outcome, network = false) =>
  Object.fromEntries(
    Object.entries(tagNames(o.records))
      .filter(([m]) => listedOut(m, network))
      .map(([m, names]) => [m, names.filter((t) => t !== 'error_code')]),
  );
describe.skipIf(!K6)('agreement with real k6', () => {
  const k6 = K6 ?? '';
  let http: Server;
  let base = '';
  let grpc: EchoServer;

  beforeAll(async () => {
    http = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const ok = req.url === '/ok';
        res.writeHead(ok ? 200 : 404, { 'content-type': 'text/plain' });
        res.end(ok ? 'ok' : 'no');
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    grpc = await startEchoServer();
  });
  afterAll(() => {
    http?.close();
    grpc?.stop();
  });

  it('runs all six executors: fixed iteration counts, scenario tags, vus_max', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'executors.js');
    expect(k.code).toBe(0);
    expect(n.code).toBe(k.code);
    const [ki, ni] = [
      sumByTag(k.records, 'iterations', 'scenario'),
      sumByTag(n.records, 'iterations', 'scenario'),
    ];
    expect(Object.keys(ni).sort()).toEqual(Object.keys(ki).sort());
    expect(ki['shared']).toBe(6);
    expect(ki['pervu']).toBe(6);
    expect(ni['shared']).toBe(6);
    expect(ni['pervu']).toBe(6);
    for (const x of [ki, ni]) {
      expect(x['car']).toBeGreaterThanOrEqual(9);
      expect(x['car']).toBeLessThanOrEqual(11);
      expect(x['rar']).toBeGreaterThanOrEqual(7);
      expect(x['rar']).toBeLessThanOrEqual(12);
      expect(x['constant']).toBeGreaterThanOrEqual(10);
      expect(x['constant']).toBeLessThanOrEqual(22);
      expect(x['ramping']).toBeGreaterThan(0);
    }
    expect(n.summary?.metrics['vus_max']?.['value']).toBe(k.summary?.metrics['vus_max']?.['value']);
    expect(tags(n)).toEqual(tags(k));
    expect(metricNames(n)).toEqual(metricNames(k));
  });

  it('splits VUs, iterations and arrival rates among execution segments as k6 does', async () => {
    const expected: Record<string, { vusMax: number; si: number; pv: number; car: number }> = {
      '0:1/3': { vusMax: 20, si: 40, pv: 8, car: 40 },
      '1/3:2/3': { vusMax: 15, si: 30, pv: 6, car: 30 },
      '2/3:1': { vusMax: 15, si: 30, pv: 6, car: 30 },
    };
    for (const [segment, want] of Object.entries(expected)) {
      const args = ['--execution-segment', segment, '--execution-segment-sequence', '0,1/3,2/3,1'];
      const { k6: k, node: n } = await runBoth(k6, 'segments.js', { args, env: { BASE: base } });
      for (const o of [k, n]) {
        expect(o.code, `${segment} ${o.stderr}`).toBe(0);
        const it = sumByTag(o.records, 'iterations', 'scenario');
        // An arrival-rate iteration either starts or is dropped: their sum is the segment's share.
        const dropped = sumByTag(o.records, 'dropped_iterations', 'scenario');
        const who = `${o === k ? 'k6' : 'node'} ${segment}`;
        expect([who, it['si'], it['pv']]).toEqual([who, want.si, want.pv]);
        // k6 may also start the iteration due exactly at the end (1 s; index 100 is the first
        // segment's), as its timer races the duration's end: one more, never fewer.
        const car = (it['car'] ?? 0) + (dropped['car'] ?? 0);
        expect([who, car >= want.car && car <= want.car + 1]).toEqual([who, true]);
        expect(count(o, 'http_reqs')).toBe(want.si);
        expect(o.summary?.metrics['vus_max']?.['max']).toBe(want.vusMax);
      }
    }
  });

  it('derives the default scenario from vus, duration, iterations and stages as k6 does', async () => {
    const cases: [string, string[], number, number][] = [
      ['none', [], 0, 1],
      ['none', ['--vus', '3'], 0, 3],
      ['none', ['--vus', '2', '--iterations', '5'], 0, 5],
      ['vus', [], 0, 2],
      ['vus-over-scenarios', [], 0, 2],
      ['empty-stages', [], 0, 1],
      ['empty-scenarios', [], 0, 1],
      ['iterations-and-scenarios', [], 104, 0],
      ['duration-and-stages', [], 104, 0],
      ['zero-duration', [], 104, 0],
    ];
    for (const [shape, args, code, iterations] of cases) {
      const { k6: k, node: n } = await runBoth(k6, 'shortcuts.js', { args, env: { SHAPE: shape } });
      const what = `${shape} ${args.join(' ')}`;
      expect(k.code, `${what}: ${k.stderr}`).toBe(code);
      expect(n.code, `${what}: ${n.stderr}`).toBe(code);
      expect(count(k, 'iterations'), what).toBe(iterations);
      expect(count(n, 'iterations'), what).toBe(iterations);
      expect(checkCounts(n.summary?.root_group), what).toEqual(checkCounts(k.summary?.root_group));
    }
  });

  it('k6/encoding takes a null encoding; k6/crypto hashers digest again and update after a digest', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'encoding-crypto.js');
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    const checks = checkCounts(k.summary?.root_group);
    expect(Object.values(checks)).toEqual(Array(5).fill([1, 0]));
    expect(checkCounts(n.summary?.root_group)).toEqual(checks);
  });

  it('WebCrypto imports an EC JWK on its own curve when the algorithm names another, as k6 does', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'webcrypto-jwk.js');
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    const checks = checkCounts(k.summary?.root_group);
    expect(Object.values(checks)).toEqual(Array(3).fill([1, 0]));
    expect(checkCounts(n.summary?.root_group)).toEqual(checks);
  });

  it('an iteration waits for its timers; callbacks run in their iteration, after a bare sleep()', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'timers.js');
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    expect(count(k, 'ticks')).toBe(12);
    expect(count(n, 'ticks')).toBe(12);
    expect(count(n, 'timeouts')).toBe(count(k, 'timeouts'));
    expect(count(n, 'iterations')).toBe(4);
    expect(thresholdVerdicts(n.summary)).toEqual(thresholdVerdicts(k.summary));
    const checks = checkCounts(k.summary?.root_group);
    expect(Object.values(checks)).toEqual([
      [4, 0],
      [4, 0],
    ]);
    expect(checkCounts(n.summary?.root_group)).toEqual(checks);
  });

  it('evaluates thresholds on metrics, sub-metrics and checks alike (exit 99)', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'thresholds.js');
    expect(k.code).toBe(99);
    expect(n.code).toBe(99);
    const verdicts = thresholdVerdicts(k.summary);
    expect(verdicts['waiting_ms{kind:slow}: avg<20']).toBe(true);
    expect(verdicts['waiting_ms{kind:fast}: avg<20']).toBe(false);
    expect(thresholdVerdicts(n.summary)).toEqual(verdicts);
  });

  it('stops early on an abortOnFail threshold (exit 99)', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'abort-on-fail.js');
    expect(k.code).toBe(99);
    expect(n.code).toBe(99);
    expect(thresholdVerdicts(n.summary)).toEqual(thresholdVerdicts(k.summary));
    // 20 s at 10 iterations/s would be 200; both stop at the first evaluation past count<3.
    expect(count(k, 'iterations')).toBeLessThan(100);
    expect(count(n, 'iterations')).toBeLessThan(100);
  });

  it('hands setup data to VUs and teardown as JSON; groups and checks keep their paths and ids', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'lifecycle.js');
    expect(k.code).toBe(0);
    expect(n.code).toBe(0);
    const checks = checkCounts(k.summary?.root_group);
    // Go's JSON: undefined → null, a Date in RFC 3339 without a zero fraction; teardown's checks in ::teardown.
    expect(
      checks['::teardown::teardown data {"gone":null,"list":[1,"a"],"n":1,"when":"1970-01-01T00:00:00Z"}'],
    ).toEqual([1, 0]);
    expect(checkCounts(n.summary?.root_group)).toEqual(checks);
    expect(tags(n)).toEqual(tags(k));
  });

  it('exec.test.abort() exits 108, counts the aborting iteration and still runs teardown', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'test-abort.js');
    expect(k.code).toBe(108);
    expect(n.code).toBe(108);
    expect(count(k, 'iterations')).toBe(4);
    expect(count(n, 'iterations')).toBe(4);
    expect(groupTree(n.summary?.root_group)).toEqual(groupTree(k.summary?.root_group));
  });

  it('exits 107 on an exception in the init context or in setup()', async () => {
    for (const name of ['init-exception.js', 'setup-exception.js']) {
      const { k6: k, node: n } = await runBoth(k6, name);
      expect(k.code, name).toBe(107);
      expect(n.code, name).toBe(107);
    }
  });

  it("gives handleSummary the same data layout: keys, metric types, values' names, thresholds", async () => {
    const { k6: k, node: n } = await runBoth(k6, 'handle-summary.js');
    expect(k.code).toBe(0);
    expect(n.code).toBe(0);
    const layout = (d: Record<string, unknown> | null) => {
      const metrics = (d?.['metrics'] ?? {}) as Record<string, Record<string, unknown>>;
      return {
        top: Object.keys(d ?? {}).sort(),
        metrics: Object.fromEntries(
          Object.entries(metrics)
            .filter(([name]) => listedOut(name, false))
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([name, m]) => [
              name,
              {
                type: m['type'],
                contains: m['contains'],
                values: Object.keys(m['values'] as object).sort(),
                thresholds: m['thresholds'],
              },
            ]),
        ),
        rootGroup: shape(d?.['root_group'], 1),
      };
    };
    expect(k.handleSummary).not.toBeNull();
    expect(layout(n.handleSummary)).toEqual(layout(k.handleSummary));
  });

  it('keeps sleep() before an exception: every throwing iteration lasts the sleep', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'sleep-throw.js');
    expect(k.code).toBe(0);
    expect(n.code).toBe(0);
    for (const o of [k, n]) {
      // 2 VUs for 1 s at 100 ms per iteration: about 20, never thousands.
      expect(count(o, 'iterations')).toBeGreaterThanOrEqual(10);
      expect(count(o, 'iterations')).toBeLessThanOrEqual(22);
      expect(o.summary?.metrics['iteration_duration']?.['min']).toBeGreaterThanOrEqual(100);
    }
  });

  it('async HTTP: request counts, checks, tag names and values, sub-metric thresholds', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'http.js', { env: { BASE: base } });
    expect(k.code).toBe(0);
    expect(n.code).toBe(0);
    expect(count(k, 'http_reqs')).toBe(6);
    expect(count(n, 'http_reqs')).toBe(6);
    expect(thresholdVerdicts(n.summary)).toEqual(thresholdVerdicts(k.summary));
    expect(groupTree(n.summary?.root_group)).toEqual(groupTree(k.summary?.root_group));
    expect(tags(n, true)).toEqual(tags(k, true));
    expect(metricNames(n, true)).toEqual(metricNames(k, true));
    const tagValues = (o: Outcome) =>
      o.records
        .filter((r) => r.type === 'Point' && r.metric === 'http_reqs')
        .map((r) => {
          const t = r.data.tags ?? {};
          return `${t['method']} ${t['name']?.replace(base, '')} ${t['status']} ${t['expected_response']} ${t['proto']}`;
        })
        .sort();
    expect(tagValues(n)).toEqual(tagValues(k));
  });

  it('gRPC unary and stream: counts, checks, metric names and tags', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'grpc.js', { env: { GRPC_ADDR: grpc.addr } });
    expect(k.code).toBe(0);
    expect(n.code).toBe(0);
    expect(groupTree(n.summary?.root_group)).toEqual(groupTree(k.summary?.root_group));
    for (const m of [
      'grpc_req_duration',
      'grpc_streams',
      'grpc_streams_msgs_sent',
      'grpc_streams_msgs_received',
    ])
      expect(pointCount(n.records, m), m).toBe(pointCount(k.records, m));
    expect(metricNames(n, true)).toEqual(metricNames(k, true));
    expect(tags(n, true)).toEqual(tags(k, true));
  });

  it('gRPC server streaming: the client half-closes after its one request, so the stream ends', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'grpc-server-stream.js', { env: { GRPC_ADDR: grpc.addr } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    for (const m of ['grpc_streams', 'grpc_streams_msgs_sent', 'grpc_streams_msgs_received'])
      expect(count(n, m), m).toBe(count(k, m));
    expect(count(k, 'grpc_streams_msgs_received')).toBe(6);
    const checks = checkCounts(k.summary?.root_group);
    expect(Object.values(checks)).toEqual([[2, 0]]);
    expect(checkCounts(n.summary?.root_group)).toEqual(checks);
  });

  it('gRPC stream cut by gracefulStop: its late answer reaches no one, not the next scenario', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'grpc-interrupted-stream.js', {
      env: { GRPC_ADDR: grpc.addr },
    });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    // The level's four iterations ran (1.1 s to 2.3 s), past the answer at 1.5 s, on the VU the warm-up used.
    expect(count(k, 'iterations')).toBe(4);
    expect(count(n, 'iterations')).toBe(count(k, 'iterations'));
    for (const m of ['late_answers', 'grpc_streams_msgs_received'])
      expect({ m, node: count(n, m) }).toEqual({ m, node: count(k, m) });
    expect(count(k, 'late_answers')).toBe(0);
  });

  it('gRPC healthCheck(): statuses, HealthCheck* constants, NotFound for an unknown service', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'grpc-health.js', { env: { GRPC_ADDR: grpc.addr } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    expect(count(n, 'grpc_req_duration')).toBe(count(k, 'grpc_req_duration'));
    const checks = checkCounts(k.summary?.root_group);
    expect(Object.values(checks)).toEqual(Array(5).fill([1, 0]));
    expect(checkCounts(n.summary?.root_group)).toEqual(checks);
  });

  it('interrupts a CPU-bound iteration at the end of gracefulStop, then runs teardown and the summary', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'busy.js');
    expect(k.code).toBe(0);
    expect(n.code).toBe(0);
    expect(count(n, 'iterations')).toBe(count(k, 'iterations'));
    expect(groupTree(n.summary?.root_group)).toEqual(groupTree(k.summary?.root_group));
  });

  it('stops setup() and teardown() that never yield at their timeouts (exit 100, 101)', async () => {
    for (const [name, code] of [
      ['busy-setup.js', 100],
      ['busy-teardown.js', 101],
    ] as const) {
      const { k6: k, node: n } = await runBoth(k6, name);
      expect(k.code, name).toBe(code);
      expect(n.code, name).toBe(code);
      expect(count(n, 'iterations'), name).toBe(count(k, 'iterations'));
      expect(n.summary, name).not.toBeNull();
    }
  });

  it('writes --out json records of the same shape', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'http.js', { env: { BASE: base } });
    const shapes = (o: Outcome) => {
      const s = new Set<string>();
      for (const r of o.records) s.add(`${r.type} ${shape(r, 2).join(',')}`);
      return [...s].sort();
    };
    expect(shapes(n)).toEqual(shapes(k));
  });

  it('carries exec.vu.metrics.metadata to --out json while it is set, as strings', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'metadata.js');
    const metadata = (o: Outcome) =>
      o.records
        .filter((r) => r.type === 'Point' && r.metric === 'agreement_records')
        .map((r) => ({ value: r.data.value, metadata: r.data['metadata'] ?? null }));
    expect(metadata(k)).toHaveLength(6);
    expect(metadata(k)[0]!.metadata).toEqual({ request: '{"iteration":0,"chunks":[1,2]}', n: '0' });
    expect(metadata(n)).toEqual(metadata(k));
  });
});
