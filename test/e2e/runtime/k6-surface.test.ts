/**
 * Walks k6's run surface table (packages/runtime/src/options/k6-surface.ts): every refused row is refused at
 * start with its one line and k6's exit code, every honoured row has a test that shows its effect, and the table
 * lists exactly the flags real k6 v2.2.0's `run --help` does (when real k6 is present).
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerRun } from '../../../cli/run.ts';
import {
  EXIT,
  K6_SURFACE,
  refusalLine,
  refusedOptions,
  SURFACE_PAGE,
  type SurfaceRow,
  surfacePage,
} from '@k6-triton/runtime';
import { scriptPath } from '../../../packages/runtime/test/run-script.ts';
import { findK6 } from '../agreement/harness.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(root, 'bin/k6-triton.js');
const dir = mkdtempSync(join(tmpdir(), 'k6t-surface-'));
const empty = join(dir, 'empty.js');
writeFileSync(empty, 'export default function () {}\n');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const opts = { timeout: 60_000, env: { ...process.env, ...env } };
    execFile(process.execPath, [bin, 'run', ...args], opts, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const key = (r: SurfaceRow) => r.option ?? r.flag ?? r.env!;

/** A value that turns a refused row on, by the form it is given in. */
function onValue(r: SurfaceRow): string {
  if (r.value === 'none') return 'true';
  if (r.flag === '--http-debug') return 'full';
  if (r.flag === '--max-redirects') return '5';
  return 'x';
}

/** A script option value that turns a refused option on. */
function optionOnValue(r: SurfaceRow): unknown {
  if (r.value === 'none') return true;
  return 'x';
}

/**
 * Where each honoured or inert row is shown to work: a test file and a test title in it. The walker checks
 * the file has that title, so a row without a test (or a renamed test) fails here.
 */
