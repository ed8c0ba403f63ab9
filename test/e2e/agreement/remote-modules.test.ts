/**
 * Remote modules and archives, under real k6 and the Node runtime: a script imports a module from a local
 * HTTPS server (a test certificate, trusted through SSL_CERT_FILE by both), which imports a sibling by a
 * relative path. Both runtimes fetch the same URLs and count the same checks; each runtime's archive of
 * the script (with its remote modules, an open()ed file and -e variables) runs under both with the server
 * stopped and the script's folder gone; an unreachable module is one line naming its URL and exit 107.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedIdentity } from '@k6-triton/server';
import { EXIT } from '@k6-triton/runtime';
import { checkCounts, count, findK6, runBoth } from './harness.ts';
import { type Listening, startH1Tls } from './protocol-servers.ts';
import { logText } from '../../../packages/runtime/test/logfmt.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const { bin: K6, looked } = findK6();
if (!K6)
  console.log(`remote-module agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

const MODULES: Record<string, string> = {
  '/lib/mod.js':
    "import { twice } from './sib.js';\nexport const answer = twice(21);\nexport { twice };\n" +
    "export const sibling = import.meta.resolve('./sib.js');\n",
  '/lib/sib.js': 'export function twice(n) { return n * 2; }\n',
};

/** The script, importing from `base`: checks on the remote module, open()ed files (one by its absolute path in `src`) and an -e variable. */
const scriptText = (base: string, src: string) => `import { check } from 'k6';
import { answer, sibling, twice } from '${base}/lib/mod.js';
const data = open('./data.txt');
const other = open('${src}/other.txt');
export const options = { iterations: 3, thresholds: { checks: ['rate==1'] } };
export default function () {
  check(answer, {
    'answer is 42': (v) => v === 42,
    'twice works': () => twice(2) === 4,
    'import.meta.resolve against the module URL': () => sibling === '${base}/lib/sib.js',
    'data opened': () => data.trim() === 'payload',
    'absolute path opened': () => other.trim() === 'other',
    'env kept': () => __ENV.GREETING === 'hello',
  });
}
`;

