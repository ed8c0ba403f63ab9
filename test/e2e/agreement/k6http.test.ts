/**
 * Agreement for the rest of k6/http: cookie jars, redirects, basic and digest auth, http.batch's
 * limits, against a local httpbin-like server. Each script runs under real k6 and `k6-triton run`;
 * exit codes, checks, request counts and each request's tags must be the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpbinServer, startHttpbin } from '../../runtime/httpbin-server.ts';
import { findK6, groupTree, type Outcome, runBoth } from './harness.ts';

const { bin: K6, looked } = findK6();
if (!K6) console.log(`k6/http agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

/** Each http_reqs point as `method url name status expected_response`, the servers' bases replaced. */
function requests(o: Outcome, bases: string[]): string[] {
  const strip = (s: string | undefined) => bases.reduce((acc, b, i) => acc.split(b).join(`B${i}`), s ?? '');
  return o.records
    .filter((r) => r.type === 'Point' && r.metric === 'http_reqs')
    .map((r) => {
      const t = r.data.tags ?? {};
      return `${t['method']} ${strip(t['url'])} ${strip(t['name'])} ${t['status']} ${t['expected_response']}`;
    })
    .sort();
}

/** Every check of the run passed (and there were some). */
function allPassed(o: Outcome): void {
  const checks = Object.values(o.summary?.root_group.checks ?? {});
  expect(checks.length).toBeGreaterThan(0);
  for (const c of checks) expect([c.name, c.fails]).toEqual([c.name, 0]);
}

describe.skipIf(!K6)('k6/http agreement with real k6', () => {
  const k6 = K6 ?? '';
  let a: HttpbinServer;

  beforeAll(async () => {
    a = await startHttpbin();
  });
  afterAll(async () => {
    await a?.stop();
  });

  for (const name of ['cookies.js', 'redirects.js', 'redirect-warning.js', 'auth.js']) {
    it(`${name}: the same checks pass and the same requests are made, with the same tags`, async () => {
      const { k6: k, node: n } = await runBoth(k6, name, { env: { BASE: a.base } });
      expect(k.code, k.stderr).toBe(0);
      expect(n.code, n.stderr).toBe(0);
      allPassed(k);
      allPassed(n);
      expect(groupTree(n.summary?.root_group)).toEqual(groupTree(k.summary?.root_group));
      expect(requests(n, [a.base])).toEqual(requests(k, [a.base]));
    });
  }

  it('a request stopped at the default 10 redirects is logged with its URL; one stopped at maxRedirects is not', async () => {
    const warning = 'Stopped after 11 redirects and returned the redirection';
    const { k6: k, node: n } = await runBoth(k6, 'redirect-warning.js', { env: { BASE: a.base } });
    expect(k.stderr).toContain(warning);
    expect(n.stderr).toContain(warning);
    expect(n.stderr).toContain(`url=${a.base}/redirect/12`);
    const set = await runBoth(k6, 'redirects.js', { env: { BASE: a.base } });
    expect(set.k6.stderr).not.toContain('Stopped after');
    expect(set.node.stderr).not.toContain('Stopped after');
  });

  it('batch.js: at most `batch` requests in flight, and `batchPerHost` per host', async () => {
    const bases = [a.base, a.base2];
    const { k6: k, node: n } = await runBoth(k6, 'batch.js', { env: { BASE: a.base, BASE2: a.base2 } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    allPassed(k);
    allPassed(n);
    expect(requests(n, bases)).toEqual(requests(k, bases));
    // Per client (User-Agent): 6 requests to one host, then 6 to another, ran at most 2 per host at once
    // (batchPerHost; 6 without it) and at most 3 in all (batch; 4 without it: 2 per host from the start).
    const perClient = [...a.peak].filter(([key]) => !key.includes(' 127.0.0.1:')).map(([, v]) => v);
    const perHost = [...a.peak].filter(([key]) => key.includes(' 127.0.0.1:')).map(([, v]) => v);
    expect(perHost).toEqual([2, 2, 2, 2]);
    expect(perClient).toHaveLength(2);
    for (const peak of perClient) expect(peak).toBeLessThanOrEqual(3);
  });
});
