/**
 * Agreement on http.file() and object bodies: scripts/multipart.js posts them under real k6 and the Node
 * runtime to a local server that answers with what it received (boundary masked, parts sorted by name, as
 * k6's part order is random); both must produce the same answers.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPaths, findK6, runBoth } from './harness.ts';
import { type Listening, startHttp } from './protocol-servers.ts';

const { bin: K6, looked } = findK6();
if (!K6)
  console.log(`multipart agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

/** What the server received, in an order-free form. */
function describeBody(contentType: string, body: Buffer): string {
  const m = /boundary=([^;]+)$/.exec(contentType);
  const text = body.toString('latin1');
  if (!contentType.startsWith('multipart/') || !m) return JSON.stringify({ contentType, body: text });
  // The boundary the body uses: the header's, or (a Content-Type set by hand) the one in the body.
  const boundary = text.startsWith(`--${m[1]}\r\n`) ? m[1]! : (/^--([0-9a-f]{60})\r\n/.exec(text)?.[1] ?? '');
  const framed = text.startsWith(`--${boundary}\r\n`) && text.endsWith(`\r\n--${boundary}--\r\n`);
  const inner = text.slice(`--${boundary}\r\n`.length, -`\r\n--${boundary}--\r\n`.length);
  const parts = inner.split(`\r\n--${boundary}\r\n`).map((p) => {
    const cut = p.indexOf('\r\n\r\n');
    const bytes = Buffer.from(p.slice(cut + 4), 'latin1');
    return `${p.slice(0, cut).replace(/filename="\d+"/, 'filename="<digits>"')} | ${bytes.length} bytes ${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}`;
  });
  return JSON.stringify({
    contentType: contentType.replace(m[1]!, m[1] === boundary ? `<${boundary.length} hex>` : m[1]!),
    hex: /^[0-9a-f]+$/.test(boundary),
    framed,
    parts: parts.sort(),
  });
}

function echo(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => res.end(describeBody(req.headers['content-type'] ?? '', Buffer.concat(chunks))));
}

describe.skipIf(!K6)('http.file and form bodies agreement with real k6', () => {
  let server: Listening;
  beforeAll(async () => {
    server = await startHttp(echo as never);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('the server receives the same parts, names, filenames, content types and bytes', async () => {
    const { k6: k, node: n } = await runBoth(K6 ?? '', 'multipart.js', { env: { BASE: server.url } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    const want = checkPaths(k.summary?.root_group);
    expect(Object.values(want).every((v) => v === '1/0')).toBe(true);
    expect(Object.keys(want).some((name) => name.includes('"framed":true'))).toBe(true);
    expect(checkPaths(n.summary?.root_group)).toEqual(want);
  }, 90_000);
});
