/**
 * Agreement on Response.submitForm() and clickLink(): scripts/forms.js calls them synchronously, as k6
 * scripts do, against a local server serving scripts/data/forms.html and echoing every other request; both
 * runtimes must send the same requests and throw the same errors.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCounts, findK6, runBoth, script } from './harness.ts';
import { type Listening, startHttp } from './protocol-servers.ts';

const { bin: K6, looked } = findK6();
if (!K6) console.log(`forms agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

const page = readFileSync(script('data/forms.html'));

function serve(req: IncomingMessage, res: ServerResponse): void {
  if (req.url === '/app/forms') {
    res.setHeader('Content-Type', 'text/html');
    res.end(page);
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () =>
    res.end(`${req.method} ${req.url} ${req.headers['content-type'] ?? '-'} ${Buffer.concat(chunks)}`),
  );
}

describe.skipIf(!K6)('submitForm and clickLink agreement with real k6', () => {
  let server: Listening;
  beforeAll(async () => {
    server = await startHttp(serve as never);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('the same requests and errors', async () => {
    const { k6: k, node: n } = await runBoth(K6 ?? '', 'forms.js', { env: { BASE: server.url } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    const checks = checkCounts(k.summary?.root_group);
    expect(Object.keys(checks).length).toBe(8);
    expect(Object.values(checks).every(([, fails]) => fails === 0)).toBe(true);
    expect(checkCounts(n.summary?.root_group)).toEqual(checks);
  }, 90_000);
});
