/**
 * Synchronous k6/http against the async path and real k6, as whole processes (`k6-triton run` and k6)
 * against one small-response HTTP server in a process of its own; rows alternate within each round.
 *   node --import tsx bench/runtime/sync-http.ts [--vus 1,4] [--duration 8s] [--mem-vus 64,256] [--rounds 2]
 * Throughput rows: back-to-back GETs; client CPU µs per request is the process's user+system CPU over
 * its requests (start-up included). Memory rows: every VU sleeps 1 s per iteration; peak RSS (MiB).
 * Real k6 comes from K6_BIN, else ../shared/tools/bin/k6.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startServer } from './servers.ts';
import { timedRun } from './timed-run.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPTS = join(ROOT, 'bench', 'runtime', 'scripts');
const { values } = parseArgs({
  options: {
    vus: { type: 'string', default: '1,4' },
    duration: { type: 'string', default: '8s' },
    'mem-vus': { type: 'string', default: '64,256' },
    rounds: { type: 'string', default: '2' },
  },
});
const k6 = process.env['K6_BIN'] ?? join(ROOT, '..', 'shared', 'tools', 'bin', 'k6');
const clients = [
  {
    name: 'Node runtime, sync http.get',
    cmd: [process.execPath, join(ROOT, 'bin/k6-triton.js')],
    script: 'http-get-sync.js',
  },
  {
    name: 'Node runtime, await asyncRequest',
    cmd: [process.execPath, join(ROOT, 'bin/k6-triton.js')],
    script: 'http-get-async.js',
  },
  ...(existsSync(k6) ? [{ name: 'real k6, sync http.get', cmd: [k6], script: 'http-get-sync.js' }] : []),
];
if (!existsSync(k6)) console.log(`real k6: absent at ${k6} (set K6_BIN); no comparison`);

/** One run of `script` at `vus` for `duration`. */
const run = (cmd: string[], script: string, vus: number, duration: string, env: Record<string, string>) =>
  timedRun(cmd, ['--vus', String(vus), '--duration', duration], join(SCRIPTS, script), env, 120_000);

const server = await startServer('http', 16);
const TARGET = `http://127.0.0.1:${server.port}/`;
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
const rounds = Number(values.rounds);
const seconds = Number.parseFloat(values.duration!);
console.log('| round | client | VUs | req/s | client CPU µs/req | peak RSS MiB | exit | load |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|');
for (let r = 1; r <= rounds; r++) {
  for (const vus of values.vus!.split(',').map(Number)) {
    for (let i = 0; i < clients.length; i++) {
      const c = clients[(i + r - 1) % clients.length]!;
      const l = load();
      const x = await run(c.cmd, c.script, vus, values.duration!, { TARGET });
      const cpu = x.reqs ? Math.round((x.cpu_s * 1e6) / x.reqs) : 0;
      console.log(
        `| ${r} | ${c.name} | ${vus} | ${Math.round(x.reqs / seconds)} | ${cpu} | ${x.rss_mib.toFixed(0)} | ${x.code} | ${l} |`,
      );
    }
  }
}
for (const vus of values['mem-vus']!.split(',').map(Number)) {
  for (const c of clients) {
    const l = load();
    const x = await run(c.cmd, c.script, vus, '5s', { TARGET, PAUSE: '1' });
    console.log(
      `| mem | ${c.name} | ${vus} | ${Math.round(x.reqs / 5)} | - | ${x.rss_mib.toFixed(0)} | ${x.code} | ${l} |`,
    );
  }
}
server.stop();
