/** The loader's transform that awaits k6's synchronous calls (packages/runtime/src/loader/await-sync.ts). */
import { describe, expect, it } from 'vitest';
import { awaitSyncCalls, needsAwaitSync, readsAsyncForms } from '../src/loader/await-sync.ts';

/** A CommonJS bundle as esbuild writes one for a script importing k6 and k6/http. */
const bundle = (body: string) =>
  [
    'var import_k6 = require("k6");',
    'var import_http = __toESM(require("k6/http"));',
    body,
    '__export(exports_, { default: () => main });',
  ].join('\n');

const transform = (body: string, grpc = false) => awaitSyncCalls(bundle(body), { path: 's.js', grpc });

describe("awaitSyncCalls's bare sleep() pass (sleep: true)", () => {
  const sleeps = (body: string) => awaitSyncCalls(bundle(body), { path: 's.js', grpc: false, sleep: true });

  it('makes the functions on the way from an exported function to a bare sleep() async, and awaits them', async () => {
    const out = await sleeps(
      [
        'function pause() { (0, import_k6.sleep)(1); return 2; }',
        'const api = { wait() { return pause(); } };',
        'async function mine() { (0, import_k6.sleep)(1); }',
        'function main() { api.wait(); mine(); (0, import_k6.group)("g", () => { (0, import_k6.sleep)(1); }); }',
      ].join('\n'),
    );
    expect(out).toContain('async function pause() { (await (0, import_k6.sleep)(1)); return 2; }');
    expect(out).toContain('const api = { async wait() { return (await pause()); } };');
    expect(out).toContain('async function mine() { (await (0, import_k6.sleep)(1)); }');
    expect(out).toContain(
      // An async function's own sleep is awaited in it; its calls stay as the script wrote them.
      'async function main() { (await api.wait()); mine(); (await (0, import_k6.group)("g", async () => { (await (0, import_k6.sleep)(1)); })); }',
    );
  });

  it('leaves a sleep bare where a function on its way cannot become async, and what that function calls', async () => {
    const body = [
      'function pause() { (0, import_k6.sleep)(1); }',
      'function each() { [1].forEach(() => { pause(); }); }',
      'function atInit() { (0, import_k6.sleep)(1); }',
      'atInit();',
      'const get = { get v() { (0, import_k6.sleep)(1); return 1; } };',
      'function main() { each(); return get.v; }',
    ].join('\n');
    // Nothing can keep its order here: the bundle is unchanged, and no load error.
    expect(await sleeps(body)).toBe(bundle(body));
  });
});

