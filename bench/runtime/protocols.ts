/**
 * Requests/s and RSS of whole k6 scripts run by the runtime's engine (runTest) against a local server
 * that answers at once: the figure a user gets, engine and metrics included. The same scripts then run
 * under real k6 (K6_BIN, else ../shared/tools/bin/k6) against the same server, and the last lines give
 * the runtime's rate as a multiple of k6's and the 602 KB gRPC rate as a share of the 602 KB POST rate.
 *   node --import tsx bench/runtime/protocols.ts [--vus 8] [--duration 10s] [--case get|post600k|grpc600k|all]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runTest } from '@k6-triton/runtime';
import { setLogSink } from '../../packages/runtime/src/log.ts';
import { PROTO_DIR } from './bench-proto.ts';
import { type BenchServer, processCpu_ms, startServer } from './servers.ts';
import { parseDuration_ms } from '../../lib/duration.ts';

const SCRIPTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'scripts');
const PAYLOAD_BYTES = 602 * 1024;

interface Case {
  name: string;
  script: string;
  server: 'http' | 'grpc';
  /** A counter with one count per request (each iteration makes one request). */
  metric: string;
}

const CASES: Record<string, Case> = {
  get: { name: 'HTTP GET, 16-byte response', script: 'http-get.js', server: 'http', metric: 'iterations' },
  post600k: { name: 'HTTP POST 602 KB body', script: 'http-post.js', server: 'http', metric: 'iterations' },
  grpc600k: {
    name: 'gRPC ModelInfer 602 KB tensor',
    script: 'grpc-infer.js',
    server: 'grpc',
    metric: 'iterations',
  },
};

/** One case's figures under one runtime. */
interface Measured {
  rate: number;
  rss_mib: number;
  client_pct: number;
  server_pct: number;
  exitCode: number;
}

const K6 =
  process.env['K6_BIN'] ??
  [
    path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'tools', 'bin', 'k6'),
  ].find(existsSync);

/** The case's server, started in its own process, and the environment its script reads. */
async function caseServer(
  c: Case,
  payloadFile: string,
): Promise<{ server: BenchServer; env: Record<string, string> }> {
  const server = await startServer(c.server, 16);
  const target = c.server === 'http' ? `http://127.0.0.1:${server.port}/` : `127.0.0.1:${server.port}`;
  return {
    server,
    env: { TARGET: target, PAYLOAD: payloadFile, PAYLOAD_BYTES: String(PAYLOAD_BYTES), PROTO_DIR },
  };
}

function report(name: string, runtime: string, vus: number, m: Measured): void {
  console.log(
    `${name.padEnd(32)} ${runtime.padEnd(12)} vus=${String(vus).padStart(3)}  ${m.rate.toFixed(0).padStart(6)} req/s  ` +
      `exit=${m.exitCode}  max RSS ${m.rss_mib.toFixed(0)} MiB  ` +
      `CPU client ${m.client_pct.toFixed(0)}% server ${m.server_pct.toFixed(0)}%`,
  );
}

