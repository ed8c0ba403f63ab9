/**
 * Agreement on a typical k6 script with synchronous k6/http calls (scripts/sync-http.js): under real
 * k6 and the Node runtime, the same exit codes, checks, request counts per iteration, threshold
 * verdicts and metric names; with a fixed iteration count, the same counts. Real k6 comes from K6_BIN
 * or ../shared/tools/bin/k6; without it the suite is skipped, saying so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkCounts as checks,
  declaredMetrics as metricNames,
  findK6,
  count,
  runBoth,
  thresholdVerdicts,
} from './harness.ts';
import { type Listening, startHttp } from './protocol-servers.ts';

const { bin: K6, looked } = findK6();
if (!K6)
  console.log(`sync-http agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

describe.skipIf(!K6)('synchronous k6/http agrees with real k6', () => {
  const k6 = K6 ?? '';
  let server: Listening | undefined;
  let base = '';

  beforeAll(async () => {
    server = await startHttp((req, res) => {
      req.resume();
      req.on('end', () => {
        const ok = req.url === '/ok';
        res.writeHead(ok ? 200 : 404, { 'content-type': 'text/plain' });
        res.end(ok ? 'ok' : 'no');
      });
    });
    base = server.url;
  });
  afterAll(() => server?.close());

  it('a fixed number of iterations: the same counts, checks, thresholds and metric names', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'sync-http.js', { env: { BASE: base, SHAPE: 'fixed' } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    for (const o of [k, n]) {
      expect(count(o, 'iterations')).toBe(6);
      expect(count(o, 'http_reqs')).toBe(30);
    }
    const want = checks(k.summary?.root_group);
    expect(Object.keys(want)).toHaveLength(7);
    expect(Object.values(want).every(([p, f]) => p === 6 && f === 0)).toBe(true);
    expect(checks(n.summary?.root_group)).toEqual(want);
    expect(thresholdVerdicts(n.summary)).toEqual(thresholdVerdicts(k.summary));
    expect(metricNames(n)).toEqual(metricNames(k));
  });

  it('stages: every iteration makes its five requests and passes its checks on both runtimes', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'sync-http.js', { env: { BASE: base } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    for (const o of [k, n]) {
      const iterations = count(o, 'iterations');
      expect(iterations).toBeGreaterThan(6);
      // Interrupted iterations (the ramp-down) may have sent requests without completing.
      expect(count(o, 'http_reqs')).toBeGreaterThanOrEqual(5 * iterations);
      const c = checks(o.summary?.root_group);
      expect(Object.keys(c).sort()).toEqual(Object.keys(checks(k.summary?.root_group)).sort());
      expect(Object.values(c).every(([, f]) => f === 0)).toBe(true);
    }
    expect(thresholdVerdicts(n.summary)).toEqual(thresholdVerdicts(k.summary));
  });

  it('a failing threshold exits 99 on both', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'sync-http.js', {
      env: { BASE: base, SHAPE: 'fixed', FAIL: '1' },
    });
    expect(k.code, k.stderr).toBe(99);
    expect(n.code, n.stderr).toBe(99);
    expect(thresholdVerdicts(n.summary)).toEqual(thresholdVerdicts(k.summary));
    expect(count(n, 'http_reqs')).toBe(count(k, 'http_reqs'));
  });
});
