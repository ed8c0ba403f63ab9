/**
 * `k6-triton run --workers 2` against `--workers 1` on the runtime's conformance scripts, each run its
 * own process: the same exit codes, iteration/check/request counts, threshold verdicts and outputs,
 * with setup() and teardown() once.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedIdentity } from '@k6-triton/server';
import { EXIT } from '@k6-triton/runtime';
import { type Listening, startH1Tls } from '../agreement/protocol-servers.ts';
import { prometheusAbsent, type Prometheus, startPrometheus } from '../../prometheus.ts';
import { scriptPath } from '../../../packages/runtime/test/run-script.ts';
import { logText } from '../../../packages/runtime/test/logfmt.ts';

const bin = fileURLToPath(new URL('../../../bin/k6-triton.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'k6t-workers-'));
let server: Server;
let baseUrl = '';

beforeAll(async () => {
  server = createServer((_req, res) => res.end('hello world'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** --summary-export's data (k6's legacy export). */
  summary: {
    metrics: Record<string, Record<string, unknown>>;
    root_group: unknown;
  } | null;
}

let n = 0;
/** Runs `script` (a conformance script's name, or a path) on `workers` workers. */
function run(
  script: string,
  workers: number,
  args: string[] = [],
  extraEnv: Record<string, string> = {},
): Promise<Run> {
  const exp = join(dir, `summary-${n++}.json`);
  return new Promise((resolve) => {
    const env = { ...process.env, BASE_URL: baseUrl, ...extraEnv };
    const argv = [
      bin,
      'run',
      '-q',
      '--workers',
      String(workers),
      '--summary-export',
      exp,
      ...args,
      isAbsolute(script) ? script : scriptPath(script),
    ];
    execFile(process.execPath, argv, { timeout: 90_000, env }, (err, stdout, stderr) => {
      let summary: Run['summary'] = null;
      try {
        summary = JSON.parse(readFileSync(exp, 'utf8'));
      } catch {
        // No summary (the run failed before it): the assertions say so.
      }
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr, summary });
    });
  });
}

/** What must not depend on the worker count: counts of counters and rates, and every threshold verdict. */
function comparable(r: Run, skip: (key: string) => boolean = () => false) {
  const out: Record<string, unknown> = {};
  for (const [key, m] of Object.entries(r.summary?.metrics ?? {})) {
    if (skip(key)) continue;
    out[key] = {
      count: 'rate' in m && 'count' in m ? m['count'] : undefined,
      passes: m['passes'],
      fails: m['fails'],
      thresholds: m['thresholds'],
    };
  }
  return { code: r.code, metrics: out, checks: r.summary?.root_group };
}

const CASES: {
  script: string;
  args?: string[];
  label?: string;
  skip?: (key: string) => boolean;
  /** A counter whose two counts may differ by one. */
  race?: string;
}[] = [
  { script: 'per-vu-iterations.js' },
  // Which VU takes a shared iteration is scheduling; the totals and verdicts are not.
  { script: 'shared-iterations.js', skip: (k) => k.startsWith('per_vu{') },
  { script: 'scenarios.js' },
  { script: 'lifecycle.js' },
  // An arrival-rate segment's last start races the duration's end (one more, never fewer: the agreement
  // suite's segments test): the iteration counts may differ by one.
  { script: 'constant-arrival-rate.js', skip: (k) => k === 'iterations', race: 'iterations' },
  { script: 'ramping-arrival-rate.js', skip: (k) => k === 'iterations', race: 'iterations' },
  { script: 'thresholds-fail.js', args: ['-u', '2'] },
  { script: 'http-get.js' },
  { script: 'workers-lifecycle.js' },
  // handleSummary() runs once, on the merged data (its file is the handleSummary map's).
  {
    script: 'handle-summary.js',
    args: ['-u', '2', '-e', `SUMMARY_FILE=${join(dir, 'handle-summary.json')}`],
    label: '-u 2',
  },
];

