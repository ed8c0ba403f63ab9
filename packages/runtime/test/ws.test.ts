/** k6/ws and k6/websockets through the whole runtime (loader, engine, metrics), against a local echo server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Blob } from '../src/modules/websockets-blob.ts';
import { sessionParams } from '../src/modules/ws-handshake.ts';
import { selfSignedIdentity } from '@k6-triton/server';
import { startWsEchoServer, type WsEchoServer } from './echo-ws-server.ts';
import { checks, runScript, values } from './run-script.ts';

let server: WsEchoServer;

beforeAll(async () => {
  server = await startWsEchoServer();
});
afterAll(() => server.stop());

/** Waits (bounded) until the server has seen `n` closes: a client's close arrives after its run ended. */
async function closes(n: number): Promise<number[]> {
  for (let i = 0; i < 100 && server.closeCodes().length < n; i++) await new Promise((r) => setTimeout(r, 20));
  return server.closeCodes();
}

describe('WebSockets on the Node runtime', () => {
  it('a k6/ws handler that throws closes its socket with 1001 and fails only its iteration', async () => {
    const before = server.closeCodes().length;
    const r = await runScript('ws-handler-throws.js', { env: { WS_URL: server.url } });
    expect(r.exitCode).toBe(0);
    expect(r.log).toContain('handler failed on purpose');
    expect(values(r, 'iterations')['count']).toBe(2);
    expect(values(r, 'ws_sessions')['count']).toBe(2);
    expect(values(r, 'ws_session_duration')['max']).toBeGreaterThan(0);
    expect(checks(r)).toEqual({ 'close handler ran with 1001': { passes: 2, fails: 0 } });
    expect((await closes(before + 2)).slice(before)).toEqual([1001, 1001]);
  });

  it('a k6/websockets socket holds its iteration until the graceful stop, which closes it (1000)', async () => {
    const before = server.closeCodes().length;
    const r = await runScript('ws-interrupted.js', { env: { WS_URL: server.url } });
    expect(r.exitCode).toBe(0);
    // The only iteration never completed: it was cut, with its socket still open.
    expect(r.summaryData?.metrics['iterations']).toBeUndefined();
    expect(values(r, 'ws_sessions')['count']).toBe(1);
    expect(values(r, 'ws_msgs_received')['count']).toBe(1);
    // As in k6, the close frame and the session's duration after the stop are not recorded.
    expect(values(r, 'ws_msgs_sent')['count']).toBe(1);
    expect(r.summaryData?.metrics['ws_session_duration']).toBeUndefined();
    expect((await closes(before + 1)).slice(before)).toEqual([1000]);
  });

  it('an open k6/ws socket holds ws.connect() until the graceful stop, which closes it (1001) quietly', async () => {
    const before = server.closeCodes().length;
    const r = await runScript('ws-connect-interrupted.js', { env: { WS_URL: server.url } });
    expect(r.exitCode).toBe(0);
    expect(r.summaryData?.metrics['iterations']).toBeUndefined();
    // As in k6, nothing recorded after the stop: no close handler's sample, no session duration.
    expect(r.summaryData?.metrics['closed_by_stop']).toBeUndefined();
    expect(r.summaryData?.metrics['ws_session_duration']).toBeUndefined();
    expect(values(r, 'ws_sessions')['count']).toBe(1);
    expect((await closes(before + 1)).slice(before)).toEqual([1001]);
  });

  it('ws.connect() in the init context fails the test as k6 does (exit 107)', async () => {
    const r = await runScript('ws-init.js', { env: { WS_URL: server.url } });
    expect(r.exitCode).toBe(107);
    expect(r.log).toContain('using websockets in the init context is not supported');
  });

  it('ws.connect() where the loader cannot await it is refused at load, naming its line', async () => {
    const r = await runScript('ws-callback.js', { env: { WS_URL: server.url } });
    expect(r.exitCode).toBe(107);
    expect(r.log).toMatch(/k6\/ws's connect\(\): a callback makes one at .*ws-callback\.js:5:/);
  });

  it('ws.connect() is awaited in a script that picks k6/http forms itself; its session tags', async () => {
    const r = await runScript('ws-with-async-http.js', { env: { WS_URL: server.url } });
    expect(r.exitCode).toBe(0);
    expect(checks(r)).toEqual({ 'both echoed before connect returned': { passes: 2, fails: 0 } });
    expect(values(r, 'ws_msgs_sent{kind:talk}')['count']).toBe(4);
    expect(values(r, 'ws_msgs_received{kind:talk}')['count']).toBe(4);
  });
});

describe('WebSockets over TLS', () => {
  let tls: WsEchoServer;
  beforeAll(async () => {
    tls = await startWsEchoServer({ tls: await selfSignedIdentity() });
  });
  afterAll(() => tls.stop());

  it('wss: skips verification when asked, refuses an unknown authority otherwise; the deprecated name warns', async () => {
    const skip = await runScript('ws-tls.js', { env: { WS_URL: tls.url, SKIP: '1' } });
    expect(skip.exitCode).toBe(0);
    expect(skip.log).toContain('k6/experimental/websockets is deprecated');
    expect(checks(skip)).toEqual({ 'echoed over wss': { passes: 1, fails: 0 } });
    const strict = await runScript('ws-tls.js', { env: { WS_URL: tls.url } });
    expect(strict.exitCode).toBe(0);
    expect(checks(strict)).toEqual({ 'unverified certificate refused': { passes: 1, fails: 0 } });
    expect(values(strict, 'ws_sessions')['count']).toBe(1);
  });
});

describe('WebSocket params', () => {
  it("are read as k6 reads them: k6/ws ignores unknown keys, k6/websockets refuses them; only 'deflate'", () => {
    const p = { headers: { 'X-A': 1 }, tags: { t: true }, compression: ' deflate ', other: 1 };
    expect(sessionParams(p, false)).toEqual({ headers: { 'X-A': '1' }, tags: { t: 'true' }, deflate: true });
    expect(() => sessionParams(p, true)).toThrow("unknown WebSocket's option other");
    expect(sessionParams({ compression: '', jar: {} }, false).deflate).toBe(false);
    expect(() => sessionParams({ compression: '' }, true)).toThrow("unsupported compression algorithm ''");
    expect(() => sessionParams({ compression: 'gzip' }, false)).toThrow(
      "unsupported compression algorithm 'gzip', supported algorithm is 'deflate'",
    );
  });
});

describe('k6/websockets Blob', () => {
  it('joins strings, buffers, views and blobs; slices; reads back as text and bytes', async () => {
    const inner = new Blob([new Uint8Array([0x21])]);
    const view = new DataView(new Uint8Array([9, 0x62, 9]).buffer, 1, 1);
    const b = new Blob(['h\u00e9', new Uint8Array([0x6c]).buffer, view, inner], { type: 'text/plain' });
    expect(b.size).toBe(6);
    expect(b.type).toBe('text/plain');
    expect(await b.text()).toBe('h\u00e9lb!');
    expect([...(await b.slice(1, -1).bytes())]).toEqual([0xc3, 0xa9, 0x6c, 0x62]);
    expect(String(b)).toBe('[object Blob]');
    expect(() => new Blob([{}])).toThrow('failed to process [blobParts]: unsupported type: object');
  });
});
