/**
 * The runtime's own unary gRPC client (a lean HTTP/2 connection) against grpc-js side by side: MNIST
 * ModelInfer against the embedded server (`serve --time-scale 0`, so the server answers as fast as it can), at each
 * concurrency, both paths alternating within each round (the order flips every round). Each run is a
 * process of its own (wire-run.ts); CPU is that process's during the run, so CPU µs per request is the
 * client's cost of one infer.
 *   node --import tsx bench/runtime/wire-vs-library.ts [--rounds 3] [--vus 1,4,16] [--duration 8s]
 * Until 2026-11-29 it compared the hand-written HTTP/1 client with undici too (--proto http, commit 43a1372);
 * that client did not win consistently and was removed (bench/figures/RESULTS.md).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startServeProcess } from '../serve-process.ts';
import { PROTO_DIR } from './bench-proto.ts';
import { processCpu_ms } from './servers.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PATHS = ['own', 'library'] as const;

interface Run {
  exitCode: number;
  requests: number;
  bad: number;
  cpu_us: number;
  run_ms: number;
}

/** One wire-run.ts process; resolves with its JSON line. */
function runOnce(wire: string, script: string, vus: number, duration: string, env: string[]): Promise<Run> {
  const args = ['--import', 'tsx', path.join(HERE, 'wire-run.ts'), '--wire', wire, '--script', script];
  args.push('--vus', String(vus), '--duration', duration, ...env.flatMap((kv) => ['-e', kv]));
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', () => {
      const line = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line) as Run);
      } catch {
        reject(new Error(`wire-run printed no result: ${out}`));
      }
    }),
  );
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    vus: { type: 'string', default: '1,4,16' },
    duration: { type: 'string', default: '8s' },
  },
});
const rounds = Number(values.rounds);
const levels = values.vus!.split(',').map(Number);
const protos = ['grpc'];
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('invalid --rounds; expected an integer >= 1');
if (levels.some((v) => !Number.isInteger(v) || v < 1))
  throw new Error('invalid --vus; expected integers >= 1');

const server = await startServeProcess({ args: ['--time-scale', '0'] });
const targets: Record<string, string[]> = {
  grpc: [`TARGET=127.0.0.1:${server.grpc}`, `PROTO_DIR=${PROTO_DIR}`],
};
/** key "proto vus path" → per-round figures. */
const cells = new Map<string, { cpuPerReq_us: number; rate: number }[]>();
try {
  for (let r = 0; r < rounds; r++) {
    for (const proto of protos) {
      for (const vus of levels) {
        const order = r % 2 === 0 ? PATHS : [...PATHS].reverse();
        for (const wire of order) {
          const serverCpu0 = processCpu_ms(server.child.pid);
          const run = await runOnce(
            wire,
            path.join(HERE, 'scripts', `mnist-${proto}.js`),
            vus,
            values.duration!,
            targets[proto]!,
          );
          const serverCpu_ms = processCpu_ms(server.child.pid) - serverCpu0;
          const cpuPerReq_us = run.cpu_us / run.requests;
          const rate = run.requests / (run.run_ms / 1000);
          const key = `${proto} ${vus} ${wire}`;
          cells.set(key, [...(cells.get(key) ?? []), { cpuPerReq_us, rate }]);
          console.log(
            `round ${r + 1} ${proto.padEnd(4)} c${String(vus).padEnd(3)} ${wire.padEnd(8)} ` +
              `${rate.toFixed(0).padStart(6)} infer/s  client ${cpuPerReq_us.toFixed(0).padStart(4)} µs/req  ` +
              `server ${((serverCpu_ms * 1000) / run.requests).toFixed(0).padStart(4)} µs/req  ` +
              `bad=${run.bad} exit=${run.exitCode}`,
          );
        }
      }
    }
  }
} finally {
  // Waited for: a serve still writing its shutdown lines into a closed pipe dies of EPIPE.
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

console.log(
  '\n| protocol | c | own: client µs/req (rounds) | library: client µs/req (rounds) | library/own CPU (median) | own infer/s (median) | library infer/s (median) |',
);
console.log('|---|---:|---|---|---:|---:|---:|');
for (const proto of protos) {
  for (const vus of levels) {
    const own = cells.get(`${proto} ${vus} own`) ?? [];
    const lib = cells.get(`${proto} ${vus} library`) ?? [];
    const ratios = own.map((o, i) => lib[i]!.cpuPerReq_us / o.cpuPerReq_us);
    const list = (xs: { cpuPerReq_us: number }[]) => xs.map((x) => x.cpuPerReq_us.toFixed(0)).join(' / ');
    console.log(
      `| ${proto} | ${vus} | ${list(own)} | ${list(lib)} | ${median(ratios).toFixed(2)} (${ratios.map((x) => x.toFixed(2)).join(', ')}) | ` +
        `${median(own.map((x) => x.rate)).toFixed(0)} | ${median(lib.map((x) => x.rate)).toFixed(0)} |`,
    );
  }
}
process.exit(0);
