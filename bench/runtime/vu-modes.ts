/**
 * The two VU modes of the Node runtime side by side (K6_TRITON_VU_MODE=event-loop|blocking), as whole
 * `k6-triton run` processes against one small-response HTTP server in a process of its own; the modes
 * alternate within each round.
 *   node --import tsx bench/runtime/vu-modes.ts [--vus 1,32] [--duration 8s] [--start-vus 1,32,256] [--rounds 2]
 * Per request (scripts/http-get-sync.js, back-to-back GETs for --duration): requests/s, and client CPU
 * µs per request net of start-up (the run's user+system CPU less that of a start-up run at the same VUs,
 * over the requests it made beyond that run's). Per VU (--start-vus): a start-up run (one GET per VU,
 * --iterations = VUs): wall time and CPU of the whole process; and peak RSS with every VU sleeping 1 s
 * per iteration for 5 s. Times and RSS from /usr/bin/time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startServer } from './servers.ts';
import { timedRun } from './timed-run.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = join(ROOT, 'bench', 'runtime', 'scripts', 'http-get-sync.js');
const { values } = parseArgs({
  options: {
    vus: { type: 'string', default: '1,32' },
    duration: { type: 'string', default: '8s' },
    'start-vus': { type: 'string', default: '1,32,256' },
    rounds: { type: 'string', default: '2' },
  },
});
const MODES = ['event-loop', 'blocking'] as const;

const CMD = [process.execPath, join(ROOT, 'bin/k6-triton.js')];
/** One `k6-triton run` of the script in `mode` with `shape`'s flags. */
const run = (mode: string, shape: string[], env: Record<string, string>) =>
  timedRun(CMD, shape, SCRIPT, { ...env, K6_TRITON_VU_MODE: mode });

const server = await startServer('http', 16);
const TARGET = `http://127.0.0.1:${server.port}/`;
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
const seconds = Number.parseFloat(values.duration!);
const startRun = (mode: string, vus: number) =>
  run(mode, ['--vus', String(vus), '--iterations', String(vus)], { TARGET });

console.log('| round | mode | VUs | req/s | client CPU µs/req (net of start-up) | exit | load |');
console.log('|---|---|---:|---:|---:|---:|---:|');
for (let r = 1; r <= Number(values.rounds); r++) {
  for (const vus of values.vus!.split(',').map(Number)) {
    for (let i = 0; i < MODES.length; i++) {
      const mode = MODES[(i + r - 1) % MODES.length]!;
      const l = load();
      const base = await startRun(mode, vus);
      const x = await run(mode, ['--vus', String(vus), '--duration', values.duration!], { TARGET });
      const net = x.reqs > base.reqs ? ((x.cpu_s - base.cpu_s) * 1e6) / (x.reqs - base.reqs) : 0;
      console.log(
        `| ${r} | ${mode} | ${vus} | ${Math.round(x.reqs / seconds)} | ${net.toFixed(0)} | ${x.code} | ${l} |`,
      );
    }
  }
}
console.log(
  '\n| mode | VUs | start-up run: wall s | start-up run: CPU s | peak RSS MiB, VUs sleeping | exit | load |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const vus of values['start-vus']!.split(',').map(Number)) {
  for (const mode of MODES) {
    const l = load();
    const s = await startRun(mode, vus);
    const m = await run(mode, ['--vus', String(vus), '--duration', '5s'], { TARGET, PAUSE: '1' });
    console.log(
      `| ${mode} | ${vus} | ${s.wall_s.toFixed(2)} | ${s.cpu_s.toFixed(2)} | ${m.rss_mib.toFixed(0)} | ${s.code}/${m.code} | ${l} |`,
    );
  }
}
server.stop();
