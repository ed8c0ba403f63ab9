/**
 * Agreement for the rest of k6/http: cookie jars, redirects, basic and digest auth, http.batch's
 * limits, against a local httpbin-like server. Each script runs under real k6 and `k6-triton run`;
 * exit codes, checks, request counts and each request's tags must be the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoServer, startEchoServer } from '../../../packages/runtime/test/echo-grpc-server.ts';
import { type HttpbinServer, startHttpbin } from '../../../packages/runtime/test/httpbin-server.ts';
import { findK6, groupTree, type Outcome, runBoth } from './harness.ts';
import { logEntries, logText } from '../../../packages/runtime/test/logfmt.ts';

const { bin: K6, looked } = findK6();
if (!K6) console.log(`k6/http agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

/** Each http_reqs point as `method url name status expected_response`, the servers' bases replaced. */
function requests(o: Outcome, bases: string[]): string[] {
  const strip = (s: string | undefined) => bases.reduce((acc, b, i) => acc.split(b).join(`B${i}`), s ?? '');
  return o.records
    .filter((r) => r.type === 'Point' && r.metric === 'http_reqs')
    .map((r) => {
      const t = r.data.tags ?? {};
      return `${t['method']} ${strip(t['url'])} ${strip(t['name'])} ${t['status']} ${t['expected_response']}`;
    })
    .sort();
}

/** The log lines of one source (both runtimes write logfmt into a pipe, as k6 does) as `level message`. */
function logLines(stderr: string, source: string): string[] {
  return logEntries(stderr)
    .filter((e) => e.fields['source'] === source)
    .map((e) => `${e.level.slice(0, 4)} ${e.msg}`);
}

/** A logged exception as its message and the line numbers of its frames in `file`. */
function exceptionFrames(line: string, file: string): string {
  const [message, ...frames] = line.split('\n');
  const lines = frames.flatMap((f) => {
    const m = new RegExp(`${file}:(\\d+):\\d+`).exec(f);
    return m ? [m[1]] : [];
  });
  return `${message} @ ${lines.join(',')}`;
}

/** Every check of the run passed (and there were some). */
function allPassed(o: Outcome): void {
  const checks = Object.values(o.summary?.root_group.checks ?? {});
  expect(checks.length).toBeGreaterThan(0);
  for (const c of checks) expect([c.name, c.fails]).toEqual([c.name, 0]);
}

describe.skipIf(!K6)('k6/http agreement with real k6', () => {
  const k6 = K6 ?? '';
  let a: HttpbinServer;

  beforeAll(async () => {
    a = await startHttpbin();
  });
  afterAll(async () => {
    await a?.stop();
  });

  for (const name of ['cookies.js', 'redirects.js', 'redirect-warning.js', 'auth.js']) {
    it(`${name}: the same checks pass and the same requests are made, with the same tags`, async () => {
      const { k6: k, node: n } = await runBoth(k6, name, { env: { BASE: a.base } });
      expect(k.code, k.stderr).toBe(0);
      expect(n.code, n.stderr).toBe(0);
      allPassed(k);
      allPassed(n);
      expect(groupTree(n.summary?.root_group)).toEqual(groupTree(k.summary?.root_group));
      expect(requests(n, [a.base])).toEqual(requests(k, [a.base]));
    });
  }

  it('a request stopped at the default 10 redirects is logged with its URL; one stopped at maxRedirects is not', async () => {
    const warning = 'Stopped after 11 redirects and returned the redirection';
    const { k6: k, node: n } = await runBoth(k6, 'redirect-warning.js', { env: { BASE: a.base } });
    expect(k.stderr).toContain(warning);
    expect(n.stderr).toContain(warning);
    expect(logText(n.stderr)).toContain(`url=${a.base}/redirect/12`);
    const set = await runBoth(k6, 'redirects.js', { env: { BASE: a.base } });
    expect(set.k6.stderr).not.toContain('Stopped after');
    expect(set.node.stderr).not.toContain('Stopped after');
  });

  it('batch.js: at most `batch` requests in flight, and `batchPerHost` per host', async () => {
    const bases = [a.base, a.base2];
    const { k6: k, node: n } = await runBoth(k6, 'batch.js', { env: { BASE: a.base, BASE2: a.base2 } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    allPassed(k);
    allPassed(n);
    expect(requests(n, bases)).toEqual(requests(k, bases));
    // Per client (User-Agent): 6 requests to one host, then 6 to another, ran at most 2 per host at once
    // (batchPerHost; 6 without it) and at most 3 in all (batch; 4 without it: 2 per host from the start).
    const perClient = [...a.peak].filter(([key]) => !key.includes(' 127.0.0.1:')).map(([, v]) => v);
    const perHost = [...a.peak].filter(([key]) => key.includes(' 127.0.0.1:')).map(([, v]) => v);
    expect(perHost).toEqual([2, 2, 2, 2]);
    expect(perClient).toHaveLength(2);
    for (const peak of perClient) expect(peak).toBeLessThanOrEqual(3);
  });

  it('console.js: console output as k6 prints each kind of value; a thrown string with its frames', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'console.js');
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    const k6Console = logLines(k.stderr, 'console');
    expect(k6Console).toHaveLength(5);
    expect(logLines(n.stderr, 'console')).toEqual(k6Console);
    const thrown = (o: Outcome) =>
      logLines(o.stderr, 'stacktrace').map((l) => exceptionFrames(l, 'console.js'));
    expect(thrown(k)).toEqual(['erro thrown string @ 5,16']);
    expect(thrown(n)).toEqual(thrown(k));
  });

  it('grpc-unary-bytes.js: unary calls count the connection wire bytes, near what k6 counts', async () => {
    let grpc: EchoServer | undefined;
    try {
      grpc = await startEchoServer();
      const { k6: k, node: n } = await runBoth(k6, 'grpc-unary-bytes.js', { env: { GRPC_ADDR: grpc.addr } });
      expect(k.code, k.stderr).toBe(0);
      expect(n.code, n.stderr).toBe(0);
      const bytes = (o: Outcome, m: string) => (o.summary?.metrics[m]?.['count'] as number | undefined) ?? 0;
      // HPACK and grpc-go's PINGs and window updates differ, so the sizes are near, not equal; messages
      // alone would be 5 x 9 bytes each way, a tenth of k6's figures.
      for (const m of ['data_sent', 'data_received']) {
        const ratio = bytes(n, m) / bytes(k, m);
        expect([m, ratio > 0.5 && ratio < 2]).toEqual([m, true]);
      }
    } finally {
      grpc?.stop();
    }
  });
});