describe('--workers 2 runs what --workers 1 runs', () => {
  for (const c of CASES) {
    const label = c.label ?? c.args?.join(' ');
    it(`${c.script}${label ? ` ${label}` : ''}: same exit code, counts and verdicts`, async () => {
      const one = await run(c.script, 1, c.args);
      const two = await run(c.script, 2, c.args);
      expect(one.summary, one.stderr).not.toBeNull();
      expect(comparable(two, c.skip)).toEqual(comparable(one, c.skip));
      expect(two.summary!.metrics['iterations']!['count']).toBeGreaterThan(0);
      if (c.race) {
        const count = (r: Run) => r.summary!.metrics[c.race!]!['count'] as number;
        expect(Math.abs(count(two) - count(one))).toBeLessThanOrEqual(1);
      }
    });
  }

  it("prints the full summary's per-scenario sections of the merged run", async () => {
    // Each section's counts, the rates (per second of each run's own duration) left out.
    const sections = (r: Run) =>
      r.stdout
        .split('\n')
        .filter((l) => /█ SCENARIO|checks_total|calls\.|iterations\./.test(l))
        .map((l) => l.replace(/\s[\d.]+\/s$/, '').trim());
    const one = await run('scenarios.js', 1, ['--summary-mode', 'full']);
    const two = await run('scenarios.js', 2, ['--summary-mode', 'full']);
    expect(sections(one)).toContain('█ SCENARIO: second');
    expect(sections(two)).toEqual(sections(one));
  });

  it('runs setup() and teardown() once, hands setup data to every worker and gives VUs the test ids', async () => {
    const r = await run('workers-lifecycle.js', 2);
    expect(r.code).toBe(EXIT.OK);
    expect(logText(r.stderr).match(/setup ran/g)).toHaveLength(1);
    expect(logText(r.stderr).match(/teardown ran with from-setup/g)).toHaveLength(1);
    // 4 VUs on two workers: each of the test ids 1-4 ran its 3 iterations (by_vu{vu:N} count==3).
    for (const vu of [1, 2, 3, 4])
      expect(r.summary!.metrics[`by_vu{vu:${vu}}`]!['thresholds']).toEqual({ 'count==3': false });
    expect(r.summary!.metrics['checks']).toMatchObject({ passes: 24, fails: 0 });
  });

  it("writes every worker's samples to one --out json and one --out csv file, declarations and header once", async () => {
    const json = join(dir, 'points.json');
    const csv = join(dir, 'points.csv');
    const r = await run('workers-lifecycle.js', 2, ['--out', `json=${json}`, '--out', `csv=${csv}`]);
    expect(r.code).toBe(EXIT.OK);
    const lines = readFileSync(json, 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as { type: string; metric: string; data: { tags: Record<string, string> | null } },
      );
    const declared = lines.filter((l) => l.type === 'Metric').map((l) => l.metric);
    expect(new Set(declared).size).toBe(declared.length);
    const iterations = lines.filter((l) => l.type === 'Point' && l.metric === 'by_iteration');
    // The 12 iterations carry 12 distinct test-wide numbers (exec.scenario.iterationInTest), 0 to 11.
    expect(iterations.map((l) => Number(l.data.tags!['i'])).sort((a, b) => a - b)).toEqual([
      ...Array(12).keys(),
    ]);
    // Two workers ran, two VUs each: exec.vu.idInInstance is the worker's own number, 1 or 2.
    expect(new Set(iterations.map((l) => l.data.tags!['inst']))).toEqual(new Set(['1', '2']));
    const rows = readFileSync(csv, 'utf8').trim().split('\n');
    expect(rows.filter((l) => l.startsWith('metric_name,'))).toHaveLength(1);
    expect(rows.filter((l) => l.startsWith('iterations,'))).toHaveLength(12);
  });

  it('runs a run that is itself an execution segment on one worker, saying so', async () => {
    const seg = ['--execution-segment', '0:1/2', '--execution-segment-sequence', '0,1/2,1'];
    const one = await run('per-vu-iterations.js', 1, seg);
    const two = await run('per-vu-iterations.js', 2, seg);
    expect(two.stderr).toContain('the run is one execution segment already: it runs on one worker thread');
    expect(comparable(two)).toEqual(comparable(one));
    expect(two.summary!.metrics['vus_max']!['value']).toBe(2);
  });

  it('refuses a worker count that is not a whole number >= 1: the flag with exit 255, the variable with 104', async () => {
    const flag = await run('workers-lifecycle.js', 0);
    expect(flag.code).toBe(EXIT.GENERIC);
    expect(logText(flag.stderr)).toContain(
      '--workers: expected a whole number of worker threads >= 1, got "0"',
    );
    const env = await new Promise<{ code: number; stderr: string }>((resolve) => {
      const argv = [bin, 'run', '-q', scriptPath('workers-lifecycle.js')];
      execFile(
        process.execPath,
        argv,
        { env: { ...process.env, K6_TRITON_WORKERS: 'many' } },
        (err, _o, stderr) =>
          resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
      );
    });
    expect(env.code).toBe(EXIT.INVALID_CONFIG);
    expect(logText(env.stderr)).toContain(
      'K6_TRITON_WORKERS: expected a whole number of worker threads >= 1, got "many"',
    );
  });

  it('interrupts JavaScript that never yields on each worker when gracefulStop runs out: teardown once, exit 0', async () => {
    const r = await run('busy-duration.js', 2, ['-e', 'VUS=2']);
    expect(r.code).toBe(EXIT.OK);
    expect(logText(r.stderr).match(/teardown ran \{"from":"setup"\}/g)).toHaveLength(1);
    expect(r.summary!.metrics['vus_max']!['value']).toBe(2);
  });

  it('stops every worker on SIGINT, also as a shell background job (started with SIGINT ignored): exit 105, teardown once', async () => {
    // bash starts a background job with SIGINT ignored; the runtime listens for it all the same, as k6 does.
    const child = spawn(
      'sh',
      [
        '-c',
        `"$0" "$@" & echo $!; wait $!`,
        process.execPath,
        bin,
        'run',
        '-q',
        '--workers',
        '2',
        scriptPath('sigint.js'),
      ],
      {
        env: process.env,
      },
    );
    let out = '';
    let pid = 0;
    let signalled = false;
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      pid ||= Number(out.split('\n')[0]);
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d;
      if (!signalled && out.includes('iterated') && pid) {
        signalled = true;
        process.kill(pid, 'SIGINT');
      }
    });
    const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? -1)));
    expect(out).toContain("received a 'interrupt' signal");
    expect(logText(out).match(/teardown ran/g) ?? []).toHaveLength(1);
    expect(code).toBe(EXIT.EXTERNAL_ABORT);
  }, 40_000);

  it('stops every worker on an abortOnFail threshold judged on the merged metrics: exit 99, teardown once', async () => {
    const r = await run('workers-abort.js', 2);
    expect(r.code).toBe(EXIT.THRESHOLDS_FAILED);
    expect(logText(r.stderr).match(/teardown ran/g)).toHaveLength(1);
    expect(logText(r.stderr)).toContain("thresholds on metrics 'errors' were crossed");
  });

  it("stops every worker on test.abort() in the second worker's VU: exit 108, teardown once", async () => {
    const r = await run('workers-test-abort.js', 2);
    expect(r.code).toBe(EXIT.SCRIPT_ABORTED);
    expect(logText(r.stderr).match(/teardown ran/g)).toHaveLength(1);
    expect(logText(r.stderr).match(/test aborted: enough/g)).toHaveLength(1);
  });
});

