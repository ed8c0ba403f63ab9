/** k6/http and k6/net/grpc through the whole runtime (loader, engine, metrics, thresholds, summary). */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoServer, startEchoServer } from './echo-grpc-server.ts';
import { checks, runScript, values } from './run-script.ts';

let web: Server;
let base: string;
let echo: EchoServer;

beforeAll(async () => {
  web = createServer((req, res) => {
    if (req.url === '/small') {
      res.setHeader('content-type', 'text/plain');
      res.end('0123456789abcdef');
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  echo = await startEchoServer();
});

afterAll(async () => {
  echo.stop();
  web.closeAllConnections();
  await new Promise<void>((r) => web.close(() => r()));
});

describe('protocol modules through the runtime', () => {
  it('runs an HTTP script: requests, checks, sub-metric thresholds and k6 metric names', async () => {
    const r = await runScript('http-protocol.js', { env: { BASE: base } });
    expect(r.exitCode).toBe(0);
    expect(values(r, 'http_reqs')['count']).toBe(20);
    expect(values(r, 'http_req_failed')['rate']).toBe(0.5);
    expect(values(r, 'http_reqs{status:404}')['count']).toBe(10);
    expect(values(r, 'http_req_duration{name:small}')['max']).toBeGreaterThan(0);
    // Every request waits for its answer; all but the first reuse the VU's kept-alive connection.
    expect(values(r, 'http_req_waiting')['min']).toBeGreaterThan(0);
    expect(values(r, 'http_req_connecting')['min']).toBe(0);
    expect(values(r, 'http_req_connecting')['max']).toBeGreaterThan(0);
    expect(values(r, 'data_received')['count']).toBeGreaterThan(0);
    expect(checks(r)).toEqual({
      'status is 200': { passes: 10, fails: 0 },
      'body is the 16 bytes': { passes: 10, fails: 0 },
      'header canonical': { passes: 10, fails: 0 },
      'status is 404': { passes: 10, fails: 0 },
    });
  });

  it('runs a gRPC script: load relative to the script, asyncInvoke, k6 JSON and grpc_req_duration', async () => {
    const r = await runScript('grpc-protocol.js', { env: { ADDR: echo.addr } });
    expect(r.exitCode).toBe(0);
    expect(values(r, 'grpc_req_duration{status:0}')['max']).toBeGreaterThan(0);
    expect(checks(r)).toEqual({
      'status is OK': { passes: 6, fails: 0 },
      'message in k6 JSON': { passes: 6, fails: 0 },
    });
  });

  it('runs a gRPC stream script: messages both ways and the stream metrics', async () => {
    const r = await runScript('grpc-stream-await.js', { env: { ADDR: echo.addr } });
    expect(r.exitCode).toBe(0);
    expect(checks(r)).toEqual({ 'echoed both': { passes: 2, fails: 0 } });
    expect(values(r, 'grpc_streams')['count']).toBe(2);
    expect(values(r, 'grpc_streams_msgs_sent')['count']).toBe(4);
    expect(values(r, 'grpc_streams_msgs_received')['count']).toBe(4);
  });

  it('runs the synchronous k6/http forms, awaited by the loader, with sleep() delaying what follows', async () => {
    const r = await runScript('http-sync-forms.js', { env: { BASE: base } });
    expect(r.exitCode, r.log).toBe(0);
    expect(values(r, 'http_reqs')['count']).toBe(22);
    expect(checks(r)).toEqual({
      'method then get': { passes: 2, fails: 0 },
      'every form answered': { passes: 2, fails: 0 },
      'batch forms': { passes: 2, fails: 0 },
      'sleep blocks the code after it': { passes: 2, fails: 0 },
    });
  });

  it("runs gRPC's synchronous connect() and invoke()", async () => {
    const r = await runScript('grpc-sync.js', { env: { GRPC_ADDR: echo.addr } });
    expect(r.exitCode, r.log).toBe(0);
    expect(checks(r)).toEqual({
      'status is OK': { passes: 4, fails: 0 },
      'echoed in k6 JSON mapping': { passes: 4, fails: 0 },
    });
  });

  it('in event-loop mode, refuses a synchronous http.get in a callback it cannot await, at load, naming the line', async () => {
    const r = await runScript('http-sync.js', { vuMode: 'event-loop' });
    expect(r.exitCode).toBe(107);
    expect(r.log).toMatch(/a callback makes one at .*http-sync\.js:7:\d+; .*asyncRequest/);
  });
});
