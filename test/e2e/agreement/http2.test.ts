/**
 * Agreement on HTTP/2: scripts/http2.js runs under real k6 and the Node runtime against local servers
 * (h2 and http/1.1 by ALPN, h2 only, http/1.1 only, plain h2c). Both report HTTP/2.0 where ALPN picks h2,
 * HTTP/1.1 otherwise, and both fail against h2c with the same error code (Go's client speaks no h2c).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedIdentity } from '@k6-triton/server';
import { checkCounts, findK6, groupTree, type Outcome, runBoth, thresholdVerdicts } from './harness.ts';
import { type Listening, startH1Tls, startH2c, startH2OnlyTls, startH2Tls } from './protocol-servers.ts';

const { bin: K6, looked } = findK6();
if (!K6) console.log(`HTTP/2 agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

/** server tag → the sorted values of another tag on http_reqs points. */
function byServer(o: Outcome, tag: string): Record<string, string[]> {
  const out: Record<string, Set<string>> = {};
  for (const r of o.records) {
    if (r.type !== 'Point' || r.metric !== 'http_reqs') continue;
    const server = r.data.tags?.['server'] ?? '';
    const values = out[server] ?? new Set<string>();
    values.add(r.data.tags?.[tag] ?? '(none)');
    out[server] = values;
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v].sort()]));
}

describe.skipIf(!K6)('HTTP/2 agreement with real k6', () => {
  const servers: Listening[] = [];
  let env: Record<string, string> = {};

  beforeAll(async () => {
    const id = await selfSignedIdentity();
    const [h2, h2only, h1, h2c] = await Promise.all([
      startH2Tls(id),
      startH2OnlyTls(id),
      startH1Tls(id),
      startH2c(),
    ]);
    servers.push(h2, h2only, h1, h2c);
    env = { H2_URL: h2.url, H2ONLY_URL: h2only.url, H1_URL: h1.url, H2C_URL: h2c.url };
  }, 30_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('HTTP/2.0 where ALPN picks h2, HTTP/1.1 otherwise, h2c fails alike', async () => {
    const { k6: k, node: n } = await runBoth(K6 ?? '', 'http2.js', { env });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    const checks = Object.values(k.summary?.root_group.checks ?? {});
    expect(checks.length).toBe(13);
    expect(checks.every((c) => c.fails === 0)).toBe(true);
    expect(groupTree(n.summary?.root_group)).toEqual(groupTree(k.summary?.root_group));
    expect(byServer(k, 'proto')).toEqual({
      'h2 and http/1.1': ['HTTP/2.0'],
      'h2 only': ['HTTP/2.0'],
      'http/1.1 only': ['HTTP/1.1'],
      h2c: ['(none)'],
    });
    expect(byServer(n, 'proto')).toEqual(byServer(k, 'proto'));
    expect(byServer(n, 'error_code')).toEqual(byServer(k, 'error_code'));
  }, 90_000);

  it("k6's thresholds_readme_example, on a local h2 server: every check passes and no threshold aborts", async () => {
    const { k6: k, node: n } = await runBoth(K6 ?? '', 'http2-thresholds.js', { env });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    const failed = (o: Outcome) =>
      Object.entries(checkCounts(o.summary?.root_group)).filter(([, [, f]]) => f > 0);
    expect(Object.keys(checkCounts(k.summary?.root_group)).sort()).toEqual([
      '::Static Assets::reused connection',
      '::Static Assets::status is 200',
      '::content is present',
      '::http2 is used',
      '::status is 200',
    ]);
    expect(failed(k)).toEqual([]);
    expect(failed(n)).toEqual([]);
    expect(thresholdVerdicts(n.summary)).toEqual(thresholdVerdicts(k.summary));
    expect(Object.values(thresholdVerdicts(k.summary)).length).toBeGreaterThan(0);
  }, 90_000);
});
