import { OPEN_DIAL } from '../src/transport/dial-policy.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBatch } from '../src/modules/http-batch.ts';
import {
  CookieJar,
  parseParamCookies,
  requestCookiePairs,
  responseCookies,
} from '../src/modules/http-cookies.ts';
import { digestAuthorization, digestChallenge } from '../src/modules/http-digest.ts';
import { asyncRequest, cookieJar } from '../src/modules/http.ts';
import { followVuAcrossAwaits, runInVu } from '../src/vu-context.ts';
import { fakeVu, samplesOf } from './fake-vu.ts';
import { type HttpbinServer, startHttpbin } from './httpbin-server.ts';

followVuAcrossAwaits();

describe('k6/http cookie jars', () => {
  it('keeps cookies by URL and path, deletes one and clears all, as Go’s cookiejar under k6', () => {
    const jar = new CookieJar();
    jar.set('http://h.test/', 'a', '1');
    jar.set('http://h.test/', 'b', '2', { path: '/sub' });
    expect(jar.cookiesForURL('http://h.test/')).toEqual({ a: ['1'] });
    expect(jar.cookiesForURL('http://h.test/sub/x')).toEqual({ b: ['2'], a: ['1'] });
    expect(jar.cookiesForURL('http://other.test/')).toEqual({});
    jar.delete('http://h.test/', 'a');
    expect(jar.cookiesForURL('http://h.test/sub/x')).toEqual({ b: ['2'] });
    jar.set('http://h.test/', 'c', '3', { max_age: -1 });
    expect(jar.cookiesForURL('http://h.test/')).toEqual({});
    expect(() => jar.set('http://h.test/', 'd', '4', { expires: 'someday' })).toThrow(
      /unable to parse "expires"/,
    );
    expect(() => jar.delete('http://h.test/', '')).toThrow('cookie: is null');
  });

  it('puts param cookies first and lets `replace` keep the jar’s cookie of that name out', () => {
    const jar = new CookieJar();
    jar.store(new URL('http://h.test/'), ['a=1; Path=/', 'b=2']);
    const params = parseParamCookies({ c: 3, a: { value: 'p', replace: true }, none: null });
    expect(requestCookiePairs(new URL('http://h.test/x'), jar, params)).toEqual([
      ['c', '3'],
      ['a', 'p'],
      ['b', '2'],
    ]);
  });

  it('reports Set-Cookie headers with Go’s values for absent fields', () => {
    const c = responseCookies([
      's=1; Path=/; HttpOnly',
      'gone=; Max-Age=0',
      'long=x; Max-Age=60; Domain=.h.test',
    ]);
    expect(c['s']![0]).toEqual({
      name: 's',
      value: '1',
      domain: '',
      path: '/',
      http_only: true,
      secure: false,
      max_age: 0,
      expires: -6795364578871,
    });
    expect(c['gone']![0]!.max_age).toBe(-1);
    expect(c['long']![0]).toMatchObject({ max_age: 60, domain: 'h.test' });
  });
});

describe('k6/http digest auth, cookies and batches against a local server', () => {
  let server: HttpbinServer;
  beforeAll(async () => {
    server = await startHttpbin();
  });
  afterAll(() => server.stop());

  it('parses a challenge and answers it as the server checks it', async () => {
    const ch = digestChallenge('Digest realm="r", qop="auth,auth-int", nonce="n1", opaque="o"');
    expect(ch).toEqual({ realm: 'r', qop: 'auth,auth-int', nonce: 'n1', opaque: 'o' });
    expect(digestAuthorization(ch!, 'GET', '/x?y=1', 'u', 'p')).toMatch(
      /^Digest username="u", realm="r", nonce="n1", uri="\/x\?y=1", algorithm=MD5, response="[0-9a-f]{32}", opaque="o", qop=auth, nc=00000001, cnonce="[0-9a-f]{16}"$/,
    );
    const vu = fakeVu();
    const creds = (pass: string) => server.base.replace('//', `//u:${pass}@`);
    const ok = await runInVu(vu, () =>
      asyncRequest('GET', `${creds('p')}/digest-auth/u/p`, null, { auth: 'digest' }),
    );
    const bad = await runInVu(vu, () =>
      asyncRequest('GET', `${creds('x')}/digest-auth/u/p`, null, { auth: 'digest' }),
    );
    expect([ok.status, bad.status]).toEqual([200, 401]);
    // Two requests each: the challenge (expected, as k6 counts it) and the answer.
    const tags = samplesOf(vu, 'http_reqs').map(
      (s) => `${s.tags['status']} ${s.tags['expected_response']} ${s.tags['url']}`,
    );
    const url = `${server.base}/digest-auth/u/p`;
    expect(tags).toEqual([`401 true ${url}`, `200 true ${url}`, `401 true ${url}`, `401 false ${url}`]);
  });

  it('sends back what a server sets, through a redirect, in a jar new each iteration', async () => {
    const vu = Object.assign(fakeVu(), { iterationInInstance: 0 });
    const res = await runInVu(vu, () => asyncRequest('GET', `${server.base}/cookies/set-redirect?k=v`));
    expect(res.url).toBe(`${server.base}/cookies`);
    expect((res.json() as { header: string }).header).toBe('k=v');
    expect(runInVu(vu, () => cookieJar().cookiesForURL(server.base))).toEqual({ k: ['v'] });
    vu.iterationInInstance = 1;
    expect(runInVu(vu, () => cookieJar().cookiesForURL(server.base))).toEqual({});
    const noReset = Object.assign(fakeVu(), { iterationInInstance: 0 });
    noReset.options.http = {
      maxRedirects: null,
      batch: 20,
      batchPerHost: 6,
      noCookiesReset: true,
      throw: false,
      debug: 'off',
      dial: OPEN_DIAL,
    };
    await runInVu(noReset, () => asyncRequest('GET', `${server.base}/cookies/set?k=v`));
    noReset.iterationInInstance = 1;
    expect(runInVu(noReset, () => cookieJar().cookiesForURL(server.base))).toEqual({ k: ['v'] });
  });

  it('runs a batch with at most `batch` in flight and `perHost` per host, results in order', async () => {
    let inFlight = 0;
    let peak = 0;
    const perHost = new Map<string, number>();
    const hostPeak = new Map<string, number>();
    const job = (host: string, i: number) => ({
      host,
      run: async () => {
        inFlight++;
        perHost.set(host, (perHost.get(host) ?? 0) + 1);
        peak = Math.max(peak, inFlight);
        hostPeak.set(host, Math.max(hostPeak.get(host) ?? 0, perHost.get(host)!));
        await new Promise((r) => setImmediate(r));
        inFlight--;
        perHost.set(host, perHost.get(host)! - 1);
        return i;
      },
    });
    const jobs = [...Array(8)].map((_, i) => job(i < 4 ? 'a' : 'b', i));
    expect(await runBatch(jobs, 3, 2)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(peak).toBeLessThanOrEqual(3);
    expect([...hostPeak.values()]).toEqual([2, 2]);
    peak = 0;
    await runBatch(jobs, 8, 0);
    expect(peak).toBe(8);
  });
});
