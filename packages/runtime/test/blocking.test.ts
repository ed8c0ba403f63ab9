/**
 * Blocking VU mode (src/blocking/): chosen where the loader cannot await a synchronous call, named in
 * the header, forced by vuMode; checks, groups and custom metrics counted by the engine; exec.test.abort;
 * a hard interrupt ends the VU's thread and the VU goes on on a new one; modules it lacks refused by name.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checks, runScript, values } from './run-script.ts';

describe('blocking VU mode', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server?.close());

  it('is chosen for a call in a callback, named in the header, and counts checks, groups and metrics', async () => {
    const r = await runScript('blocking-wrapper.js', { env: { BASE: base }, quiet: false });
    expect(r.exitCode, r.log).toBe(0);
    expect(r.stdout).toMatch(
      /\n {7}vu mode: blocking \(one thread per VU: .*blocking-wrapper\.js:11:\d+ a getter makes a synchronous call\)\n/,
    );
    expect(checks(r)).toEqual({
      'list 200': { passes: 8, fails: 0 },
      'getter 200': { passes: 4, fails: 0 },
      'instance counters': { passes: 4, fails: 0 },
    });
    expect(r.summaryData?.root_group.groups.map((g) => g.name)).toEqual(['wrapped']);
    expect(values(r, 'http_reqs')['count']).toBe(12);
    expect(values(r, 'wrapper_calls')['count']).toBe(4);
    expect(values(r, 'iterations')['count']).toBe(4);
  });

  it('is forced by vuMode, naming the variable; a bare sleep() blocks the VU', async () => {
    const r = await runScript('blocking-plain.js', { env: { BASE: base }, quiet: false, vuMode: 'blocking' });
    expect(r.exitCode, r.log).toBe(0);
    expect(r.stdout).toContain('vu mode: blocking (one thread per VU: K6_TRITON_VU_MODE=blocking)');
    expect(checks(r)).toEqual({ 'plain 200': { passes: 2, fails: 0 } });
    expect(values(r, 'iteration_duration')['min']).toBeGreaterThanOrEqual(10);
  });

  it('is not used where the loader can await the calls: no mode line', async () => {
    const r = await runScript('blocking-plain.js', { env: { BASE: base }, quiet: false });
    expect(r.exitCode, r.log).toBe(0);
    expect(r.stdout).toContain('script:');
    expect(r.stdout).not.toContain('vu mode:');
  });

  it('exec.test.abort() in a blocking VU stops the test with exit code 108', async () => {
    const r = await runScript('blocking-abort.js', { env: { BASE: base } });
    expect(r.exitCode, r.log).toBe(108);
    expect(r.log).toContain('test aborted: enough');
    expect(values(r, 'iterations')['count']).toBe(3);
  });

  it('a hard interrupt ends the blocked thread; the VU runs the next scenario on a new one', async () => {
    const r = await runScript('blocking-interrupt.js', { env: { BASE: base }, vuMode: 'blocking' });
    expect(r.exitCode, r.log).toBe(0);
    expect(checks(r)).toEqual({ 'after 200': { passes: 2, fails: 0 } });
    expect(values(r, 'iterations')['count']).toBe(2);
  });

  it('refuses a module blocking VUs lack at load, naming it', async () => {
    const r = await runScript('blocking-grpc.js', { vuMode: 'blocking' });
    expect(r.exitCode).toBe(107);
    expect(r.log).toContain("k6/net/grpc is not supported in the Node runtime's blocking VU mode");
  });
});