const HONOURED_BY: Record<string, [string, string]> = {
  vus: ['test/e2e/runtime/cli.test.ts', 'applies -u, -i and -e over the script options'],
  duration: ['packages/runtime/test/options.test.ts', 'lets CLI shortcuts replace the script scenarios'],
  iterations: ['test/e2e/runtime/cli.test.ts', 'reads K6_ITERATIONS like -i'],
  stages: ['test/e2e/runtime/k6-surface.test.ts', 'ramps with -s/--stage and with K6_STAGES'],
  executionSegment: [
    'test/e2e/agreement/agreement.test.ts',
    'splits VUs, iterations and arrival rates among execution segments',
  ],
  executionSegmentSequence: [
    'test/e2e/agreement/agreement.test.ts',
    'splits VUs, iterations and arrival rates among execution segments',
  ],
  noSetup: ['test/e2e/runtime/k6-surface.test.ts', 'honours the flags'],
  noTeardown: ['test/e2e/runtime/k6-surface.test.ts', 'honours the flags'],
  maxRedirects: ['test/e2e/runtime/k6-surface.test.ts', 'honours the flags'],
  batch: ['packages/runtime/test/http-cookies.test.ts', 'runs a batch with at most `batch` in flight'],
  batchPerHost: ['packages/runtime/test/http-cookies.test.ts', 'runs a batch with at most `batch` in flight'],
  userAgent: ['test/e2e/runtime/k6-surface.test.ts', 'honours the flags'],
  insecureSkipTLSVerify: [
    'packages/runtime/test/tls-client.test.ts',
    'insecureSkipTLSVerify comes from the script',
  ],
  noConnectionReuse: [
    'packages/runtime/test/http.test.ts',
    'opens a new connection per request with noConnectionReuse',
  ],
  minIterationDuration: [
    'test/e2e/runtime/k6-surface.test.ts',
    'holds a 2 s, 1-VU run to about 7 iterations',
  ],
  throw: ['test/e2e/runtime/k6-surface.test.ts', 'honours the flags'],
  summaryTrendStats: ['packages/runtime/test/options.test.ts', 'summaryTrendStats'],
  summaryTimeUnit: ['packages/runtime/test/options.test.ts', 'summaryTimeUnit'],
  systemTags: ['test/e2e/runtime/k6-surface.test.ts', 'honours the environment variables'],
  tags: ['test/e2e/runtime/k6-surface.test.ts', 'honours the environment variables'],
  discardResponseBodies: ['test/e2e/runtime/k6-surface.test.ts', 'honours the flags'],
  '--include-system-env-vars': ['test/e2e/runtime/k6-surface.test.ts', 'honours the flags'],
  '--compatibility-mode': ['test/e2e/runtime/k6-surface.test.ts', 'accepts the honoured values'],
  '--type': ['test/e2e/agreement/remote-modules.test.ts', '-t archive on one of the two'],
  '--env': ['test/e2e/runtime/cli.test.ts', 'applies -u, -i and -e over the script options'],
  '--no-thresholds': ['test/e2e/runtime/cli.test.ts', 'reads K6_NO_THRESHOLDS as k6 does'],
  '--summary-mode': ['test/e2e/runtime/k6-surface.test.ts', 'summary-mode disabled'],
  '--summary-export': ['test/e2e/runtime/cli.test.ts', 'writes --summary-export'],
  '--traces-output': ['test/e2e/runtime/k6-surface.test.ts', 'accepts the honoured values'],
  '--out': ['test/e2e/agreement/prometheus-rw.test.ts', 'writes the same metric names and label sets as k6'],
  '--no-usage-report': ['test/e2e/runtime/k6-surface.test.ts', 'accepts the honoured values'],
  '--config': ['test/e2e/runtime/k6-surface.test.ts', 'reads the config file below the script'],
  '--log-output': ['test/e2e/runtime/k6-surface.test.ts', 'logs as --log-format'],
  '--log-format': ['test/e2e/runtime/k6-surface.test.ts', 'logs as --log-format'],
  consoleOutput: ['test/e2e/runtime/k6-surface.test.ts', 'logs as --log-format'],
  '--verbose': ['test/e2e/runtime/k6-surface.test.ts', 'logs as --log-format'],
  '--no-color': ['test/e2e/runtime/k6-surface.test.ts', 'accepts the honoured values'],
  '--quiet': ['test/e2e/runtime/k6-surface.test.ts', 'honours the flags'],
  paused: ['test/e2e/runtime/rest-api.test.ts', 'runs no iteration until PATCH /v1/status resumes it'],
  '--linger': ['test/e2e/runtime/rest-api.test.ts', 'keeps answering after teardown until SIGINT'],
  '--address': ['test/e2e/runtime/rest-api.test.ts', 'shows live metrics, and stops on PATCH stopped'],
  '--secret-source': ['packages/runtime/test/secret-sources.test.ts', 'makes a single source the default'],
  scenarios: ['packages/runtime/test/options.test.ts', 'fills the defaults of arrival-rate executors'],
  thresholds: ['test/e2e/runtime/exit-codes.test.ts', 'exits 99 when a threshold is crossed'],
  setupTimeout: ['test/e2e/runtime/k6-surface.test.ts', 'honours the environment variables'],
  teardownTimeout: ['test/e2e/runtime/k6-surface.test.ts', 'honours the environment variables'],
  tlsAuth: ['packages/runtime/test/tls-client.test.ts', 'refuses an entry without cert or key'],
  tlsVersion: ['test/e2e/agreement/tls-options.test.ts', 'an unknown cipher suite or TLS version fails'],
  tlsCipherSuites: ['test/e2e/agreement/tls-options.test.ts', 'an unknown cipher suite or TLS version fails'],
  noCookiesReset: ['packages/runtime/test/http-cookies.test.ts', 'noReset'],
  hosts: ['test/e2e/runtime/k6-surface.test.ts', "dials the hosts option's address"],
  rps: ['test/e2e/runtime/k6-surface.test.ts', 'limits requests with --rps'],
  noVUConnectionReuse: ['test/e2e/runtime/k6-surface.test.ts', 'limits requests with --rps'],
  blacklistIPs: [
    'test/e2e/runtime/k6-surface.test.ts',
    'fails requests to blocked hostnames and blacklisted IPs',
  ],
  blockHostnames: [
    'test/e2e/runtime/k6-surface.test.ts',
    'fails requests to blocked hostnames and blacklisted IPs',
  ],
  dns: ['test/e2e/runtime/k6-surface.test.ts', 'resolves k6/http hosts as the dns option says'],
  localIPs: ['test/e2e/runtime/k6-surface.test.ts', 'dials from the localIPs addresses'],
  httpDebug: ['test/e2e/runtime/k6-surface.test.ts', 'dumps requests and responses with --http-debug'],
  metricSamplesBufferSize: ['test/e2e/runtime/k6-surface.test.ts', 'accepts the inert options'],
  cloud: ['test/e2e/runtime/k6-surface.test.ts', 'accepts the inert options'],
  ext: ['test/e2e/runtime/k6-surface.test.ts', 'accepts the inert options'],
};

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const hops = /^\/redirect\/(\d+)$/.exec(req.url ?? '');
    if (hops) {
      const n = Number(hops[1]);
      res.writeHead(302, { Location: n > 1 ? `/redirect/${n - 1}` : '/ua' }).end();
      return;
    }
    res.writeHead(200, { 'X-Ua': req.headers['user-agent'] ?? '' }).end('body');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const exported = (name: string) => JSON.parse(readFileSync(join(dir, name), 'utf8'));

