/**
 * Agreement on k6/html: scripts/html.js runs under real k6 and the Node runtime against a local server
 * serving scripts/data/shop.html. It does what k6's Response.html examples do (es6sample's p.description,
 * pantheon's title and h1 checks) and reads the Selection and Element APIs into check names: both runtimes
 * must pass the examples' checks and produce the same names.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPaths, findK6, runBoth, script } from './harness.ts';
import { type Listening, startHttp } from './protocol-servers.ts';

const { bin: K6, looked } = findK6();
if (!K6) console.log(`k6/html agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

describe.skipIf(!K6)('k6/html agreement with real k6', () => {
  let server: Listening;
  beforeAll(async () => {
    const page = readFileSync(script('data/shop.html'));
    server = await startHttp((_req, res) => {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end(page);
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("Response.html() and parseHTML give k6's values", async () => {
    const { k6: k, node: n } = await runBoth(K6 ?? '', 'html.js', { env: { BASE: server.url } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    const want = checkPaths(k.summary?.root_group);
    for (const name of ['welcome message is correct', 'title is correct', 'checkout complete'])
      expect(want[`::examples::${name}`]).toBe('1/0');
    const got = checkPaths(n.summary?.root_group);
    const differ = Object.keys({ ...want, ...got }).filter((k) => !(k in want) || !(k in got));
    expect(differ.sort()).toEqual([]);
    expect(got).toEqual(want);
  }, 90_000);
});
