/**
 * gRPC ModelInfer served two ways, side by side (run: node --import tsx bench/server/model-infer-paths.ts
 * [rounds] [seconds]): the embedded server's own node:http2 path and grpc-js, each in its own server process
 * on the zero-compute MNIST-shaped model, driven by perf_analyzer -i grpc at c1, c4, c16. Rounds alternate
 * which path goes first, so a noisy neighbour lands on both. Per run, from the server's side over the whole
 * perf_analyzer run: infer/s (inferences its statistics counted over the wall time) and CPU per inference (its
 * /proc CPU over the same inferences). Then the median of each and the ratio grpc-js / node-http2.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { processCpu_s } from '../../measure/cpu.ts';
import { MNIST_ZERO, mnistZeroRepository } from './mnist-zero.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ROUNDS = Number(process.argv[2] ?? 3);
const SECONDS = Number(process.argv[3] ?? 3);
const CONCURRENCIES = [1, 4, 16];
const PATHS = ['node-http2', 'grpc-js'] as const;
type Path = (typeof PATHS)[number];
const PERF_ANALYZER = process.env.PERF_ANALYZER ?? `${ROOT}../shared/tools/bin/perf_analyzer`;

/** The server of one path in a child process (server/index.ts startServer); resolves with its ports. */
function startPath(path: Path, repo: string): Promise<{ child: ChildProcess; http: number; grpc: number }> {
  const script = `
    import { startServer } from ${JSON.stringify(`${ROOT}server/index.ts`)};
    const s = await startServer({ modelRepository: ${JSON.stringify(repo)}, httpPort: 0, grpcPort: 0,
      metricsPort: -1, grpcModelInfer: ${JSON.stringify(path)} });
    console.log(JSON.stringify({ http: s.httpPort, grpc: s.grpcPort }));
    process.on('SIGTERM', () => s.stop().then(() => process.exit(0)));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve({ child, ...JSON.parse(String(d)) }));
    child.once('exit', (code) => reject(new Error(`${path} server exited with ${code}`)));
  });
}

async function successCount(httpPort: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${httpPort}/v2/models/${MNIST_ZERO}/stats`);
  const json = (await res.json()) as { model_stats: { inference_stats: { success: { count: number } } }[] };
  return json.model_stats[0]!.inference_stats.success.count;
}

/** Runs perf_analyzer at one concurrency; its own verdict does not matter (a busy machine fails its stability). */
function perfAnalyzer(grpcPort: number, concurrency: number): Promise<void> {
  const args = [
    ...['-m', MNIST_ZERO, '-i', 'grpc', '-u', `127.0.0.1:${grpcPort}`],
    ...['--concurrency-range', `${concurrency}:${concurrency}`],
    ...['-p', String(SECONDS * 1000), '--max-trials', '3', '-s', '1000'],
  ];
  return new Promise((resolve, reject) =>
    execFile(PERF_ANALYZER, args, { maxBuffer: 1 << 24 }, (err, stdout) => {
      if (err && !/Request concurrency/.test(stdout))
        reject(new Error(`perf_analyzer: ${err.message}\n${stdout}`));
      else resolve();
    }),
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function main(): Promise<void> {
  const repo = mnistZeroRepository(0);
  const servers = new Map<Path, Awaited<ReturnType<typeof startPath>>>();
  try {
    for (const p of PATHS) servers.set(p, await startPath(p, repo));
    // Warm-up: JIT and connections of both.
    for (const p of PATHS) await perfAnalyzer(servers.get(p)!.grpc, 4);
    const runs = new Map<string, { rate: number[]; us: number[] }>();
    console.log('round  conc  path        infer/s  server_cpu_us/infer');
    for (let round = 1; round <= ROUNDS; round++) {
      for (const c of CONCURRENCIES) {
        const order = round % 2 === 1 ? PATHS : [...PATHS].reverse();
        for (const p of order) {
          const s = servers.get(p)!;
          const n0 = await successCount(s.http);
          const cpu0 = processCpu_s(s.child.pid!)!;
          const t0 = performance.now();
          await perfAnalyzer(s.grpc, c);
          const wall_s = (performance.now() - t0) / 1000;
          const cpu1 = processCpu_s(s.child.pid!)!;
          const n1 = await successCount(s.http);
          const inferPerSec = (n1 - n0) / wall_s;
          const us = ((cpu1 - cpu0) / (n1 - n0)) * 1e6;
          const key = `${c} ${p}`;
          if (!runs.has(key)) runs.set(key, { rate: [], us: [] });
          runs.get(key)!.rate.push(inferPerSec);
          runs.get(key)!.us.push(us);
          console.log(
            `${String(round).padStart(5)}  ${String(c).padStart(4)}  ${p.padEnd(10)}  ${inferPerSec.toFixed(0).padStart(7)}  ${us.toFixed(0).padStart(19)}`,
          );
        }
      }
    }
    console.log(
      'medians: conc  node-http2 infer/s  grpc-js infer/s  ratio  node-http2 us  grpc-js us  ratio',
    );
    for (const c of CONCURRENCIES) {
      const own = runs.get(`${c} node-http2`)!;
      const lib = runs.get(`${c} grpc-js`)!;
      const [or, lr, ou, lu] = [median(own.rate), median(lib.rate), median(own.us), median(lib.us)];
      console.log(
        `         ${String(c).padStart(4)}  ${or.toFixed(0).padStart(18)}  ${lr.toFixed(0).padStart(15)}  ${(or / lr).toFixed(2).padStart(5)}  ${ou.toFixed(0).padStart(13)}  ${lu.toFixed(0).padStart(10)}  ${(lu / ou).toFixed(2).padStart(5)}`,
      );
    }
  } finally {
    for (const s of servers.values()) s.child.kill('SIGTERM');
    rmSync(repo, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`bench/server/model-infer-paths: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
