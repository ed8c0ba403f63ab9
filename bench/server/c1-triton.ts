/**
 * Concurrency 1 against real Triton (issue 40, item 5): perf_analyzer's infer/s on the embedded server and on
 * tritonserver serving the same MNIST repository, in one sitting, the targets alternating run by run (the first
 * target of each round rotates), per protocol; prints each run with the 1-minute load average, then medians and
 * the ratio to Triton's median.
 * `node --import tsx bench/server/c1-triton.ts [--rounds 5] [--window-ms 2000] [--floors]
 *   [--also LABEL=HTTP_PORT:GRPC_PORT ...]`
 * `--floors` adds bench/server/c1-floors.ts (node:http, grpc-js and bare node:http2 answering with a fixed answer
 * after the same onnxruntime run: what the libraries cost alone; and bare node:http2 around the embedded server's
 * own ModelInfer work: what a ModelInfer served past grpc-js would reach). `--also` adds a server already running
 * on the same repository (e.g. `serve` at another commit). Needs tritonserver and perf_analyzer (TRITONSERVER,
 * PERF_ANALYZER, or ../shared/tools/bin/).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTritonserver } from '../../measure/core/tritonserver.ts';
import { referenceTool } from '../../test/e2e/tools/reference-tools.ts';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = path.join(ROOT, 'bin/k6-triton.js');
const MODEL = 'onnx-mnist-cpu';
const args = process.argv.slice(2);
const value = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : fallback;
};
const rounds = Number(value('--rounds', '5'));
const windowMs = value('--window-ms', '2000');

interface Target {
  label: string;
  http?: number;
  grpc?: number;
}

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0]!;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts a child and waits until it prints `ready`. */
async function child(argv: string[], ready: string): Promise<ChildProcess> {
  const proc = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout!.on('data', (d) => {
    out += d;
  });
  for (let i = 0; !out.includes(ready); i++) {
    if (i > 1200 || proc.exitCode !== null) throw new Error(`${argv.join(' ')} did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return proc;
}

/** One perf_analyzer run at concurrency 1: infer/s and average latency (µs). */
async function measure(pa: string, protocol: 'http' | 'grpc', port: number) {
  const { stdout } = await run(
    pa,
    [
      '-m',
      MODEL,
      '-u',
      `127.0.0.1:${port}`,
      '-i',
      protocol,
      '--concurrency-range',
      '1',
      '-p',
      windowMs,
      '-s',
      '100',
    ],
    { maxBuffer: 1 << 20 },
  );
  const m = /Concurrency: 1, throughput: ([\d.]+) infer\/sec, latency (\d+) usec/.exec(stdout);
  if (!m) throw new Error(`perf_analyzer gave no figure:\n${stdout}`);
  return { ips: Number(m[1]), latency_us: Number(m[2]) };
}

async function main(): Promise<void> {
  const triton = referenceTool('tritonserver', 'TRITONSERVER');
  const pa = referenceTool('perf_analyzer', 'PERF_ANALYZER');
  if (!triton.path || !pa.path) throw new Error(triton.skipReason || pa.skipReason);
  const repo = mkdtempSync(path.join(tmpdir(), 'k6t-c1-'));
  await run(process.execPath, [BIN, 'repository', repo, '--model', 'mnist']);
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const procs: ChildProcess[] = [];
  const real = await startTritonserver({ binary: triton.path, repository: repo });
  try {
    procs.push(
      await child(
        [
          BIN,
          'serve',
          '--model-repository',
          repo,
          '--http-port',
          `${httpPort}`,
          '--grpc-port',
          `${grpcPort}`,
          '--metrics-port',
          '0',
        ],
        'Started HTTPService',
      ),
    );
    const targets: Target[] = [
      { label: 'embedded', http: httpPort, grpc: grpcPort },
      { label: 'triton', http: real.httpPort, grpc: real.grpcPort },
    ];
    for (const also of args.flatMap((a, i) => (args[i - 1] === '--also' ? [a] : []))) {
      const [label, ports] = also.split('=');
      const [h, g] = ports!.split(':').map(Number);
      targets.push({ label: label!, http: h, grpc: g });
    }
    if (args.includes('--floors')) {
      const modelFile = path.join(repo, MODEL, '1', 'model.onnx');
      for (const kind of ['http', 'grpc-js', 'http2', 'http2-core'] as const) {
        const port = await freePort();
        procs.push(
          await child(
            [
              '--import',
              'tsx',
              path.join(ROOT, 'bench/server/c1-floors.ts'),
              '--kind',
              kind,
              '--port',
              `${port}`,
              '--upstream',
              `http://127.0.0.1:${httpPort}`,
              '--model-file',
              modelFile,
            ],
            'listening',
          ),
        );
        targets.push(
          kind === 'http' ? { label: 'floor node:http', http: port } : { label: `floor ${kind}`, grpc: port },
        );
      }
    }
    const figures = new Map<string, number[]>();
    for (let r = 0; r < rounds; r++) {
      for (const protocol of ['http', 'grpc'] as const) {
        const serving = targets.filter((t) => t[protocol] !== undefined);
        // Rotate who goes first, so no target always follows the same one.
        const order = serving.map((_, i) => serving[(i + r) % serving.length]!);
        for (const t of order) {
          const before = load();
          const { ips, latency_us } = await measure(pa.path, protocol, t[protocol]!);
          const key = `${protocol} ${t.label}`;
          figures.set(key, [...(figures.get(key) ?? []), ips]);
          console.log(
            `round ${r + 1} ${key}: ${ips.toFixed(0)} infer/s, ${latency_us} µs (load ${before}-${load()})`,
          );
        }
      }
    }
    console.log(`\nmedians of ${rounds} rounds (${new Date().toISOString()}):`);
    for (const protocol of ['http', 'grpc']) {
      const ref = median(figures.get(`${protocol} triton`)!);
      for (const [key, xs] of figures) {
        if (!key.startsWith(protocol)) continue;
        console.log(`${key}: ${median(xs).toFixed(0)} infer/s (${(median(xs) / ref).toFixed(2)} of Triton)`);
      }
    }
  } finally {
    for (const p of procs) p.kill('SIGINT');
    await real.stop();
  }
}

await main();
