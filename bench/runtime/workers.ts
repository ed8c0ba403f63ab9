/**
 * The Node runtime's worker threads (`k6-triton run --workers N`) side by side: MNIST ModelInfer over
 * gRPC (scripts/mnist-grpc.js) against the embedded server in a process of its own (`serve --time-scale
 * 0`, answering as fast as it can), as whole `k6-triton run` processes; the worker counts alternate
 * within each round.
 *   node --import tsx bench/runtime/workers.ts [--workers 1,2] [--vus 8] [--duration 10s] [--rounds 3]
 * Per run: requests/s, client CPU µs per request net of start-up (the run's user+system CPU less that of
 * a start-up run with the same workers and VUs, over the requests it made beyond that run's), the
 * server's CPU µs per request, and the client's peak RSS. Times and RSS from /usr/bin/time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startServeProcess } from '../serve-process.ts';
import { PROTO_DIR } from './bench-proto.ts';
import { processCpu_ms } from './servers.ts';
import { timedRun } from './timed-run.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = join(ROOT, 'bench', 'runtime', 'scripts', 'mnist-grpc.js');
const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: '1,2' },
    vus: { type: 'string', default: '8' },
    duration: { type: 'string', default: '10s' },
    rounds: { type: 'string', default: '3' },
  },
});
const CMD = [process.execPath, join(ROOT, 'bin/k6-triton.js')];
const counts = values.workers!.split(',').map(Number);
const vus = values.vus!;
const seconds = Number.parseFloat(values.duration!);

const server = await startServeProcess({ args: ['--time-scale', '0'] });
const env = { TARGET: `127.0.0.1:${server.grpc}`, PROTO_DIR };
const run = (workers: number, shape: string[]) =>
  timedRun(CMD, ['--workers', String(workers), '--vus', vus, ...shape], SCRIPT, env);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

console.log(
  '| round | workers | VUs | req/s | client CPU µs/req (net of start-up) | server CPU µs/req | client peak RSS MiB | exit | load |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (let r = 1; r <= Number(values.rounds); r++) {
  for (let i = 0; i < counts.length; i++) {
    const workers = counts[(i + r - 1) % counts.length]!;
    const l = load();
    const base = await run(workers, ['--iterations', vus]);
    const server0 = processCpu_ms(server.child.pid);
    const x = await run(workers, ['--duration', values.duration!]);
    const server_ms = processCpu_ms(server.child.pid) - server0;
    const net = x.reqs > base.reqs ? ((x.cpu_s - base.cpu_s) * 1e6) / (x.reqs - base.reqs) : 0;
    console.log(
      `| ${r} | ${workers} | ${vus} | ${Math.round(x.reqs / seconds)} | ${net.toFixed(0)} | ${x.reqs ? ((server_ms * 1000) / x.reqs).toFixed(0) : '-'} | ${x.rss_mib.toFixed(0)} | ${x.code} | ${l} |`,
    );
  }
}
// Waited for: a serve still writing its shutdown lines into a closed pipe dies of EPIPE.
const exited = new Promise((resolve) => server.child.once('exit', resolve));
server.child.kill('SIGTERM');
await exited;
