/**
 * Agreement on k6's url secret source: scripts/secrets-url.js reads secrets through
 * `--secret-source url=urlTemplate=…,headers.Authorization=…,responsePath=…` from a local server, under
 * real k6 and the Node runtime: same values, same rejections, the secret redacted in both logs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCounts, findK6, runBoth } from './harness.ts';
import { type Listening, startHttp } from './protocol-servers.ts';

const { bin: K6, looked } = findK6();
if (!K6)
  console.log(
    `url secret source agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`,
  );

describe.skipIf(!K6)('url secret source agreement with real k6', () => {
  let server: Listening;
  beforeAll(async () => {
    server = await startHttp((req, res) => {
      if (req.headers.authorization !== 'Bearer t0ken') return void res.writeHead(401).end();
      if (req.url === '/secrets/missing') return void res.writeHead(404).end();
      if (req.url === '/secrets/num') return void res.end('{"plaintext": 7}');
      res.end(JSON.stringify({ plaintext: `value of ${req.url?.slice('/secrets/'.length)}` }));
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('the same values and rejections, the secret redacted', async () => {
    const source = `url=urlTemplate=${server.url}/secrets/{key},headers.Authorization=Bearer t0ken,responsePath=plaintext`;
    const { k6: k, node: n } = await runBoth(K6 ?? '', 'secrets-url.js', {
      args: ['--secret-source', source],
    });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    const checks = checkCounts(k.summary?.root_group);
    expect(checks['::value picked by responsePath']).toEqual([1, 0]);
    expect(checkCounts(n.summary?.root_group)).toEqual(checks);
    for (const o of [k, n]) {
      expect(o.stderr).toContain('the secret is ***SECRET_REDACTED***');
      expect(o.stderr).not.toContain('value of api');
    }
  }, 90_000);
});