describe('awaitSyncCalls', () => {
  it('awaits sync calls and the calls of every function on the way up, and sleep() in those', async () => {
    const out = await transform(
      [
        'function get() { return import_http.default.get("u").status; }',
        'const helper = (x) => get() + x;',
        'function main() { (0, import_k6.check)(helper(1), {}); (0, import_k6.sleep)(1); }',
        'function untouched() { (0, import_k6.sleep)(1); }',
      ].join('\n'),
    );
    expect(out).toContain('async function get() { return (await import_http.default.get("u")).status; }');
    expect(out).toContain('const helper = async (x) => (await get()) + x;');
    expect(out).toContain(
      'async function main() { (0, import_k6.check)((await helper(1)), {}); (await (0, import_k6.sleep)(1)); }',
    );
    expect(out).toContain('function untouched() { (0, import_k6.sleep)(1); }');
  });

  it("awaits object and class methods by name, named imports, and group()'s callback", async () => {
    const out = await transform(
      [
        'const api = { list() { return (0, import_http.post)("u"); } };',
        'class C { "run"() { return api.list(); } }',
        'function main() { (0, import_k6.group)("g", () => { new C().run(); }); }',
      ].join('\n'),
    );
    expect(out).toContain('const api = { async list() { return (await (0, import_http.post)("u")); } };');
    expect(out).toContain('class C { async "run"() { return (await api.list()); } }');
    // group() returns its async callback's promise, which the function calling it awaits in turn.
    expect(out).toContain(
      'async function main() { (await (0, import_k6.group)("g", async () => { (await new C().run()); })); }',
    );
  });

  it('leaves a bundle without synchronous calls, and calls in the init context, as they are', async () => {
    const plain = 'function main() { (0, import_k6.sleep)(1); }';
    expect(await transform(plain)).toBe(bundle(plain));
    const init = 'const r = import_http.default.get("u"); function main() {}';
    expect(await transform(init)).toBe(bundle(init));
  });

  it('awaits gRPC invoke(), connect() and healthCheck() when the script imports k6/net/grpc', async () => {
    const out = await transform(
      'function main() { client.connect("a"); return client.invoke("m", {}).status; }',
      true,
    );
    expect(out).toContain(
      'async function main() { (await client.connect("a")); return (await client.invoke("m", {})).status; }',
    );
  });

  it("refuses a synchronous call in a check()'s function, which check() calls and would get a promise from", async () => {
    await expect(
      transform(
        'function main() {\n  (0, import_k6.check)(null, { ok: () => import_http.default.get("u").status === 200 });\n}',
      ),
    ).rejects.toThrow(/function ok of an object passed to a call makes one at s\.js:4:/);
  });

  it('refuses a function that would become async where it is used as a value, naming it and its line', async () => {
    await expect(
      transform(
        'function one(u) { return import_http.default.get(u); }\nfunction main() { ["a"].map(one); }',
      ),
    ).rejects.toThrow(/function one makes one and is used as a value \(not called\) at s\.js:4:\d+/);
    await expect(
      transform('function main() { ["a"].forEach((u) => import_http.default.get(u)); }'),
    ).rejects.toThrow(/a callback makes one at s\.js:3:/);
    await expect(
      transform(
        'const api = { one() { return import_http.default.get("u"); } };\nfunction main() { ["a"].map(api.one); }',
      ),
    ).rejects.toThrow(/method one makes one and is used as a value \(not called\) at s\.js:4:/);
    await expect(
      transform(
        'function one() { return import_http.default.get("u"); }\nconst r = one();\nfunction main() {}',
      ),
    ).rejects.toThrow(/the init context calls a function that makes one at s\.js:4:/);
    await expect(
      transform('const o = { get x() { return import_http.default.get("u"); } };\nfunction main() {}'),
    ).rejects.toThrow(/a getter makes one/);
  });

  it("awaits k6/ws's connect() alone when k6/http's forms are the script's own choice (http: false)", async () => {
    const ws = (body: string) =>
      awaitSyncCalls(bundle(`var import_ws = __toESM(require("k6/ws"));\n${body}`), {
        path: 's.js',
        grpc: false,
        http: false,
      });
    const out = await ws(
      'function talk() { return import_ws.default.connect("u", (s) => s.close()).status; }\n' +
        'function main() { import_http.default.get("u"); return talk(); }',
    );
    expect(out).toContain(
      'async function talk() { return (await import_ws.default.connect("u", (s) => s.close())).status; }',
    );
    expect(out).toContain('async function main() { import_http.default.get("u"); return (await talk()); }');
    await expect(
      ws('function main() { ["a"].forEach((u) => import_ws.default.connect(u, () => {})); }'),
    ).rejects.toThrow(
      /^k6\/ws's connect\(\): a callback makes one at s\.js:4:.*Call ws\.connect\(\) from the exported functions/,
    );
  });
});

describe('needsAwaitSync', () => {
  const imports = (names: string[]) => new Map([['k6/http', { names: new Set(names) }]]);
  it('is true for synchronous k6/http names and gRPC calls; readsAsyncForms tells a script that reads their async forms', () => {
    expect(needsAwaitSync(imports(['get']), '')).toBe(true);
    expect(needsAwaitSync(imports(['get', 'asyncRequest']), '')).toBe(true);
    expect(readsAsyncForms(imports(['get', 'asyncRequest']), '')).toBe(true);
    expect(readsAsyncForms(imports(['get']), '')).toBe(false);
    expect(needsAwaitSync(imports(['expectedStatuses']), '')).toBe(false);
    const grpc = new Map([['k6/net/grpc', { names: new Set(['Client']) }]]);
    expect(needsAwaitSync(grpc, 'client.invoke("m", {})')).toBe(true);
    expect(needsAwaitSync(grpc, 'await client.asyncInvoke("m", {})')).toBe(false);
    expect(readsAsyncForms(grpc, 'await client.asyncInvoke("m", {})')).toBe(true);
    // k6's grpc_healthcheck example: connect() and healthCheck(), no invoke().
    expect(needsAwaitSync(grpc, 'client.connect(a); client.healthCheck().status')).toBe(true);
  });
});