/** The case's script under real k6, in a process of its own; its RSS and CPU come from /proc. */
async function runCaseK6(
  k6: string,
  c: Case,
  vus: number,
  duration: string,
  payloadFile: string,
): Promise<Measured> {
  const { server, env } = await caseServer(c, payloadFile);
  const dir = mkdtempSync(path.join(tmpdir(), 'k6t-bench-k6-'));
  const summary = path.join(dir, 'summary.json');
  const argv = ['run', '-q', '--vus', String(vus), '--duration', duration, '--summary-export', summary];
  for (const [k, v] of Object.entries(env)) argv.push('-e', `${k}=${v}`);
  const serverCpu0 = processCpu_ms(server.child.pid);
  const t0 = performance.now();
  try {
    const child = spawn(k6, [...argv, path.join(SCRIPTS, c.script)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    let rss_kib = 0;
    let cpu_ms = 0;
    const timer = setInterval(() => {
      cpu_ms = Math.max(cpu_ms, processCpu_ms(child.pid));
      const status = existsSync(`/proc/${child.pid}/status`)
        ? readFileSync(`/proc/${child.pid}/status`, 'utf8')
        : '';
      rss_kib = Math.max(rss_kib, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    }, 250);
    const exitCode = await new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
    clearInterval(timer);
    const wall_ms = performance.now() - t0;
    if (exitCode !== 0) process.stderr.write(log.slice(-2000));
    const data = existsSync(summary)
      ? (JSON.parse(readFileSync(summary, 'utf8')) as { metrics: Record<string, { count?: number }> })
      : { metrics: {} };
    const count = data.metrics[c.metric]?.count ?? 0;
    return {
      rate: count / (parseDuration_ms(duration, '--duration') / 1000),
      rss_mib: rss_kib / 1024,
      client_pct: (cpu_ms / wall_ms) * 100,
      server_pct: ((processCpu_ms(server.child.pid) - serverCpu0) / wall_ms) * 100,
      exitCode,
    };
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runCase(c: Case, vus: number, duration: string, payloadFile: string): Promise<Measured> {
  const { server, env } = await caseServer(c, payloadFile);
  let rssMax_bytes = 0;
  const timer = setInterval(() => (rssMax_bytes = Math.max(rssMax_bytes, process.memoryUsage.rss())), 250);
  let log = '';
  const prevSink = setLogSink((line) => {
    log += line;
  });
  const cpu0 = process.cpuUsage();
  const serverCpu0 = processCpu_ms(server.child.pid);
  const t0 = performance.now();
  try {
    const result = await runTest({
      script: path.join(SCRIPTS, c.script),
      env,
      includeSystemEnv: false,
      overrides: { vus, duration },
      quiet: true,
      noSummary: true,
      stdout: () => undefined,
      stderr: (s) => {
        log += s;
      },
    });
    const wall_ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const serverCpu = (processCpu_ms(server.child.pid) - serverCpu0) / wall_ms;
    const data = result.summaryData;
    const m = data?.metrics[c.metric]?.values ?? {};
    const count = m['count'] ?? 0;
    const runMs = data?.state.testRunDurationMs ?? wall_ms;
    if (result.exitCode !== 0) process.stderr.write(log.slice(-2000));
    return {
      rate: count / (runMs / 1000),
      rss_mib: rssMax_bytes / 2 ** 20,
      client_pct: ((cpu.user + cpu.system) / 1e3 / wall_ms) * 100,
      server_pct: serverCpu * 100,
      exitCode: result.exitCode,
    };
  } finally {
    setLogSink(prevSink);
    clearInterval(timer);
    server.stop();
  }
}

const { values } = parseArgs({
  options: {
    vus: { type: 'string', default: '8' },
    duration: { type: 'string', default: '10s' },
    case: { type: 'string', default: 'all' },
  },
});
const vus = Number(values.vus);
if (!Number.isInteger(vus) || vus < 1) throw new Error('invalid --vus; expected an integer >= 1');
const names = values.case === 'all' ? Object.keys(CASES) : [values.case!];
const dir = mkdtempSync(path.join(tmpdir(), 'k6t-bench-'));
const payloadFile = path.join(dir, 'payload.bin');
writeFileSync(payloadFile, Buffer.alloc(PAYLOAD_BYTES, 7));
const node = new Map<string, Measured>();
const k6 = new Map<string, Measured>();
try {
  for (const name of names) {
    const c = CASES[name];
    if (!c) throw new Error(`invalid --case ${name}; expected ${Object.keys(CASES).join('|')}|all`);
    node.set(name, await runCase(c, vus, values.duration!, payloadFile));
    report(c.name, 'Node runtime', vus, node.get(name)!);
    if (!K6) continue;
    k6.set(name, await runCaseK6(K6, c, vus, values.duration!, payloadFile));
    report(c.name, 'real k6', vus, k6.get(name)!);
  }
  if (!K6) console.log('real k6: absent (set K6_BIN); no comparison');
  for (const [name, m] of node) {
    const ref = k6.get(name);
    if (ref && ref.rate > 0)
      console.log(`${CASES[name]!.name}: Node runtime ${(m.rate / ref.rate).toFixed(1)}x real k6`);
  }
  const grpc = node.get('grpc600k');
  const post = node.get('post600k');
  if (grpc && post)
    console.log(
      `602 KB over gRPC: ${((grpc.rate / post.rate) * 100).toFixed(0)}% of the 602 KB POST rate (Node runtime)`,
    );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