describe.skipIf(prometheusAbsent)('--out experimental-prometheus-rw on two workers', () => {
  let prom: Prometheus;
  beforeAll(async () => {
    prom = await startPrometheus();
  }, 60_000);
  afterAll(async () => {
    await prom?.stop();
  });
  const script = fileURLToPath(new URL('../agreement/scripts/prometheus-rw.js', import.meta.url));
  type Series = Record<string, string>;
  const series = async (workers: string) => {
    const q = new URLSearchParams({ 'match[]': `{workers="${workers}"}` });
    const list = (await prom.api(`/api/v1/series?${q}`)) as Series[];
    return list.map(({ workers: _, ...labels }) => JSON.stringify(Object.entries(labels).sort())).sort();
  };
  const total = async (metric: string, workers: string) => {
    const q = new URLSearchParams({ query: `sum(${metric}{workers="${workers}"})` });
    const data = (await prom.api(`/api/v1/query?${q}`)) as { result: { value: [number, string] }[] };
    return Number(data.result[0]?.value[1] ?? Number.NaN);
  };

  it('pushes one series store: the series of --workers 1, counters equal to the summary', async () => {
    const env = {
      BASE: baseUrl,
      K6_PROMETHEUS_RW_SERVER_URL: prom.writeUrl,
      K6_PROMETHEUS_RW_TREND_STATS: 'p(99),count,sum',
    };
    const out = (w: number) => ['-o', 'experimental-prometheus-rw', '--tag', `workers=${w}`];
    const one = await run(script, 1, out(1), env);
    const two = await run(script, 2, out(2), env);
    expect([one.code, two.code], one.stderr + two.stderr).toEqual([EXIT.OK, EXIT.OK]);
    expect(two.stderr).not.toContain('Failed to send');
    const [s1, s2] = await Promise.all([series('1'), series('2')]);
    expect(s1.length).toBeGreaterThan(10);
    expect(s2).toEqual(s1);
    // Two workers each pushing their own aggregate of a series would leave one worker's half here.
    const m = two.summary!.metrics;
    expect(m['iterations']!['count']).toBe(6);
    for (const [series, metric] of [
      ['k6_iterations_total', 'iterations'],
      ['k6_http_reqs_total', 'http_reqs'],
      ['k6_data_sent_total', 'data_sent'],
      ['k6_rw_jobs_total', 'rw_jobs'],
    ] as const)
      expect(await total(series, '2'), series).toBe(m[metric]!['count']);
    expect(await total('k6_rw_wait_count', '2')).toBeCloseTo(6 / 1000, 9);
    expect(await total('k6_rw_hits_rate', '2')).toBeCloseTo(m['rw_hits']!['value'] as number, 9);
  }, 120_000);
});