describe("k6's run surface table", () => {
  it('has one row per setting, and every refusal ends with the alternative', () => {
    const keys = K6_SURFACE.map(key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const r of K6_SURFACE.filter((x) => x.status === 'refused')) expect(r.note).toMatch(/run with k6$/);
  });

  it('lists exactly the flags of real k6 v2.2.0 run --help', (ctx) => {
    const k6 = findK6().bin;
    if (!k6) return ctx.skip();
    const help = execFileSync(k6, ['run', '--help'], { encoding: 'utf8' });
    const flags = [...help.matchAll(/^\s+(?:-\w, )?(--[a-z-]+)/gm)]
      .map((m) => m[1])
      .filter((f) => f !== '--help');
    const table = K6_SURFACE.flatMap((r) => (r.flag ? [r.flag] : []));
    expect(flags.filter((f) => !table.includes(f!))).toEqual([]);
    expect(table.filter((f) => !flags.includes(f))).toEqual([]);
  });

  it('has a test for every honoured and inert row', () => {
    const missing = K6_SURFACE.filter((x) => x.status !== 'refused').flatMap((r) => {
      const where = HONOURED_BY[key(r)];
      if (!where) return [`${key(r)}: no test named`];
      return readFileSync(join(root, where[0]), 'utf8').includes(where[1])
        ? []
        : [`${key(r)}: ${where.join(': ')}`];
    });
    expect(missing).toEqual([]);
  });

  it('is the table docs/runtime-options.md shows (make docs-runtime-options)', () => {
    expect(readFileSync(join(root, SURFACE_PAGE), 'utf8')).toBe(surfacePage());
  });

  it("registers every flag of the table on `run`, with k6's short forms", () => {
    const program = new Command();
    registerRun(program);
    const cmd = program.commands.find((c) => c.name() === 'run')!;
    for (const r of K6_SURFACE.filter((x) => x.flag)) {
      const opt = cmd.options.find((o) => o.long === r.flag);
      expect(opt, r.flag).toBeDefined();
      if (r.short) expect(opt!.short, r.flag).toBe(r.short);
    }
  });
});

