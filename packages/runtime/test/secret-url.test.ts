/** k6's url secret source against a local server: template, headers, responsePath, retries and k6's errors. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UrlSecretSource, urlSourceConfig } from '../src/modules/secret-url.ts';

let server: Server;
let base = '';
const hits = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const n = (hits.get(req.url ?? '') ?? 0) + 1;
    hits.set(req.url ?? '', n);
    if (req.headers.authorization !== 'Bearer t') return void res.writeHead(401).end();
    if (req.url === '/s/flaky' && n === 1) return void res.writeHead(503).end();
    if (req.url === '/s/num') return void res.end('{"plaintext": 7}');
    if (req.url?.startsWith('/s/missing')) return void res.writeHead(404).end();
    res.end(JSON.stringify({ plaintext: `value of ${req.url?.slice(3)}` }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

const source = (extra = '') =>
  new UrlSecretSource(
    urlSourceConfig(
      `urlTemplate=${base}/s/{key},headers.Authorization=Bearer t,responsePath=plaintext${extra}`,
      '.',
      {},
    ),
  );

describe('url secret source', () => {
  it('fetches the template with the key and picks responsePath', async () => {
    await expect(source().get('api')).resolves.toBe('value of api');
  });
  it('retries a 5xx, not a 404, and names k6 errors', async () => {
    await expect(source(',retryBackoff=1ms,maxRetries=1').get('flaky')).resolves.toBe('value of flaky');
    expect(hits.get('/s/flaky')).toBe(2);
    await expect(source(',maxRetries=3').get('missing')).rejects.toThrow(
      'status code 404: failed to get secret',
    );
    expect(hits.get('/s/missing')).toBe(1);
    await expect(source().get('num')).rejects.toThrow(
      'failed to extract secret: secret value at path "plaintext" is not a string (got Number)',
    );
  });
  it('layers the environment under inline keys', () => {
    const cfg = urlSourceConfig('timeout=5s', '.', {
      K6_SECRET_SOURCE_URL_URL_TEMPLATE: 'https://v/{key}',
      K6_SECRET_SOURCE_URL_TIMEOUT: '9s',
      K6_SECRET_SOURCE_URL_HEADER_X_TOKEN: 'abc',
    });
    expect(cfg).toMatchObject({
      urlTemplate: 'https://v/{key}',
      timeout_ms: 5000,
      headers: { X_TOKEN: 'abc' },
    });
  });
});
