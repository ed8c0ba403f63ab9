import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deepFreeze } from '@k6-triton/lib/kserve/freeze.ts';
import http from '../src/modules/http.ts';
import { asyncRequest, expectedStatuses, setResponseCallback } from '../src/modules/http.ts';
import { followVuAcrossAwaits, runInVu } from '../src/vu-context.ts';
import { type FakeVu, fakeVu, samplesOf } from './fake-vu.ts';

// These tests call module functions directly across awaits, where a script's would be bound to its VU.
followVuAcrossAwaits();

const SMALL = '0123456789abcdef';

function route(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  const path = (req.url ?? '/').split('?')[0];
  switch (path) {
    case '/small':
      res.setHeader('x-multi', ['a', 'b']);
      res.setHeader('content-type', 'text/plain');
      res.end(SMALL);
      return;
    case '/bin':
      res.end(Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
      return;
    case '/json':
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ a: { b: [1, 2, 3] }, name: 'x' }));
      return;
    case '/echo':
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          method: req.method,
          length: body.length,
          first: body[0] ?? null,
          last: body.at(-1) ?? null,
          text: body.length < 200 ? body.toString() : '',
          contentType: req.headers['content-type'] ?? null,
          auth: req.headers.authorization ?? null,
        }),
      );
      return;
    case '/redirect':
      res.statusCode = 302;
      res.setHeader('location', '/small');
      res.end();
      return;
    case '/slow':
      // Never answers: the client's timeout must fire. Cleaned up by closeAllConnections.
      return;
    default: {
      const m = /^\/status\/(\d+)$/.exec(path ?? '');
      res.statusCode = m ? Number(m[1]) : 404;
      res.end('status');
    }
  }
}

let server: Server;
let base: string;
let connections = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => route(req, res, Buffer.concat(chunks)));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

async function inVu<T>(vu: FakeVu, fn: () => Promise<T>): Promise<T> {
  try {
    return await runInVu(vu, fn);
  } finally {
    await vu.retire();
  }
}