describe('archives and remote modules on two workers', () => {
  const MODULE = 'export const answer = 42;\n';
  let https: Listening;
  const fetched: string[] = [];
  let env: Record<string, string> = {};
  let script = '';

  beforeAll(async () => {
    const id = await selfSignedIdentity();
    writeFileSync(join(dir, 'ca.pem'), id.cert);
    env = { SSL_CERT_FILE: join(dir, 'ca.pem'), SSL_CERT_DIR: '' };
    https = await startH1Tls(id, (req, res) => {
      fetched.push(req.url ?? '');
      res.end(MODULE);
    });
    script = join(dir, 'remote.js');
    writeFileSync(
      script,
      `import { check } from 'k6';
import { answer } from '${https.url}/mod.js';
import exec from 'k6/execution';
export const options = { vus: 2, iterations: 6, thresholds: { checks: ['rate==1'] } };
export default function () {
  check(answer, { 'remote answer': (v) => v === 42 });
  if (exec.vu.iterationInInstance === 0) console.log('instance vu ' + exec.vu.idInInstance);
}
`,
    );
  }, 60_000);
  afterAll(async () => {
    await https?.close();
  });

  it('fetches a remote module once per worker, each worker running its share', async () => {
    fetched.length = 0;
    const r = await run(script, 2, [], env);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    expect(r.summary!.metrics['checks']).toMatchObject({ passes: 6, fails: 0 });
    // Each worker thread loads the script and its modules itself.
    expect(fetched.filter((u) => u === '/mod.js?_k6=1')).toHaveLength(2);
    // Both workers ran VUs, each with its own instance VU number 1.
    expect(logText(r.stderr).match(/instance vu 1/g)).toHaveLength(2);
  });

  it('runs an archive on two workers from its extracted files, as on one', async () => {
    const tar = join(dir, 'remote.tar');
    const made = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [bin, 'archive', '-O', tar, script],
        { env: { ...process.env, ...env } },
        (err, _o, stderr) =>
          resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
      ),
    );
    expect(made.code, made.stderr).toBe(EXIT.OK);
    fetched.length = 0;
    // The archive holds the module: no fetch, whatever the worker count.
    const one = await run(tar, 1);
    const two = await run(tar, 2);
    expect(fetched).toEqual([]);
    expect(comparable(two)).toEqual(comparable(one));
    expect(two.summary!.metrics['checks']).toMatchObject({ passes: 6, fails: 0 });
    expect(two.stderr.match(/instance vu 1/g)).toHaveLength(2);
  });
});
