/**
 * Agreement on scripts that use Grafana's jslibs (k6chaijs, k6-utils, httpx, k6-testing, k6-summary,
 * formdata, url), each as a user downloads it from jslib.k6.io: the same exit code, checks, request
 * and iteration counts under real k6 and the Node runtime. The libraries are not ours, so the
 * repository holds only the scripts: K6_JSLIB_DIR names a folder with the downloaded files
 * (k6chaijs.js, k6-utils.js, httpx.js, k6-testing.js, k6-summary.js, formdata.js, url.js; see
 * docs/node-runtime.md). Without it, or without real k6, the suite is skipped, saying so.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCounts, count, findK6, type Outcome, runBoth } from './harness.ts';
import { type Listening, startHttp } from './protocol-servers.ts';

const LIBS = ['k6chaijs', 'k6-utils', 'httpx', 'k6-testing', 'k6-summary', 'formdata', 'url'];
const { bin: K6, looked } = findK6();
const libDir = process.env['K6_JSLIB_DIR'] ?? '';
const missing = LIBS.filter((l) => !existsSync(join(libDir, `${l}.js`)));
const skip = !K6
  ? `no k6 binary (looked for ${looked.join(', ')})`
  : !libDir
    ? 'K6_JSLIB_DIR is not set'
    : '';
const why = skip || (missing.length ? `K6_JSLIB_DIR lacks ${missing.map((l) => `${l}.js`).join(', ')}` : '');
if (why) console.log(`jslib agreement skipped: ${why}`);

/** Real k6's exit code for each script: the test fails if a script stops doing what it is for. */
const K6_EXIT: Record<string, number> = {
  'chai-describe.js': 0,
  'chai-failing.js': 99,
  'utils.js': 0,
  'httpx-session.js': 0,
  'httpx-async.js': 0,
  'testing-expect.js': 108,
  'testing-soft.js': 110,
  'summary.js': 0,
  'formdata.js': 0,
  'url.js': 0,
};

/** An answer that shows what the server received: method, query, lowercased headers, body, multipart parts. */
async function answer(method: string, url: string, headers: Headers, body: Buffer): Promise<unknown> {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  if (!url.startsWith('/multipart')) {
    return { method, query, headers: Object.fromEntries(headers), body: body.toString('utf8') };
  }
  const form = await new Request('http://x/', { method: 'POST', headers, body }).formData();
  const parts = [];
  for (const [name, value] of form) {
    if (typeof value === 'string') parts.push({ name, data: value });
    else {
      const bytes = Buffer.from(await value.arrayBuffer());
      parts.push({
        name,
        filename: value.name,
        type: value.type,
        data: bytes.toString('utf8'),
        hex: bytes.toString('hex'),
      });
    }
  }
  return { parts };
}

describe.skipIf(Boolean(why))('scripts on Grafana jslibs agree with real k6', () => {
  const k6 = K6 ?? '';
  let server: Listening | undefined;
  let base = '';
  let dir = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k6t-jslib-'));
    cpSync(fileURLToPath(new URL('./scripts/jslib/', import.meta.url)), dir, { recursive: true });
    for (const l of LIBS) cpSync(join(libDir, `${l}.js`), join(dir, 'lib', `${l}.js`));
    server = await startHttp((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const url = req.url ?? '/';
        if (url.startsWith('/ok')) {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('ok');
          return;
        }
        if (!url.startsWith('/echo') && !url.startsWith('/multipart')) {
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('no');
          return;
        }
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
        const body = JSON.stringify(await answer(req.method ?? 'GET', url, headers, Buffer.concat(chunks)));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      });
    });
    base = server.url;
  });
  afterAll(() => {
    server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('every script of scripts/jslib has its expected exit code', () => {
    const scripts = readdirSync(fileURLToPath(new URL('./scripts/jslib/', import.meta.url))).filter((f) =>
      f.endsWith('.js'),
    );
    expect(scripts.sort()).toEqual(Object.keys(K6_EXIT).sort());
  });

  const same = (k: Outcome, n: Outcome) => {
    expect(n.code, n.stderr).toBe(k.code);
    expect(checkCounts(n.summary?.root_group)).toEqual(checkCounts(k.summary?.root_group));
    expect(count(n, 'http_reqs')).toBe(count(k, 'http_reqs'));
    expect(count(n, 'iterations')).toBe(count(k, 'iterations'));
  };

  for (const [name, code] of Object.entries(K6_EXIT)) {
    it(`${name}: real k6 exits ${code}; the Node runtime does as k6 did`, async () => {
      const { k6: k, node: n } = await runBoth(k6, join(dir, name), { env: { BASE: base } });
      expect(k.code, k.stderr).toBe(code);
      expect(count(k, 'http_reqs')).toBeGreaterThan(0);
      same(k, n);
      if (name === 'summary.js') {
        // k6 hands handleSummary its metrics in Go's map order, which changes from run to run.
        const junit = (o: Outcome) =>
          String(o.handleSummary?.['junit'] ?? '')
            .split('\n')
            .map((l) => l.trim())
            .sort();
        expect(junit(k).filter((l) => l.startsWith('<testcase'))).toHaveLength(3);
        expect(junit(n)).toEqual(junit(k));
      }
    });
  }
});
