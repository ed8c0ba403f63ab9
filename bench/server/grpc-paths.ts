/**
 * The embedded server's two gRPC ModelInfer paths side by side: node:http2 (server/grpc/model-infer.ts, the
 * default) and grpc-js (K6_TRITON_SERVER_GRPC=grpc-js). Each round starts `k6-triton serve` once per path
 * and drives MNIST with perf_analyzer over gRPC at one concurrency; prints infer/s and the server's CPU per
 * inference (its whole process, from /proc, over the middle of the run). Paths alternate, since on shared
 * cores one minute differs from the next.
 *
 *   node --import tsx bench/server/grpc-paths.ts [--concurrency 2] [--seconds 8] [--rounds 2]
 *
 * perf_analyzer: PERF_ANALYZER, else ../shared/tools/bin/perf_analyzer; without it the bench says so and stops.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { processCpu_s } from '../../cli/bench/cpu.ts';
import { getModel } from '../../models/index.ts';
import { startServeProcess } from '../serve-process.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PATHS = ['node-http2', 'grpc-js'] as const;

const { values: args } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '2' },
  },
});
const SECONDS = Number(args.seconds);

/** Inferences the server has counted so far (Triton's nv_inference_count, all models). */
async function inferences(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  let n = 0;
  for (const m of text.matchAll(/^nv_inference_count\{[^}]*\} (\d+)/gm)) n += Number(m[1]);
  return n;
}

async function measure(pa: string, path: (typeof PATHS)[number]): Promise<string> {
  const server = await startServeProcess({ env: { ...process.env, K6_TRITON_SERVER_GRPC: path } });
  try {
    const run = spawn(pa, [
      ...['-m', getModel('mnist').name, '-i', 'grpc', '-u', `127.0.0.1:${server.grpc}`],
      ...['--concurrency-range', args.concurrency!, '-p', String(SECONDS * 1000), '--max-trials', '3'],
    ]);
    run.stdout.resume();
    const ended = new Promise((resolve) => run.once('exit', resolve));
    // perf_analyzer's first window includes its warm-up; measure inside its later ones.
    await new Promise((r) => setTimeout(r, 2000));
    const cpu0 = processCpu_s(server.child.pid!) ?? Number.NaN;
    const n0 = await inferences(server.metrics);
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const cpu1 = processCpu_s(server.child.pid!) ?? Number.NaN;
    const n1 = await inferences(server.metrics);
    const wall_s = (Date.now() - t0) / 1000;
    run.kill('SIGINT');
    await ended;
    const rate = (n1 - n0) / wall_s;
    const cpuPerInfer_us = ((cpu1 - cpu0) / (n1 - n0)) * 1e6;
    return `| ${path} | ${Math.round(rate).toLocaleString('en')} | ${Math.round(((cpu1 - cpu0) / wall_s) * 100)}% | ${Math.round(cpuPerInfer_us)} |`;
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
  }
}

const pa = process.env['PERF_ANALYZER'] ?? join(ROOT, '..', 'shared', 'tools', 'bin', 'perf_analyzer');
if (!existsSync(pa)) {
  console.log(`perf_analyzer: absent (set PERF_ANALYZER); looked for ${pa}. Nothing measured.`);
  process.exit(0);
}
console.log(`perf_analyzer ${pa}, gRPC, concurrency ${args.concurrency}, ${SECONDS} s per point\n`);
console.log('| ModelInfer path | infer/s | server CPU (of one core) | server CPU µs per inference |');
console.log('|---|---|---|---|');
for (let round = 0; round < Number(args.rounds); round++) {
  const order = round % 2 === 0 ? PATHS : [...PATHS].reverse();
  for (const path of order) console.log(await measure(pa, path));
}