describe('refused rows', () => {
  const refused = K6_SURFACE.filter((r) => r.status === 'refused');

  it('refuses every refused flag with its line and exit 255', async () => {
    const args = refused.flatMap((r) =>
      !r.flag ? [] : r.value === 'none' ? [r.flag] : [`${r.flag}=${onValue(r)}`],
    );
    const r = await run(['-q', ...args, empty]);
    expect(r.code).toBe(EXIT.GENERIC);
    for (const row of refused.filter((x) => x.flag)) {
      const shown = row.value === 'none' ? row.flag : `${row.flag} ${onValue(row)}`;
      expect(r.stderr).toContain(refusalLine(`flag "${shown}"`, row));
    }
  });

  it('refuses every refused environment variable with its line and exit 104', async () => {
    const env = Object.fromEntries(refused.filter((x) => x.env).map((x) => [x.env!, onValue(x)]));
    const r = await run(['-q', empty], env);
    expect(r.code).toBe(EXIT.INVALID_CONFIG);
    for (const row of refused.filter((x) => x.env))
      expect(r.stderr).toContain(refusalLine(`environment variable "${row.env}=${onValue(row)}"`, row));
    // Off is harmless: a refused boolean set to false runs.
    expect((await run(['-q', empty], { K6_PAUSED: 'false', K6_LINGER: '0' })).code).toBe(EXIT.OK);
  });

  it('refuses every refused script option with its line; none is left since --paused is honoured', () => {
    const rows = refused.filter((x) => x.option);
    for (const row of rows) {
      expect(refusedOptions({ [row.option!]: optionOnValue(row) })).toEqual([
        refusalLine(`option "${row.option}"`, row),
      ]);
      expect(refusedOptions({ [row.option!]: false })).toEqual([]);
    }
    // paused was the last refused script option: a new refused one brings back a run that exits 104 with it.
    expect(rows.map((x) => x.option)).toEqual([]);
  });

  it('refuses the values a partly honoured flag or variable does not honour (flag 255, variable 104)', async () => {
    const partial = K6_SURFACE.filter((r) => r.honouredValues);
    const [flags, env] = await Promise.all([
      run(['-q', ...partial.map((r) => `${r.flag}=other`), empty]),
      run(['-q', empty], Object.fromEntries(partial.map((r) => [r.env!, 'other']))),
    ]);
    expect(flags.code).toBe(EXIT.GENERIC);
    expect(env.code).toBe(EXIT.INVALID_CONFIG);
    for (const row of partial) {
      expect(flags.stderr).toContain(refusalLine(`flag "${row.flag} other"`, row));
      expect(env.stderr).toContain(refusalLine(`environment variable "${row.env}=other"`, row));
    }
  });

  it("refuses --no-summary and --summary-mode legacy in k6's words, exit 255", async () => {
    const [gone, legacy] = await Promise.all([
      run(['-q', '--no-summary', empty]),
      run(['-q', '--summary-mode', 'legacy', empty]),
    ]);
    expect(gone.code).toBe(EXIT.GENERIC);
    expect(gone.stderr).toContain('unknown flag: --no-summary');
    expect(legacy.code).toBe(EXIT.GENERIC);
    expect(legacy.stderr).toContain('invalid summary mode');
  });
});