const EXPECTED = {
  '::answer is 42': [3, 0],
  '::twice works': [3, 0],
  '::import.meta.resolve against the module URL': [3, 0],
  '::data opened': [3, 0],
  '::absolute path opened': [3, 0],
  '::env kept': [3, 0],
};

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command (real k6, or the CLI through node) and collects its output. */
function exec(cmd: string, args: string[], env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve) => {
    const opts = { cwd: ROOT, timeout: 45_000, env: { ...process.env, ...env } };
    execFile(cmd, args, opts, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const ours = (args: string[], env: Record<string, string>) =>
  exec(process.execPath, [join(ROOT, 'bin/k6-triton.js'), ...args], env);

describe.skipIf(!K6)('remote modules and archives agree with real k6', () => {
  const k6 = K6 ?? '';
  let dir = '';
  let src = '';
  let server: Listening;
  let env: Record<string, string> = {};
  const seen: string[] = [];

  beforeAll(async () => {
    const id = await selfSignedIdentity();
    dir = mkdtempSync(join(tmpdir(), 'k6t-remote-'));
    src = join(dir, 'src');
    mkdirSync(src);
    writeFileSync(join(dir, 'ca.pem'), id.cert);
    // Both runtimes trust the test certificate through SSL_CERT_FILE, as Go reads it.
    env = { SSL_CERT_FILE: join(dir, 'ca.pem'), SSL_CERT_DIR: '' };
    server = await startH1Tls(id, (req, res) => {
      seen.push(req.url ?? '');
      const body = MODULES[new URL(req.url ?? '/', 'https://x').pathname];
      res.statusCode = body === undefined ? 404 : 200;
      res.end(body ?? 'not found');
    });
    writeFileSync(join(src, 'script.js'), scriptText(server.url, src));
    writeFileSync(join(src, 'data.txt'), 'payload\n');
    writeFileSync(join(src, 'other.txt'), 'other\n');
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a script importing a module from a local HTTPS server runs the same under both runtimes', async () => {
    const { k6: k, node: n } = await runBoth(k6, join(src, 'script.js'), {
      args: ['-e', 'GREETING=hello'],
      env,
    });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    expect(checkCounts(k.summary?.root_group)).toEqual(EXPECTED);
    expect(checkCounts(n.summary?.root_group)).toEqual(EXPECTED);
    expect(count(n, 'iterations')).toBe(count(k, 'iterations'));
    // Each runtime asked for both modules with k6's ?_k6=1 marker, the sibling resolved against the module's URL.
    expect(seen.filter((u) => u === '/lib/mod.js?_k6=1')).toHaveLength(2);
    expect(seen.filter((u) => u === '/lib/sib.js?_k6=1')).toHaveLength(2);
  }, 90_000);

  it('trusts a certificate in SSL_CERT_DIR, as Go does', async () => {
    const certs = join(dir, 'certs');
    mkdirSync(certs, { recursive: true });
    copyFileSync(env['SSL_CERT_FILE']!, join(certs, 'test-ca.pem'));
    const { k6: k, node: n } = await runBoth(k6, join(src, 'script.js'), {
      args: ['-e', 'GREETING=hello'],
      env: { SSL_CERT_FILE: '', SSL_CERT_DIR: certs },
    });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    expect(checkCounts(n.summary?.root_group)).toEqual(EXPECTED);
  }, 90_000);

  it('inspect prints the options real k6 prints', async () => {
    const [k, n] = await Promise.all([
      exec(k6, ['inspect', join(src, 'script.js')], env),
      ours(['inspect', join(src, 'script.js')], env),
    ]);
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    expect(n.stdout).toBe(k.stdout);
  }, 60_000);

  it('archives made by either runtime run under both, offline (server stopped, script folder gone)', async () => {
    const k6Tar = join(dir, 'k6.tar');
    const oursTar = join(dir, 'ours.tar');
    // Options from the script, a K6_* variable and flags, stored alike (compared through inspect below).
    const flags = [
      ...['-e', 'GREETING=hello', '-u', '2', '--tag', 'team=a', '--no-setup', '--max-redirects', '3'],
      ...['--system-tags', 'url,method,check,group', join(src, 'script.js')],
    ];
    const archiveEnv = { ...env, K6_NO_TEARDOWN: 'true' };
    const made = await Promise.all([
      exec(k6, ['archive', '-O', k6Tar, ...flags], archiveEnv),
      ours(['archive', '-O', oursTar, ...flags], archiveEnv),
    ]);
    for (const m of made) expect(m.code, m.stderr).toBe(0);
    const [ik, in_] = await Promise.all([ours(['inspect', k6Tar], env), exec(k6, ['inspect', oursTar], env)]);
    expect(in_.code, in_.stderr).toBe(0);
    expect(JSON.parse(ik.stdout)).toEqual(JSON.parse(in_.stdout));
    expect(JSON.parse(ik.stdout)).toMatchObject({
      vus: 2,
      noSetup: true,
      noTeardown: true,
      maxRedirects: 3,
      systemTags: ['check', 'group', 'method', 'url'],
      tags: { team: 'a' },
    });
    await server.close();
    rmSync(src, { recursive: true, force: true });
    for (const tar of [k6Tar, oursTar]) {
      // -t archive on one of the two: the type given, as k6 accepts it.
      const { k6: k, node: n } = await runBoth(k6, tar, {
        env,
        args: tar === k6Tar ? ['-t', 'archive'] : [],
      });
      expect(k.code, `${tar} under k6: ${k.stderr}`).toBe(0);
      expect(n.code, `${tar} under the Node runtime: ${n.stderr}`).toBe(0);
      expect(checkCounts(k.summary?.root_group)).toEqual(EXPECTED);
      expect(checkCounts(n.summary?.root_group)).toEqual(EXPECTED);
    }
  }, 120_000);

  it("gRPC protos loaded in the init context travel in either runtime's archive", async () => {
    const g = join(dir, 'grpc');
    mkdirSync(join(g, 'protos'), { recursive: true });
    writeFileSync(
      join(g, 'protos', 'hello.proto'),
      'syntax = "proto3";\npackage hello;\nimport "msg.proto";\nservice Greeter { rpc Say (Msg) returns (Msg); }\n',
    );
    writeFileSync(
      join(g, 'protos', 'msg.proto'),
      'syntax = "proto3";\npackage hello;\nmessage Msg { string text = 1; }\n',
    );
    writeFileSync(
      join(g, 'script.js'),
      "import grpc from 'k6/net/grpc';\nimport { check } from 'k6';\nconst client = new grpc.Client();\n" +
        "client.load(['protos'], 'hello.proto');\nexport const options = { iterations: 2 };\n" +
        'export default function () { check(client, { loaded: (c) => c !== null }); }\n',
    );
    const k6Tar = join(dir, 'grpc-k6.tar');
    const oursTar = join(dir, 'grpc-ours.tar');
    const made = await Promise.all([
      exec(k6, ['archive', '-O', k6Tar, join(g, 'script.js')], env),
      ours(['archive', '-O', oursTar, join(g, 'script.js')], env),
    ]);
    for (const m of made) expect(m.code, m.stderr).toBe(0);
    rmSync(g, { recursive: true, force: true });
    for (const tar of [k6Tar, oursTar]) {
      const { k6: k, node: n } = await runBoth(k6, tar, { env });
      expect(k.code, `${tar} under k6: ${k.stderr}`).toBe(0);
      expect(n.code, `${tar} under the Node runtime: ${n.stderr}`).toBe(0);
      expect(checkCounts(n.summary?.root_group)).toEqual({ '::loaded': [2, 0] });
      expect(checkCounts(k.summary?.root_group)).toEqual({ '::loaded': [2, 0] });
    }
  }, 120_000);

  it('an unreachable module: one line naming the URL, exit 107 as in k6', async () => {
    const gone = join(dir, 'gone.js');
    writeFileSync(gone, scriptText(server.url, src));
    const { k6: k, node: n } = await runBoth(k6, gone, { env });
    expect(k.code).toBe(EXIT.SCRIPT_EXCEPTION);
    expect(n.code).toBe(EXIT.SCRIPT_EXCEPTION);
    expect(k.stderr).toContain(`${server.url}/lib/mod.js`);
    const lines = n.stderr.split('\n').filter(Boolean);
    expect(lines, n.stderr).toHaveLength(1);
    expect(logText(lines[0]!)).toContain(
      `couldn't be retrieved from the resolved url "${server.url}/lib/mod.js"`,
    );
    expect(lines[0]).toContain('k6-triton archive');
  }, 60_000);

  it("refuses http:// and the github.com shorthand in k6's words", async () => {
    const cases = {
      'http.js': `import x from 'http://127.0.0.1:9/x.js';\nexport default function () { x; }\n`,
      'gh.js': `import x from 'github.com/grafana/k6/x.js';\nexport default function () { x; }\n`,
    };
    for (const [name, text] of Object.entries(cases)) {
      writeFileSync(join(dir, name), text);
      const { k6: k, node: n } = await runBoth(k6, join(dir, name), { env });
      expect(n.code).toBe(k.code);
      const words =
        name === 'http.js'
          ? 'only supported schemes for imports are file and https, http://127.0.0.1:9/x.js has `http`'
          : "github.com 'special' urls are no longer supported";
      expect(k.stderr).toContain(words);
      expect(n.stderr).toContain(words);
    }
  }, 60_000);
});
