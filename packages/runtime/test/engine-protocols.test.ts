/** The engine with k6/http against a local node:http server: built-in metrics, sub-metrics, tags and outputs. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpcJs from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checks, runScript, values } from './run-script.ts';
import { logText } from './logfmt.ts';

let server: Server;
let baseUrl = '';
let grpcServer: grpcJs.Server;
let grpcAddr = '';
const dir = mkdtempSync(join(tmpdir(), 'k6t-proto-'));

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('hello world'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const def = loadSync(fileURLToPath(new URL('./fixtures/echo.proto', import.meta.url)), { keepCase: true });
  const pkg = grpcJs.loadPackageDefinition(def) as unknown as {
    k6t: { echo: { Echo: { service: grpcJs.ServiceDefinition } } };
  };
  grpcServer = new grpcJs.Server();
  grpcServer.addService(pkg.k6t.echo.Echo.service, {
    Echo: (call: grpcJs.ServerUnaryCall<unknown, unknown>, cb: grpcJs.sendUnaryData<unknown>) =>
      cb(null, call.request),
    Chat: (call: grpcJs.ServerDuplexStream<{ delay_ms?: number }, unknown>) => {
      // Echo each message after its delay, in order; end when the client has ended and all are sent.
      let chain = Promise.resolve();
      call.on('data', (m: { delay_ms?: number }) => {
        chain = chain
          .then(() => new Promise((r) => setTimeout(r, m.delay_ms ?? 0)))
          .then(() => void call.write(m));
      });
      call.on('end', () => chain.then(() => call.end()));
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', grpcJs.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  grpcAddr = `127.0.0.1:${port}`;
});

afterAll(async () => {
  grpcServer.forceShutdown();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('engine with k6/http', () => {
  it('records http_* metrics, expected_response and threshold sub-metrics, and k6 tags', async () => {
    const json = join(dir, 'points.json');
    const r = await runScript('http-get.js', { env: { BASE_URL: baseUrl }, out: [`json=${json}`] });
    expect(r.exitCode).toBe(0);
    expect(values(r, 'http_reqs').count).toBe(6);
    expect(values(r, 'http_req_duration{expected_response:true}')['max']).toBeGreaterThan(0);
    expect(values(r, 'http_req_duration{scenario:default}')['max']).toBe(
      values(r, 'http_req_duration')['max'],
    );
    expect(values(r, 'http_req_failed')).toEqual({ rate: 0, passes: 0, fails: 6 });
    expect(values(r, 'data_received').count).toBeGreaterThan(6 * 11);
    expect(checks(r)).toEqual({ 'status is 200': { passes: 6, fails: 0 }, body: { passes: 6, fails: 0 } });
    const points = readFileSync(json, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.type === 'Point' && l.metric === 'http_req_duration');
    expect(points).toHaveLength(6);
    expect(points[0].data.tags).toMatchObject({
      method: 'GET',
      status: '200',
      name: 'hello',
      scenario: 'default',
      group: '',
      expected_response: 'true',
    });
    expect(r.stdout).toContain('    HTTP\n    http_req_duration');
  });

  it('keeps only the system tags options.systemTags lists, on samples and in sub-metric matching', async () => {
    const json = join(dir, 'system-tags.json');
    const env = { BASE_URL: baseUrl, SYSTEM_TAGS: JSON.stringify(['scenario', 'status', 'check']) };
    const r = await runScript('system-tags.js', { env, out: [`json=${json}`] });
    expect(r.exitCode).toBe(0);
    expect(values(r, 'http_req_duration{scenario:default}')['count']).toBe(3);
    // method is no longer on the samples, so its sub-metric sees none of them.
    expect(values(r, 'http_req_duration{method:GET}')['count']).toBe(0);
    const points = readFileSync(json, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.type === 'Point');
    const request = points.find((l) => l.metric === 'http_req_duration');
    expect(request.data.tags).toEqual({ scenario: 'default', status: '200', kind: 'mine' });
    const checked = points.find((l) => l.metric === 'checks');
    expect(checked.data.tags).toEqual({ scenario: 'default', check: 'status is 200' });
  });

  it('refuses a systemTags entry that is not a k6 system tag, naming it', async () => {
    const env = { BASE_URL: baseUrl, SYSTEM_TAGS: JSON.stringify(['scenario', 'model']) };
    const r = await runScript('system-tags.js', { env });
    expect(r.exitCode).toBe(104);
    expect(logText(r.log)).toContain('invalid option systemTags: "model" is not a k6 system tag');
  });

  it('records grpc_req_duration with k6 tags through k6/net/grpc against a grpc-js server', async () => {
    const json = join(dir, 'grpc.json');
    const r = await runScript('grpc-echo.js', { env: { GRPC_ADDR: grpcAddr }, out: [`json=${json}`] });
    expect(r.exitCode).toBe(0);
    expect(values(r, 'grpc_req_duration')['max']).toBeGreaterThan(0);
    expect(checks(r)).toEqual({
      'status is OK': { passes: 4, fails: 0 },
      'echoed in k6 JSON mapping': { passes: 4, fails: 0 },
    });
    const points = readFileSync(json, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.type === 'Point' && l.metric === 'grpc_req_duration');
    expect(points).toHaveLength(4);
    expect(points[0].data.tags).toMatchObject({ scenario: 'default', group: '', status: '0' });
    expect(r.stdout).toContain('    GRPC\n    grpc_req_duration');
  });

  it('keeps an iteration alive until its gRPC stream ends, as k6 does', async () => {
    const r = await runScript('grpc-stream.js', { env: { GRPC_ADDR: grpcAddr } });
    expect(r.exitCode).toBe(0);
    expect(values(r, 'streams_ended').count).toBe(3);
    expect(checks(r)).toEqual({ 'both messages echoed': { passes: 3, fails: 0 } });
    expect(values(r, 'iteration_duration')['min']).toBeGreaterThanOrEqual(50);
  });
});