describe('k6/http asyncRequest', () => {
  it('returns status, text body, canonical headers and k6 fields', async () => {
    const vu = fakeVu();
    const res = await inVu(vu, () => http.asyncRequest('GET', `${base}/small`));
    expect(res.status).toBe(200);
    expect(res.status_text).toBe('200 OK');
    expect(res.proto).toBe('HTTP/1.1');
    expect(res.body).toBe(SMALL);
    expect(res.headers['Content-Type']).toBe('text/plain');
    expect(res.headers['X-Multi']).toBe('a, b');
    expect(res.headers['Content-Length']).toBe('16');
    expect(res.error).toBe('');
    expect(res.error_code).toBe(0);
    expect(res.url).toBe(`${base}/small`);
    expect(res.request.method).toBe('GET');
    expect(res.remote_ip).toBe('127.0.0.1');
    // The body is decoded lazily but behaves as a plain enumerable field.
    expect(JSON.parse(JSON.stringify(res)).body).toBe(SMALL);
    expect(Object.keys(res)).toContain('body');
  });

  it('lets scripts assign the lazy fields, each Response its own (the accessors are shared)', async () => {
    const vu = fakeVu();
    const [a, b] = await inVu(vu, () =>
      Promise.all([http.asyncRequest('GET', `${base}/small`), http.asyncRequest('GET', `${base}/small`)]),
    );
    a.body = 'replaced';
    const fn = () => 'a function is a value too';
    a.headers = fn as unknown as Record<string, string>;
    expect(a.body).toBe('replaced');
    expect(a.headers).toBe(fn);
    expect(b.body).toBe(SMALL);
    expect(b.headers['Content-Type']).toBe('text/plain');
    expect(JSON.parse(JSON.stringify(a)).body).toBe('replaced');
  });

  it('gives the body as an exact ArrayBuffer for responseType binary and null for none', async () => {
    const vu = fakeVu();
    const [bin, none] = await inVu(vu, () =>
      Promise.all([
        asyncRequest('GET', `${base}/bin`, null, { responseType: 'binary' }),
        asyncRequest('GET', `${base}/bin`, null, { responseType: 'none' }),
      ]),
    );
    expect(bin.body).toBeInstanceOf(ArrayBuffer);
    const bytes = new Uint8Array(bin.body as ArrayBuffer);
    expect(bytes.length).toBe(256);
    expect(bytes[255]).toBe(255);
    expect(none.body).toBeNull();
    expect(samplesOf(vu, 'data_received').reduce((a, s) => a + s.value, 0)).toBeGreaterThan(512);
  });

  it('discards bodies when discardResponseBodies is set unless responseType asks for one', async () => {
    const vu = fakeVu({ discardResponseBodies: true });
    const [a, b] = await inVu(vu, () =>
      Promise.all([
        asyncRequest('GET', `${base}/small`),
        asyncRequest('GET', `${base}/small`, null, { responseType: 'text' }),
      ]),
    );
    expect(a.body).toBeNull();
    expect(b.body).toBe(SMALL);
  });

  it('sends string, ArrayBuffer and typed-array-view bodies, and form objects urlencoded', async () => {
    const vu = fakeVu();
    const buf = new Uint8Array(1000).map((_, i) => i % 251);
    const view = new Uint8Array(buf.buffer, 10, 20);
    const [s, ab, v, form] = await inVu(vu, () =>
      Promise.all([
        asyncRequest('POST', `${base}/echo`, 'hello', { headers: { 'Content-Type': 'text/plain' } }),
        asyncRequest('PUT', `${base}/echo`, buf.buffer),
        asyncRequest('POST', `${base}/echo`, view),
        asyncRequest('POST', `${base}/echo`, { a: 1, b: 'x y' }),
      ]),
    );
    expect(s.json()).toMatchObject({ method: 'POST', length: 5, text: 'hello', contentType: 'text/plain' });
    expect(ab.json()).toMatchObject({ method: 'PUT', length: 1000, first: 0, last: 999 % 251 });
    expect(v.json()).toMatchObject({ length: 20, first: 10, last: 29 });
    expect(form.json()).toMatchObject({
      text: 'a=1&b=x+y',
      contentType: 'application/x-www-form-urlencoded',
    });
  });

  it('selects parts of a JSON body with a gjson selector', async () => {
    const vu = fakeVu();
    const res = await inVu(vu, () => asyncRequest('GET', `${base}/json`));
    expect(res.json('a.b.1')).toBe(2);
    expect(res.json('a.b.#')).toBe(3);
    expect(res.json('name')).toBe('x');
    expect(res.json()).toEqual({ a: { b: [1, 2, 3] }, name: 'x' });
  });

  it('emits k6 metrics with system tags, and duration = sending + waiting + receiving', async () => {
    const vu = fakeVu({ tags: { scenario: 's1' } });
    await inVu(vu, () => asyncRequest('GET', `${base}/small`, null, { tags: { my: 'tag' } }));
    const names = vu.samples.map((s) => s.metric);
    expect(names).toEqual([
      'http_reqs',
      'http_req_duration',
      'http_req_blocked',
      'http_req_connecting',
      'http_req_tls_handshaking',
      'http_req_sending',
      'http_req_waiting',
      'http_req_receiving',
      'http_req_failed',
      'data_sent',
      'data_received',
    ]);
    const tags = samplesOf(vu, 'http_reqs')[0]!.tags;
    expect(tags).toMatchObject({
      scenario: 's1',
      group: '',
      my: 'tag',
      method: 'GET',
      url: `${base}/small`,
      name: `${base}/small`,
      status: '200',
      proto: 'HTTP/1.1',
      expected_response: 'true',
    });
    expect(tags['error_code']).toBeUndefined();
    const value = (m: string) => samplesOf(vu, m)[0]!.value;
    expect(value('http_reqs')).toBe(1);
    expect(value('http_req_failed')).toBe(0);
    expect(value('http_req_tls_handshaking')).toBe(0);
    for (const m of ['http_req_duration', 'http_req_waiting', 'data_sent', 'data_received']) {
      expect(value(m), m).toBeGreaterThan(0);
    }
    expect(value('http_req_duration')).toBeCloseTo(
      value('http_req_sending') + value('http_req_waiting') + value('http_req_receiving'),
      9,
    );
    expect(value('http_req_failed')).toBe(0);
    expect(value('data_sent')).toBeGreaterThan(40);
    expect(value('data_received')).toBeGreaterThan(SMALL.length);
  });

  it('marks 4xx/5xx as failed by default, honours expectedStatuses and a null callback', async () => {
    const vu = fakeVu();
    await inVu(vu, async () => {
      await asyncRequest('GET', `${base}/status/404`);
      await asyncRequest('GET', `${base}/status/404`, null, { responseCallback: expectedStatuses(404) });
      setResponseCallback(null);
      await asyncRequest('GET', `${base}/status/500`);
    });
    const failed = samplesOf(vu, 'http_req_failed');
    expect(failed.map((s) => s.value)).toEqual([1, 0]);
    expect(failed.map((s) => s.tags['expected_response'])).toEqual(['false', 'true']);
    const last = samplesOf(vu, 'http_reqs')[2]!.tags;
    expect(last['status']).toBe('500');
    expect(last['expected_response']).toBeUndefined();
  });

  it('uses the name tag from params and from http.url templates', async () => {
    const vu = fakeVu();
    const id = 404;
    await inVu(vu, async () => {
      await asyncRequest('GET', http.url`${base}/status/${id}`);
      await asyncRequest('GET', `${base}/small`, null, { tags: { name: 'small' } });
    });
    const reqs = samplesOf(vu, 'http_reqs');
    expect(reqs[0]!.tags['name']).toBe('\u0024{}/status/\u0024{}');
    // k6 v2.2.0 tags `url` with the name as well (seen in its --out json and remote-write series).
    expect(reqs[0]!.tags['url']).toBe('\u0024{}/status/\u0024{}');
    expect(reqs[1]!.tags['name']).toBe('small');
    expect(reqs[1]!.tags['url']).toBe('small');
  });

  it('times out with error_code 1050 and status 0', async () => {
    const vu = fakeVu();
    const res = await inVu(vu, () => asyncRequest('GET', `${base}/slow`, null, { timeout: '200ms' }));
    expect(res.status).toBe(0);
    expect(res.error).toBe('request timeout');
    expect(res.error_code).toBe(1050);
    expect(res.body).toBeNull();
    const tags = samplesOf(vu, 'http_reqs')[0]!.tags;
    expect(tags).toMatchObject({ error_code: '1050', status: '0', expected_response: 'false' });
    expect(samplesOf(vu, 'http_req_failed')[0]!.value).toBe(1);
    expect(samplesOf(vu, 'http_req_duration')[0]!.value).toBeGreaterThan(0);
  });

  it('reports a refused connection with error_code 1212', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const vu = fakeVu();
    const res = await inVu(vu, () =>
      asyncRequest('GET', `http://127.0.0.1:${port}/`, null, { timeout: 5000 }),
    );
    expect(res.status).toBe(0);
    expect(res.error_code).toBe(1212);
    expect(res.error).toBe('dial: connection refused');
    expect(samplesOf(vu, 'http_reqs')[0]!.tags['error_code']).toBe('1212');
  });

  it('reuses one keep-alive connection per VU across sequential requests', async () => {
    const before = connections;
    const vu = fakeVu();
    await inVu(vu, async () => {
      for (let i = 0; i < 10; i++) await asyncRequest('GET', `${base}/small`);
    });
    expect(connections - before).toBe(1);
    const connecting = samplesOf(vu, 'http_req_connecting').map((s) => s.value);
    expect(connecting.slice(1).every((v) => v === 0)).toBe(true);
  });

  it('opens a new connection per request with noConnectionReuse', async () => {
    const before = connections;
    const vu = fakeVu({ noConnectionReuse: true });
    await inVu(vu, async () => {
      for (let i = 0; i < 3; i++) await asyncRequest('GET', `${base}/small`);
    });
    expect(connections - before).toBe(3);
  });

  it('follows redirects (each hop is a request) and stops at params.redirects', async () => {
    const vu = fakeVu();
    const [followed, stopped] = await inVu(vu, async () => [
      await asyncRequest('GET', `${base}/redirect`),
      await asyncRequest('GET', `${base}/redirect`, null, { redirects: 0 }),
    ]);
    expect(followed.status).toBe(200);
    expect(followed.url).toBe(`${base}/small`);
    expect(stopped.status).toBe(302);
    expect(samplesOf(vu, 'http_reqs').map((s) => s.tags['status'])).toEqual(['302', '200', '302']);
  });

  it('makes the synchronous forms fail with a message naming asyncRequest', () => {
    expect(() => http.get(`${base}/small`)).toThrow(/asyncRequest/);
    expect(() => http.post(`${base}/small`, 'x')).toThrow(/asyncRequest\('POST'/);
    expect(() => http.batch([])).toThrow(/asyncRequest/);
  });

  it('accepts timeouts as duration strings and rejects bad params with a named error', async () => {
    const vu = fakeVu();
    await expect(
      inVu(vu, () => asyncRequest('GET', `${base}/small`, null, { timeout: 'soon' })),
    ).rejects.toThrow(/invalid duration for http params.timeout: "soon"/);
    await expect(
      inVu(vu, () => asyncRequest('GET', `${base}/small`, null, { responseType: 'blob' })),
    ).rejects.toThrow(/responseType/);
    await expect(
      inVu(vu, () => asyncRequest('GET', `${base}/small`, null, { auth: 'ntlm' })),
    ).rejects.toThrow(/params.auth "ntlm" is not supported by the Node runtime/);
  });

  it('sends basic auth from the URL credentials', async () => {
    const vu = fakeVu();
    const res = await inVu(vu, () =>
      asyncRequest('POST', `${base.replace('//', '//u:p@')}/echo`, null, { auth: 'basic' }),
    );
    expect((res.json() as { auth: string }).auth).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    // k6 tags the URL with its credentials masked.
    expect(samplesOf(vu, 'http_reqs')[0]!.tags['url']).toBe(`${base.replace('//', '//****:****@')}/echo`);
  });

  it('shares frozen params between requests without a header of one reaching another', async () => {
    const vu = fakeVu();
    const params = deepFreeze({ headers: { 'Content-Type': 'application/x-test' } });
    const echo = (res: { json(): unknown }) => res.json() as Record<string, unknown>;
    const [plain, longer, withAuth, form, again] = await inVu(vu, async () => [
      echo(await asyncRequest('POST', `${base}/echo`, 'ab', params)),
      echo(await asyncRequest('POST', `${base}/echo`, 'abcd', params)),
      echo(await asyncRequest('POST', `${base.replace('//', '//u:p@')}/echo`, 'ab', params)),
      echo(await asyncRequest('POST', `${base}/echo`, { k: 'v' }, params)),
      echo(await asyncRequest('PUT', `${base}/echo?x=1`, 'ab', params)),
    ]);
    expect(plain).toMatchObject({
      method: 'POST',
      auth: null,
      contentType: 'application/x-test',
      text: 'ab',
    });
    expect(withAuth!['auth']).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    expect(form).toMatchObject({ auth: null, contentType: 'application/x-test', text: 'k=v' });
    expect(again).toMatchObject({ method: 'PUT', auth: null, text: 'ab' });
    expect(longer).toMatchObject({ method: 'POST', length: 4, text: 'abcd' });
    // A form body on params without Content-Type gets the form's type; the next request must not.
    const untyped = deepFreeze({ headers: { 'X-A': '1' } });
    const [formFirst, after] = await inVu(fakeVu(), async () => [
      echo(await asyncRequest('POST', `${base}/echo`, { k: 'v' }, untyped)),
      echo(await asyncRequest('POST', `${base}/echo`, 'ab', untyped)),
    ]);
    expect(formFirst).toMatchObject({ contentType: 'application/x-www-form-urlencoded', text: 'k=v' });
    expect(after).toMatchObject({ contentType: null, text: 'ab' });
  });

  it('reports an untrusted (self-signed) certificate with error_code 1310', async (ctx) => {
    // A throwaway self-signed certificate made with the openssl CLI, when the machine has one.
    if (spawnSync('openssl', ['version'], { stdio: 'ignore' }).status !== 0) {
      const reason = 'openssl is not on PATH: cannot make the self-signed certificate';
      console.warn(`skipped: untrusted certificate test: ${reason}`);
      ctx.skip(reason);
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'k6t-tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-keyout',
          path.join(dir, 'key.pem'),
          '-out',
          path.join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      );
      const tlsServer = createHttpsServer(
        { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) },
        (_req, res) => res.end('secret'),
      );
      await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
      const port = (tlsServer.address() as AddressInfo).port;
      const vu = fakeVu();
      try {
        const res = await inVu(vu, () =>
          asyncRequest('GET', `https://127.0.0.1:${port}/`, null, { timeout: 5000 }),
        );
        expect(res.status).toBe(0);
        expect(res.error_code).toBe(1310);
        expect(res.error).toBe('x509: unknown authority');
        expect(samplesOf(vu, 'http_reqs')[0]!.tags['error_code']).toBe('1310');
      } finally {
        tlsServer.closeAllConnections();
        await new Promise<void>((r) => tlsServer.close(() => r()));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
