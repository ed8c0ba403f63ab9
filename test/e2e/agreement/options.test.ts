/**
 * Agreement for k6's options, flags and variables the Node runtime honours (its surface table,
 * packages/runtime/src/options/k6-surface.ts): each script runs under real k6 and `k6-triton run`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, findK6, runBoth } from './harness.ts';
import { type Listening, startHttp } from './protocol-servers.ts';

const { bin: K6, looked } = findK6();
if (!K6) console.log(`options agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

let server: Listening | undefined;
let base = '';
beforeAll(async () => {
  server = await startHttp((req, res) => {
    res.writeHead(200, { 'X-Ua': req.headers['user-agent'] ?? '' });
    res.end('ok');
  });
  base = server.url;
});
afterAll(() => server?.close());

describe.skipIf(!K6)('options agreement with real k6', () => {
  it('minIterationDuration holds a 2 s, 1-VU run to about 7 iterations in both', async () => {
    const r = await runBoth(K6!, 'min-iteration-duration.js');
    expect([r.k6.code, r.node.code]).toEqual([0, 0]);
    for (const o of [r.k6, r.node]) {
      expect(count(o, 'iterations')).toBeGreaterThanOrEqual(5);
      expect(count(o, 'iterations')).toBeLessThanOrEqual(8);
    }
    expect(Math.abs(count(r.k6, 'iterations') - count(r.node, 'iterations'))).toBeLessThanOrEqual(1);
  });

  it('K6_NO_THRESHOLDS=true turns a crossed threshold into exit 0, as --no-thresholds does', async () => {
    const [crossed, off, flag] = await Promise.all([
      runBoth(K6!, 'threshold-crossed.js'),
      runBoth(K6!, 'threshold-crossed.js', { env: { K6_NO_THRESHOLDS: 'true' } }),
      runBoth(K6!, 'threshold-crossed.js', { args: ['--no-thresholds'] }),
    ]);
    expect([crossed.k6.code, crossed.node.code]).toEqual([99, 99]);
    expect([off.k6.code, off.node.code]).toEqual([0, 0]);
    expect([flag.k6.code, flag.node.code]).toEqual([0, 0]);
  });

  it('-s/--stage and K6_STAGES ramp the default scenario to the same peak', async () => {
    const [flag, env] = await Promise.all([
      runBoth(K6!, 'empty.js', { args: ['-s', '1s:3', '-s', '500ms:0'] }),
      runBoth(K6!, 'empty.js', { env: { K6_STAGES: '1s:2,500ms:0' } }),
    ]);
    expect([flag.k6.code, flag.node.code, env.k6.code, env.node.code]).toEqual([0, 0, 0, 0]);
    expect(flag.node.summary?.metrics['vus_max']?.['value']).toBe(
      flag.k6.summary?.metrics['vus_max']?.['value'],
    );
    expect(flag.node.summary?.metrics['vus_max']?.['value']).toBe(3);
    expect(env.node.summary?.metrics['vus_max']?.['value']).toBe(
      env.k6.summary?.metrics['vus_max']?.['value'],
    );
    expect(env.node.summary?.metrics['vus_max']?.['value']).toBe(2);
  });

  it('blockHostnames and blacklistIPs fail requests with the same error codes', async () => {
    const r = await runBoth(K6!, 'blocked-dials.js');
    expect([r.k6.code, r.node.code]).toEqual([0, 0]);
    const checks = (o: typeof r.k6) =>
      Object.fromEntries(
        Object.values(o.summary?.root_group.checks ?? {}).map((c) => [c.name, [c.passes, c.fails]]),
      );
    const want = {
      'blocked hostname: 1111': [1, 0],
      'blacklisted ip: 1110': [1, 0],
      'blacklisted after lookup: 1110': [1, 0],
    };
    expect(checks(r.k6)).toEqual(want);
    expect(checks(r.node)).toEqual(want);
  });

  it('userAgent is sent and throw throws a GoError, in both', async () => {
    const r = await runBoth(K6!, 'user-agent-throw.js', { env: { BASE: base } });
    expect([r.k6.code, r.node.code]).toEqual([0, 0]);
    const checks = (o: typeof r.k6) =>
      Object.fromEntries(
        Object.values(o.summary?.root_group.checks ?? {}).map((c) => [c.name, [c.passes, c.fails]]),
      );
    const want = { 'user agent sent': [1, 0], 'transport error thrown as a GoError': [1, 0] };
    expect(checks(r.k6)).toEqual(want);
    expect(checks(r.node)).toEqual(want);
  });
});