describe('honoured rows', () => {
  it('honours the flags: user agent, throw, setup/teardown skipped, max redirects, bodies discarded', async () => {
    const r = await run(
      [
        '-q',
        '-i',
        '2',
        '--user-agent',
        'flag-agent/1',
        '-w',
        '--no-setup',
        '--no-teardown',
        '--max-redirects',
        '1',
        '--discard-response-bodies',
        '--no-include-system-env-vars',
        '-e',
        `BASE=${base}`,
        '-e',
        'WANT_UA=flag-agent/1',
        '-e',
        'WANT_NO_SYSTEM_ENV=1',
        '--summary-export',
        join(dir, 'flags.json'),
        scriptPath('k6-surface.js'),
      ],
      { PATH_CHECK: 'x' },
    );
    expect(r.code).toBe(EXIT.OK);
    expect(r.stdout + r.stderr).not.toMatch(/SETUP RAN|TEARDOWN RAN|Request Failed/);
    const checks = exported('flags.json').root_group.checks;
    for (const name of [
      'user agent',
      'body discarded',
      'stopped at max redirects',
      'transport error thrown',
      'no system env',
      'ws user agent',
    ])
      expect(checks[name], name).toMatchObject({ passes: 2, fails: 0 });
  });

  it('honours the environment variables: agent, throw, setup, system tags, tags, timeouts', async () => {
    const out = join(dir, 'env.ndjson');
    const r = await run(
      [
        '-q',
        '-i',
        '1',
        '-e',
        `BASE=${base}`,
        '-e',
        'WANT_UA=env-agent/1',
        '-e',
        'WANT_NO_SYSTEM_ENV=1',
        '-o',
        `json=${out}`,
        '--summary-export',
        join(dir, 'env.json'),
        scriptPath('k6-surface.js'),
      ],
      {
        K6_USER_AGENT: 'env-agent/1',
        K6_INCLUDE_SYSTEM_ENV_VARS: 'false',
        PATH_CHECK: 'x',
        K6_THROW: 'true',
        K6_NO_TEARDOWN: 'true',
        K6_SYSTEM_TAGS: 'status,method',
        K6_TAGS: 'team=qa',
        K6_SETUP_TIMEOUT: '5s',
        K6_TEARDOWN_TIMEOUT: '5s',
      },
    );
    expect(r.code).toBe(EXIT.OK);
    expect(r.stderr).toContain('SETUP RAN');
    expect(r.stderr).not.toContain('TEARDOWN RAN');
    const checks = exported('env.json').root_group.checks;
    expect(checks['user agent']).toMatchObject({ passes: 1, fails: 0 });
    expect(checks['transport error thrown']).toMatchObject({ passes: 1, fails: 0 });
    expect(checks['no system env']).toMatchObject({ passes: 1, fails: 0 });
    const req = readFileSync(out, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((p) => p.type === 'Point' && p.metric === 'http_reqs');
    expect(Object.keys(req.data.tags).sort()).toEqual(['from', 'method', 'status', 'team']);
    expect(req.data.tags.team).toBe('qa');
    // A bad duration in a variable exits 104 as in k6 (options), a bad boolean 255.
    const [badStages, badBool] = await Promise.all([
      run(['-q', empty], { K6_STAGES: 'xx' }),
      run(['-q', empty], { K6_THROW: 'maybe' }),
    ]);
    expect(badStages.code).toBe(EXIT.INVALID_CONFIG);
    expect(badStages.stderr).toContain('K6_STAGES');
    expect(badBool.code).toBe(EXIT.GENERIC);
  });

  it('reads the config file below the script: its user agent, and the script wins on tags', async () => {
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ userAgent: 'config-agent/1', tags: { from: 'config' }, iterations: 1 }),
    );
    const out = join(dir, 'config.ndjson');
    const r = await run([
      '-q',
      '-c',
      config,
      '-e',
      `BASE=${base}`,
      '-e',
      'WANT_UA=config-agent/1',
      '-w',
      '-o',
      `json=${out}`,
      '--summary-export',
      join(dir, 'config.json.out'),
      scriptPath('k6-surface.js'),
    ]);
    expect(r.code).toBe(EXIT.OK);
    expect(exported('config.json.out').root_group.checks['user agent']).toMatchObject({
      passes: 1,
      fails: 0,
    });
    const req = readFileSync(out, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((p) => p.type === 'Point' && p.metric === 'http_reqs');
    expect(req.data.tags.from).toBe('script');
    // A config file that is not JSON is a bad config: 104.
    writeFileSync(join(dir, 'bad.json'), '{');
    expect((await run(['-q', '-c', join(dir, 'bad.json'), empty])).code).toBe(EXIT.INVALID_CONFIG);
  });

  it('holds a 2 s, 1-VU run to about 7 iterations under a 300 ms minIterationDuration (k6: 7)', async () => {
    const script = join(dir, 'min-iter.js');
    writeFileSync(
      script,
      "export const options = { vus: 1, duration: '2s', minIterationDuration: '300ms' };\nexport default function () {}\n",
    );
    const [fromScript, fromFlag] = await Promise.all([
      run(['--summary-export', join(dir, 'min1.json'), '-q', script]),
      run([
        '--summary-export',
        join(dir, 'min2.json'),
        '-q',
        '-u',
        '1',
        '-d',
        '2s',
        '--min-iteration-duration',
        '300ms',
        empty,
      ]),
    ]);
    expect([fromScript.code, fromFlag.code]).toEqual([EXIT.OK, EXIT.OK]);
    for (const f of ['min1.json', 'min2.json']) {
      const n = exported(f).metrics.iterations.count;
      expect(n, f).toBeGreaterThanOrEqual(5);
      expect(n, f).toBeLessThanOrEqual(8);
    }
  });

  it('ramps with -s/--stage and with K6_STAGES', async () => {
    const [flag, env] = await Promise.all([
      run(['-q', '-s', '1s:3', '-s', '500ms:0', '--summary-export', join(dir, 'stage1.json'), empty]),
      run(['-q', '--summary-export', join(dir, 'stage2.json'), empty], { K6_STAGES: '1s:2,500ms:0' }),
    ]);
    expect([flag.code, env.code]).toEqual([EXIT.OK, EXIT.OK]);
    expect(exported('stage1.json').metrics.vus_max.value).toBe(3);
    expect(exported('stage2.json').metrics.vus_max.value).toBe(2);
  });

  it('accepts the honoured values of partly honoured flags and the inert flags; summary-mode disabled prints nothing', async () => {
    const hs = join(dir, 'hs.js');
    writeFileSync(
      hs,
      "export default function () {}\nexport function handleSummary() { return { stdout: 'HANDLED' }; }\n",
    );
    const r = await run([
      '-q',
      '--compatibility-mode',
      'extended',
      '-t',
      'js',
      '--traces-output',
      'none',
      '--log-output',
      'stderr',
      '--no-usage-report',
      '--no-color',
      '--summary-mode',
      'disabled',
      '--summary-export',
      join(dir, 'never.json'),
      hs,
    ]);
    expect(r.code).toBe(EXIT.OK);
    expect(r.stdout).not.toContain('HANDLED');
    expect(existsSync(join(dir, 'never.json'))).toBe(false);
  });

  it('logs as --log-format, --log-output, --console-output and -v say', async () => {
    const script = join(dir, 'console.js');
    writeFileSync(
      script,
      "export default function () { console.log('hello log'); console.debug('debug line'); }\n",
    );
    const logFile = join(dir, 'k6.log');
    const consoleFile = join(dir, 'console.txt');
    const [json, file, toConsole, loki] = await Promise.all([
      run(['-q', '--summary-mode', 'disabled', '--log-format', 'json', '-v', script]),
      run([
        '-q',
        '--summary-mode',
        'disabled',
        `--log-output=file=${logFile}`,
        '--log-format',
        'raw',
        script,
      ]),
      run(['-q', '--summary-mode', 'disabled', script], {
        K6_CONSOLE_OUTPUT: consoleFile,
        K6_LOG_OUTPUT: 'stdout',
      }),
      run(['-q', '--log-output', 'loki=http://x', script]),
    ]);
    expect([json.code, file.code, toConsole.code, loki.code]).toEqual([
      EXIT.OK,
      EXIT.OK,
      EXIT.OK,
      EXIT.GENERIC,
    ]);
    const lines = json.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.level, l.msg, l.source])).toEqual([
      ['info', 'hello log', 'console'],
      ['debug', 'debug line', 'console'],
    ]);
    expect(file.stderr).not.toContain('hello log');
    expect(readFileSync(logFile, 'utf8')).toBe('hello log\n');
    expect(toConsole.stderr + toConsole.stdout).not.toContain('hello log');
    // k6's console file: the log's format without the source field (logfmt, the output not being a terminal).
    expect(readFileSync(consoleFile, 'utf8')).toMatch(/^time="[^"]+" level=info msg="hello log"\n$/);
    expect(loki.stderr).toContain('log output "loki=http://x" is not supported by the Node runtime');
  });

  it('logs in the asked format from a blocking VU, which renders its own lines on its thread', async () => {
    const script = join(dir, 'console-blocking.js');
    writeFileSync(script, "export default function () { console.log('from the thread'); }\n");
    const r = await run(['-q', '--summary-mode', 'disabled', '--log-format', 'json', script], {
      K6_TRITON_VU_MODE: 'blocking',
    });
    expect(r.code, r.stderr).toBe(EXIT.OK);
    // Before, the thread kept the default text form whatever --log-format said.
    const lines = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.level, l.msg, l.source])).toEqual([['info', 'from the thread', 'console']]);
  });

  it('reads K6_NO_COLOR and NO_COLOR as k6 does: set means no color, whatever the value', async () => {
    const script = join(dir, 'console-color.js');
    writeFileSync(script, "export default function () { console.log('colorless'); }\n");
    // k6 reads neither as a boolean (cmd/state: a non-empty K6_NO_COLOR, NO_COLOR of any value).
    const runs = await Promise.all([
      run(['-q', '--summary-mode', 'disabled', script], { K6_NO_COLOR: 'yes' }),
      run(['-q', '--summary-mode', 'disabled', script], { K6_NO_COLOR: 'false' }),
      run(['-q', '--summary-mode', 'disabled', script], { NO_COLOR: '' }),
    ]);
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(EXIT.OK);
      expect(r.stderr).toMatch(/^time="[^"]+" level=info msg=colorless source=console$/m);
    }
  });

  it('dumps requests and responses with --http-debug (headers) and --http-debug=full (bodies too)', async () => {
    const script = join(dir, 'debug.js');
    writeFileSync(
      script,
      "import http from 'k6/http';\nexport default async function () { await http.asyncRequest('GET', __ENV.BASE + '/ua'); }\n",
    );
    const [headers, full] = await Promise.all([
      run(['-q', '-e', `BASE=${base}`, '--log-format', 'json', '--http-debug', script]),
      run(['-q', '-e', `BASE=${base}`, '--log-format', 'json', script], { K6_HTTP_DEBUG: 'full' }),
    ]);
    expect([headers.code, full.code]).toEqual([EXIT.OK, EXIT.OK]);
    const dumps = (r: Ran) =>
      r.stderr
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((l) => l.source === 'http-debug');
    const host = new URL(base).host;
    for (const [r, body] of [
      [headers, ''],
      [full, 'body'],
    ] as const) {
      const [req, res] = dumps(r);
      expect(req.msg).toBe(
        `Request:\nGET /ua HTTP/1.1\nHost: ${host}\nUser-Agent: Grafana k6 (k6-triton Node runtime)\n\n\n`,
      );
      expect(res.msg).toMatch(/^Response:\nHTTP\/1\.1 200 OK\n/);
      expect(res.msg.endsWith(`\n\n${body}\n`)).toBe(true);
      expect(res).toMatchObject({ level: 'info', scenario: 'default', vu: '1', iter: '0' });
      expect(res.request_id).toBe(req.request_id);
    }
  });

  it("dials the hosts option's address for k6/http (host and host:port keys) and refuses it for WebSockets", async () => {
    const port = new URL(base).port;
    const script = join(dir, 'hosts-ok.js');
    writeFileSync(
      script,
      [
        "import http from 'k6/http';",
        "import ws from 'k6/ws';",
        "import { check } from 'k6';",
        `export const options = { hosts: { 'mapped.test': '127.0.0.1', 'ported.test:80': '127.0.0.1:${port}' } };`,
        'export default async function () {',
        `  const a = await http.asyncRequest('GET', 'http://mapped.test:${port}/ua');`,
        "  const b = await http.asyncRequest('GET', 'http://ported.test/ua');",
        "  check(a, { 'host mapped': (r) => r.status === 200 });",
        "  check(b, { 'host:port mapped': (r) => r.status === 200 });",
        '  let refused = false;',
        `  try { await ws.connect('ws://mapped.test:${port}/', () => {}); } catch (e) { refused = String(e).includes('option "hosts" applies to k6/http only'); }`,
        "  check(null, { 'ws refused': () => refused });",
        '}',
      ].join('\n'),
    );
    const r = await run(['-q', '--summary-export', join(dir, 'hosts.json'), script]);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const checks = exported('hosts.json').root_group.checks;
    for (const name of ['host mapped', 'host:port mapped', 'ws refused'])
      expect(checks[name], name).toMatchObject({ passes: 1, fails: 0 });
  });

  it('limits requests with --rps and opens new connections per iteration with --no-vu-connection-reuse', async () => {
    let connections = 0;
    const counting = createServer((_req, res) => res.end('ok'));
    counting.on('connection', () => connections++);
    await new Promise<void>((r) => counting.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(counting.address() as AddressInfo).port}/`;
    const script = join(dir, 'two-requests.js');
    writeFileSync(
      script,
      "import http from 'k6/http';\nexport default async function () { await http.asyncRequest('GET', __ENV.URL); await http.asyncRequest('GET', __ENV.URL); }\n",
    );
    try {
      const reuse = await run(['-q', '-i', '3', '-e', `URL=${url}`, '--no-vu-connection-reuse', script]);
      expect(reuse.code).toBe(EXIT.OK);
      // One connection per iteration (its two requests share it); without the flag one for the whole run.
      expect(connections).toBe(3);
      const limited = await run(
        ['-q', '-u', '2', '-d', '1s', '-e', `URL=${url}`, '--summary-export', join(dir, 'rps.json'), script],
        { K6_RPS: '4' },
      );
      expect(limited.code).toBe(EXIT.OK);
      // 4 a second for 1 s: a handful, where an unlimited run makes thousands.
      const n = exported('rps.json').metrics.http_reqs.count;
      expect(n).toBeGreaterThanOrEqual(2);
      expect(n).toBeLessThanOrEqual(8);
    } finally {
      counting.close();
    }
  });

  it('fails requests to blocked hostnames and blacklisted IPs (flags), and refuses a WebSocket dial under them', async () => {
    const script = join(dir, 'blocked.js');
    writeFileSync(
      script,
      [
        "import http from 'k6/http';",
        "import ws from 'k6/ws';",
        "import { check } from 'k6';",
        'export default async function () {',
        "  const a = await http.asyncRequest('GET', 'http://x.blocked.test/');",
        `  const b = await http.asyncRequest('GET', '${base}/ua');`,
        "  check(a, { 'blocked hostname': (r) => r.error_code === 1111 && r.error === 'hostname is blocked' });",
        "  check(b, { 'blacklisted ip': (r) => r.error_code === 1110 && r.error === 'ip is blacklisted' });",
        '  let refused = false;',
        `  try { await ws.connect('${base.replace('http', 'ws')}/', () => {}); } catch (e) { refused = String(e).includes('option "blacklistIPs" applies to k6/http only'); }`,
        "  check(null, { 'ws refused': () => refused });",
        '}',
      ].join('\n'),
    );
    const r = await run([
      '-q',
      '--block-hostnames',
      '*.blocked.test',
      '--blacklist-ip',
      '127.0.0.0/8',
      '--summary-export',
      join(dir, 'blocked.json'),
      script,
    ]);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    expect(r.stderr).toContain('hostname (x.blocked.test) is in a blocked pattern (*.blocked.test)');
    expect(r.stderr).toContain('IP (127.0.0.1) is in a blacklisted range (127.0.0.0/8)');
    const checks = exported('blocked.json').root_group.checks;
    for (const name of ['blocked hostname', 'blacklisted ip', 'ws refused'])
      expect(checks[name], name).toMatchObject({ passes: 1, fails: 0 });
  });

  it('resolves k6/http hosts as the dns option says (policy onlyIPv6 leaves localhost without an address here)', async () => {
    const port = new URL(base).port;
    const script = join(dir, 'dns.js');
    writeFileSync(
      script,
      [
        "import http from 'k6/http';",
        "import { check } from 'k6';",
        "export const options = { dns: { ttl: 'inf', select: 'roundRobin', policy: 'onlyIPv4' } };",
        'export default async function () {',
        `  const r = await http.asyncRequest('GET', 'http://localhost:${port}/ua');`,
        '  check(r, { ["dns " + __ENV.EXPECT]: (x) => (__ENV.EXPECT === "ok" ? x.status === 200 : x.error_code === 1101) });',
        '}',
      ].join('\n'),
    );
    // localhost resolves to 127.0.0.1 alone on the test machines; --dns (a flag) wins over the script's option.
    const [v4, v6] = await Promise.all([
      run(['-q', '-e', 'EXPECT=ok', '--summary-export', join(dir, 'dns4.json'), script]),
      run([
        '-q',
        '-e',
        'EXPECT=none',
        '--dns',
        'policy=onlyIPv6',
        '--summary-export',
        join(dir, 'dns6.json'),
        script,
      ]),
    ]);
    expect([v4.code, v6.code]).toEqual([EXIT.OK, EXIT.OK]);
    expect(exported('dns4.json').root_group.checks['dns ok']).toMatchObject({ passes: 1, fails: 0 });
    expect(exported('dns6.json').root_group.checks['dns none']).toMatchObject({ passes: 1, fails: 0 });
  });

  it('dials from the localIPs addresses, one per VU (--local-ips)', async () => {
    const seen = new Set<string>();
    const recording = createServer((req, res) => {
      seen.add(req.socket.remoteAddress ?? '');
      res.end('ok');
    });
    await new Promise<void>((r) => recording.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(recording.address() as AddressInfo).port}/`;
    const script = join(dir, 'local-ips.js');
    writeFileSync(
      script,
      [
        "import http from 'k6/http';",
        "export const options = { scenarios: { each: { executor: 'per-vu-iterations', vus: 2, iterations: 2 } } };",
        'export default async function () { await http.asyncRequest("GET", __ENV.URL); }',
      ].join('\n'),
    );
    try {
      const r = await run(['-q', '-e', `URL=${url}`, '--local-ips', '127.0.0.2-127.0.0.3', script]);
      expect(r.code, r.stderr).toBe(EXIT.OK);
      expect([...seen].sort()).toEqual(['127.0.0.2', '127.0.0.3']);
    } finally {
      recording.close();
    }
  });

  it('accepts the inert options (cloud, ext, metricSamplesBufferSize) and warns of unknown ones as k6', async () => {
    const script = join(dir, 'inert.js');
    writeFileSync(
      script,
      "export const options = { cloud: { name: 'x' }, ext: {}, metricSamplesBufferSize: 1000, foo: 1 };\nexport default function () {}\n",
    );
    const r = await run(['-q', script]);
    expect(r.code).toBe(EXIT.OK);
    expect(r.stderr).toContain('There were unknown fields in the options exported in the script');
    expect(r.stderr).toContain('unknown field \\"foo\\"');
  });
});
