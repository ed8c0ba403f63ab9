/**
 * Agreement on synchronous k6/http calls the Node runtime's loader cannot await (scripts/blocking-*.js:
 * in callbacks, getters, a describe()-style wrapper, setup and teardown), which it runs in blocking VU
 * mode: the same exit codes, request counts, checks by group, threshold verdicts and custom metrics as
 * real k6. Real k6 comes from K6_BIN or ../shared/tools/bin/k6; without it the suite is skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Listening, startHttp } from './protocol-servers.ts';
import { checkCounts, count, findK6, groupTree, runBoth, sumByTag, thresholdVerdicts } from './harness.ts';

const { bin: K6, looked } = findK6();
if (!K6)
  console.log(`blocking agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

describe.skipIf(!K6)('blocking VU mode agrees with real k6', () => {
  const k6 = K6 ?? '';
  let server: Listening | undefined;
  let base = '';

  beforeAll(async () => {
    server = await startHttp((req, res) => {
      req.resume();
      const url = req.url ?? '/';
      if (url === '/set-cookie') res.setHeader('Set-Cookie', 'sid=abc; Path=/');
      if (url === '/fail') res.statusCode = 500;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, path: url, cookie: req.headers.cookie ?? '' }));
    });
    base = server.url;
  });
  afterAll(() => server?.close());

  it('calls in a forEach, a getter and a wrapper: counts, groups, checks, cookies, thresholds (-u 4, 12 shared)', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'blocking-callbacks.js', { env: { BASE: base } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    for (const o of [k, n]) {
      expect(count(o, 'iterations')).toBe(12);
      expect(count(o, 'http_reqs')).toBe(72);
      expect(count(o, 'wrapped_calls')).toBe(12);
      expect(o.summary?.metrics['echo_time']?.['max']).toBeGreaterThan(0);
    }
    const tree = groupTree(k.summary?.root_group);
    expect(JSON.stringify(tree)).toContain('::suite::cookies::cookies: kept');
    expect(groupTree(n.summary?.root_group)).toEqual(tree);
    expect(thresholdVerdicts(n.summary)).toEqual(thresholdVerdicts(k.summary));
    expect(Object.values(thresholdVerdicts(k.summary))).toEqual([false, false, false]);
  });

  it("requests inside check()'s functions: the same checks, and the failing one fails the run (exit 99)", async () => {
    const { k6: k, node: n } = await runBoth(k6, 'check-requests.js', { env: { BASE: base } });
    expect(k.code, k.stderr).toBe(99);
    expect(n.code, n.stderr).toBe(99);
    expect(checkCounts(k.summary?.root_group)).toEqual({
      '::a page answers 200': [4, 0],
      '::the failing page answers 200': [0, 4],
    });
    expect(checkCounts(n.summary?.root_group)).toEqual(checkCounts(k.summary?.root_group));
    expect(count(n, 'http_reqs')).toBe(8);
  });

  it('a crossed threshold on a custom metric exits 99 on both', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'blocking-callbacks.js', { env: { BASE: base, FAIL: '1' } });
    expect(k.code, k.stderr).toBe(99);
    expect(n.code, n.stderr).toBe(99);
    expect(thresholdVerdicts(n.summary)).toEqual(thresholdVerdicts(k.summary));
  });

  it('setup and teardown, an iteration that throws, a failed request: the same counts and exit code', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'blocking-lifecycle.js', { env: { BASE: base } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    for (const o of [k, n]) {
      expect(count(o, 'iterations')).toBe(6);
      expect(count(o, 'http_reqs')).toBe(16);
      expect(o.stderr).toContain('thrown in iteration 3');
    }
    expect(groupTree(n.summary?.root_group)).toEqual(groupTree(k.summary?.root_group));
    expect(thresholdVerdicts(n.summary)).toEqual(thresholdVerdicts(k.summary));
    expect(n.summary?.metrics['http_req_failed']).toMatchObject({
      passes: k.summary?.metrics['http_req_failed']?.['passes'],
      fails: k.summary?.metrics['http_req_failed']?.['fails'],
    });
  });

  it('batch, http.url names, response callbacks and exec.vu.tags: the same requests, failures and tags', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'blocking-batch.js', { env: { BASE: base } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    expect(count(k, 'http_reqs')).toBe(10);
    expect(count(n, 'http_reqs')).toBe(10);
    expect(groupTree(n.summary?.root_group)).toEqual(groupTree(k.summary?.root_group));
    expect(n.summary?.metrics['http_req_failed']).toMatchObject({
      passes: k.summary?.metrics['http_req_failed']?.['passes'],
      fails: k.summary?.metrics['http_req_failed']?.['fails'],
    });
    const names = (o: typeof k) => Object.keys(sumByTag(o.records, 'http_reqs', 'name')).sort();
    expect(names(n)).toEqual(names(k));
    // k6 names an http.url request by its template: each placeholder, the base URL's too, is a dollar sign and braces.
    expect(names(k)).toContain(`\${}/u/\${}`);
    expect(sumByTag(n.records, 'iterations', 'phase')).toEqual({ batch: 2 });
    expect(sumByTag(n.records, 'iterations', 'phase')).toEqual(sumByTag(k.records, 'iterations', 'phase'));
  });
});
