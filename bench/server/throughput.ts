/**
 * Benchmark of the embedded server itself (run: node --import tsx bench/server/throughput.ts [seconds]).
 * The server runs in its own process (`k6-triton serve`) on a temporary repository holding one MNIST-shaped
 * model with zero compute time, so every microsecond measured is server and client overhead:
 *   1. overhead per request at concurrency 1 (client round trip, and the server's own request duration);
 *   2. the most infer/s for MNIST-size binary requests (3136-byte FP32 input) over HTTP (undici) and gRPC.
 * The client runs in this process; on a small machine it competes with the server for CPU, as a k6 run would.
 */
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { Pool } from 'undici';
import { processCpu_s } from '../../measure/core/cpu.ts';
import { startServeProcess } from '../serve-process.ts';
import { mnistZeroRepository, mnistZeroRequest } from './mnist-zero.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SECONDS = Number(process.argv[2] ?? 5);
const CONCURRENCIES = [1, 16, 64, 256];
const GRPC_CHANNELS = 8;

type GrpcInfer = grpc.Client & {
  ModelInfer(req: object, cb: (err: Error | null, res: { raw_output_contents: Buffer[] }) => void): void;
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `concurrency` loops of `once` for SECONDS; returns infer/s and latency percentiles in microseconds. */
async function closedLoop(concurrency: number, once: () => Promise<void>, seconds = SECONDS) {
  const latencies_us: number[] = [];
  const end = performance.now() + seconds * 1000;
  let errors = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        await once();
        latencies_us.push((performance.now() - t0) * 1000);
      } catch {
        errors += 1;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed_s = (performance.now() - started) / 1000;
  latencies_us.sort((a, b) => a - b);
  return {
    inferPerSec: latencies_us.length / elapsed_s,
    p50_us: percentile(latencies_us, 50),
    p99_us: percentile(latencies_us, 99),
    mean_us: latencies_us.reduce((a, b) => a + b, 0) / latencies_us.length,
    errors,
  };
}

async function main(): Promise<void> {
  const repo = mnistZeroRepository(0);
  const { child, ...ports } = await startServeProcess({ args: ['--model-repository', repo] });
  const { image, header, body } = mnistZeroRequest();

  const pool = new Pool(`http://127.0.0.1:${ports.http}`, { connections: 256, pipelining: 1 });
  const httpOnce = async () => {
    const res = await pool.request({
      path: '/v2/models/mnist-zero/infer',
      method: 'POST',
      body,
      headers: {
        'inference-header-content-length': String(header.length),
        'content-type': 'application/octet-stream',
      },
    });
    const bytes = await res.body.arrayBuffer();
    if (res.statusCode !== 200 || bytes.byteLength === 0) throw new Error(`HTTP ${res.statusCode}`);
  };
  const def = protoLoader.loadSync('grpc_service.proto', {
    keepCase: true,
    longs: Number,
    enums: String,
    oneofs: true,
    includeDirs: [path.join(ROOT, 'proto')],
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    inference: {
      GRPCInferenceService: new (addr: string, creds: grpc.ChannelCredentials, options: object) => GrpcInfer;
    };
  };
  // Several HTTP/2 connections, as k6 opens one per VU; a local subchannel pool keeps grpc-js from sharing one.
  const channels = Array.from(
    { length: GRPC_CHANNELS },
    () =>
      new pkg.inference.GRPCInferenceService(`127.0.0.1:${ports.grpc}`, grpc.credentials.createInsecure(), {
        'grpc.use_local_subchannel_pool': 1,
      }),
  );
  let next = 0;
  const grpcRequest = {
    model_name: 'mnist-zero',
    inputs: [{ name: 'input.1', datatype: 'FP32', shape: [1, 1, 28, 28] }],
    raw_input_contents: [image],
  };
  const grpcOnce = () =>
    new Promise<void>((resolve, reject) =>
      channels[next++ % channels.length]!.ModelInfer(grpcRequest, (err, res) =>
        err
          ? reject(err)
          : res.raw_output_contents[0]!.length === 40
            ? resolve()
            : reject(new Error('short')),
      ),
    );

  try {
    // Warm up both paths (JIT, connections).
    await closedLoop(8, httpOnce, 1);
    await closedLoop(8, grpcOnce, 1);
    const before = await statsOf(ports.http);
    const c1 = await closedLoop(1, httpOnce);
    const after = await statsOf(ports.http);
    const serverUs =
      (after.success.ns - before.success.ns) / (after.success.count - before.success.count) / 1000;
    console.log(
      `machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, ${SECONDS} s per point`,
    );
    console.log('overhead per request, zero compute, concurrency 1, HTTP binary MNIST-size request:');
    console.log(
      `  client round trip mean ${c1.mean_us.toFixed(0)} us, p50 ${c1.p50_us.toFixed(0)} us, p99 ${c1.p99_us.toFixed(0)} us; ` +
        `server request duration (stats success.ns / count) ${serverUs.toFixed(1)} us`,
    );
    const g1 = await closedLoop(1, grpcOnce);
    console.log(
      `  gRPC round trip mean ${g1.mean_us.toFixed(0)} us, p50 ${g1.p50_us.toFixed(0)} us, p99 ${g1.p99_us.toFixed(0)} us`,
    );
    console.log('max infer/s, MNIST-size binary requests (3136-byte FP32 input, 40-byte output):');
    console.log('  protocol  concurrency  infer/s   p50_us   p99_us  errors  server_cpu  client_cpu');
    for (const [name, once] of [
      ['HTTP', httpOnce],
      ['gRPC', grpcOnce],
    ] as const) {
      for (const c of CONCURRENCIES) {
        const server0 = processCpu_s(child.pid!);
        const client0 = process.cpuUsage();
        const t0 = performance.now();
        const r = await closedLoop(c, once);
        const wall_s = (performance.now() - t0) / 1000;
        const server1 = processCpu_s(child.pid!);
        const client = process.cpuUsage(client0);
        // Share of one core: Node serves on one thread, so near 100% means the server is the bottleneck.
        const serverPct =
          server0 === undefined || server1 === undefined
            ? 'n/a'
            : `${(((server1 - server0) / wall_s) * 100).toFixed(0)}%`;
        const clientPct = `${(((client.user + client.system) / 1e6 / wall_s) * 100).toFixed(0)}%`;
        console.log(
          `  ${name.padEnd(8)}  ${String(c).padStart(11)}  ${r.inferPerSec.toFixed(0).padStart(7)}  ${r.p50_us.toFixed(0).padStart(7)}  ${r.p99_us.toFixed(0).padStart(7)}  ${String(r.errors).padStart(6)}  ${serverPct.padStart(10)}  ${clientPct.padStart(10)}`,
        );
      }
    }
  } finally {
    for (const c of channels) c.close();
    await pool.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(repo, { recursive: true, force: true });
  }
}

async function statsOf(port: number): Promise<{ success: { count: number; ns: number } }> {
  const res = await fetch(`http://127.0.0.1:${port}/v2/models/mnist-zero/stats`);
  const json = (await res.json()) as {
    model_stats: { inference_stats: { success: { count: number; ns: number } } }[];
  };
  return json.model_stats[0]!.inference_stats;
}

main().catch((err) => {
  console.error(`bench/server: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
