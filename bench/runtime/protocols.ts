/**
 * Requests/s and RSS of whole k6 scripts run by the runtime's engine (runTest) against a local server
 * that answers at once: the figure a user gets, engine and metrics included.
 *   node --import tsx bench/runtime/protocols.ts [--vus 8] [--duration 10s] [--case get|post600k|grpc600k|all]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runTest } from '../../runtime/index.ts';
import { setLogSink } from '../../runtime/log.ts';
import { PROTO_DIR } from './bench-proto.ts';
import { processCpu_ms, startServer } from './servers.ts';

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

async function runCase(c: Case, vus: number, duration: string, payloadFile: string): Promise<void> {
  const server = await startServer(c.server, 16);
  const target = c.server === 'http' ? `http://127.0.0.1:${server.port}/` : `127.0.0.1:${server.port}`;
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
      env: { TARGET: target, PAYLOAD: payloadFile, PAYLOAD_BYTES: String(PAYLOAD_BYTES), PROTO_DIR },
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
    const rate = count / (runMs / 1000);
    console.log(
      `${c.name.padEnd(32)} vus=${String(vus).padStart(3)}  ${rate.toFixed(0).padStart(6)} req/s  ` +
        `exit=${result.exitCode}  max RSS ${(rssMax_bytes / 2 ** 20).toFixed(0)} MiB  ` +
        `CPU client ${(((cpu.user + cpu.system) / 1e3 / wall_ms) * 100).toFixed(0)}% server ${(serverCpu * 100).toFixed(0)}%`,
    );
    if (result.exitCode !== 0) process.stderr.write(log.slice(-2000));
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
try {
  for (const name of names) {
    const c = CASES[name];
    if (!c) throw new Error(`invalid --case ${name}; expected ${Object.keys(CASES).join('|')}|all`);
    await runCase(c, vus, values.duration!, payloadFile);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
