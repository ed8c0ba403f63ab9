/**
 * Agreement for the k6 modules a script may await in its init context (top-level await): k6/secrets
 * with --secret-source, k6/experimental/fs, k6/experimental/csv and k6/experimental/streams. Each
 * script runs under real k6 and the Node runtime; exit codes, iteration counts and every check's
 * passes and fails must be the same, and the ones written here.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCounts, count, findK6, runBoth, script } from './harness.ts';

const { bin: K6, looked } = findK6();
if (!K6) console.log(`modules agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

const SECRETS = [
  '--secret-source',
  `file=${script('data/secrets.env')},default`,
  '--secret-source',
  'mock=name=extra,token=abc123',
];

describe.skipIf(!K6)('k6 modules: agreement with real k6', () => {
  const k6 = K6 ?? '';
  let http: Server;
  let base = '';

  beforeAll(async () => {
    http = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(() => http?.close());

  for (const [name, iterations, checks] of [
    ['fs.js', 4, 9],
    ['csv.js', 5, 7],
    ['csv-errors.js', 1, 8],
    ['fs-errors.js', 1, 9],
    ['streams.js', 4, 3],
  ] as const) {
    it(`${name}: every check passes in every iteration under both`, async () => {
      const { k6: k, node: n } = await runBoth(k6, name);
      expect(k.code, k.stderr).toBe(0);
      expect(n.code, n.stderr).toBe(0);
      expect(count(k, 'iterations')).toBe(iterations);
      expect(count(n, 'iterations')).toBe(iterations);
      const counts = checkCounts(k.summary?.root_group);
      expect(Object.keys(counts)).toHaveLength(checks);
      for (const [check, [, fails]] of Object.entries(counts)) expect(fails, check).toBe(0);
      expect(checkCounts(n.summary?.root_group)).toEqual(counts);
    });
  }

  it('top-level await: an init context that throws after an await exits 107 under both', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'fs.js', { env: { THROW_AFTER_AWAIT: '1' } });
    expect(k.code).toBe(107);
    expect(n.code).toBe(107);
    expect(n.stderr).toContain('init failed after an await');
  });

  it("top-level await with k6/http's synchronous calls (named and default imports, group, sleep)", async () => {
    const { k6: k, node: n } = await runBoth(k6, 'top-level-await-http.js', { env: { BASE: base } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    const counts = checkCounts(k.summary?.root_group);
    expect(Object.values(counts)).toEqual(Array(3).fill([2, 0]));
    expect(checkCounts(n.summary?.root_group)).toEqual(counts);
    expect(count(n, 'http_reqs')).toBe(count(k, 'http_reqs'));
  });

  it('k6/secrets: default and named sources, k6 rejections, secrets redacted in the log', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'secrets.js', { args: SECRETS });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    const counts = checkCounts(k.summary?.root_group);
    expect(Object.values(counts)).toEqual(Array(5).fill([2, 0]));
    expect(checkCounts(n.summary?.root_group)).toEqual(counts);
    for (const o of [k, n]) {
      expect(o.stderr).toContain('the secret is ***SECRET_REDACTED***');
      expect(o.stderr).not.toContain('s3cret-value');
    }
  });

  it('k6/secrets without a source: get() rejects, each iteration logs it, exit 0', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'secrets.js');
    expect(k.code).toBe(0);
    expect(n.code).toBe(0);
    for (const o of [k, n]) expect(o.stderr).toContain('no secret sources are configured');
    expect(count(n, 'iterations')).toBe(count(k, 'iterations'));
  });

  it('a --secret-source of an unknown type is refused before the run (exit 255)', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'secrets.js', { args: ['--secret-source', 'nope=x'] });
    expect(k.code).toBe(255);
    expect(n.code).toBe(255);
    // k6 escapes the quotes in its logfmt line.
    for (const o of [k, n]) expect(o.stderr).toMatch(/no secret source for type \\?"nope\\?"/);
  });
});
