/**
 * Design measurement for synchronous k6/http (issue 29): what blocking VUs in worker threads would cost
 * next to VUs awaiting on one event loop. Both modes send through the runtime's own plain-HTTP
 * connection (`VuConnections`) on this thread, so only the way a VU waits differs:
 *   async   N loops of `await connections.send(...)` on this thread (the path our scenarios use)
 *   workers N worker threads, each posting its request here and blocking on Atomics.wait until the
 *           answer (status and body) is written into its SharedArrayBuffer (a k6-like blocking VU)
 * Usage: node --import tsx bench/runtime/sync-design.ts [--mode async|workers] [--vus 1] [--seconds 5]
 * Prints requests/s, client CPU µs per request (all threads of this process) and RSS (MiB) with the
 * VUs started and idle, and at the end.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { DEFAULT_CLIENT_TLS } from '../../packages/runtime/src/transport/tls-client.ts';
import { VuConnections } from '../../packages/runtime/src/transport/http-transport.ts';
import { startServer } from './servers.ts';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'async' },
    vus: { type: 'string', default: '1' },
    seconds: { type: 'string', default: '5' },
  },
});
const vus = Number(values.vus);
const seconds = Number(values.seconds);
const BODY_BYTES = 64 * 1024;

// The worker's whole program: ask, block, read the answer, count; stop when told (ctrl[2] = 1).
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const ctrl = new Int32Array(workerData.sab, 0, 4);
const body = new Uint8Array(workerData.sab, 16);
let n = 0;
parentPort.once('message', () => {
  while (Atomics.load(ctrl, 2) === 0) {
    Atomics.store(ctrl, 0, 1);
    parentPort.postMessage(0);
    Atomics.wait(ctrl, 0, 1);
    const status = ctrl[1];
    const text = Buffer.from(body.buffer, 16, ctrl[3]).toString('utf8');
    if (status === 200 && text.length >= 0) n++;
  }
  parentPort.postMessage(n);
});
`;

const server = await startServer('http', 16);
const url = new URL(`http://127.0.0.1:${server.port}/`);
const request = (c: VuConnections) =>
  c.send({
    method: 'GET',
    url,
    headers: {},
    body: null,
    timeout_ms: 60_000,
    responseType: 'text',
    reuseConnection: true,
  });
const rss = () => Math.round(process.memoryUsage().rss / 2 ** 20);

let count = 0;
let idleRss = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const deadline = () => performance.now() - t0 >= seconds * 1000;

if (values.mode === 'async') {
  const loops = Array.from({ length: vus }, () => new VuConnections(DEFAULT_CLIENT_TLS));
  idleRss = rss();
  await Promise.all(
    loops.map(async (c) => {
      while (!deadline()) {
        const r = await request(c);
        if (r.status === 200) count++;
      }
      await c.close();
    }),
  );
} else {
  const workers = Array.from({ length: vus }, () => {
    const sab = new SharedArrayBuffer(16 + BODY_BYTES);
    const w = new Worker(WORKER, { eval: true, workerData: { sab } });
    return { w, sab, ctrl: new Int32Array(sab, 0, 4), conn: new VuConnections(DEFAULT_CLIENT_TLS) };
  });
  await Promise.all(workers.map(({ w }) => new Promise((r) => w.once('online', r))));
  await new Promise((r) => setTimeout(r, 200));
  idleRss = rss();
  const done = workers.map(
    ({ w, sab, ctrl, conn }) =>
      new Promise<number>((resolve) => {
        w.on('message', async () => {
          if (deadline()) Atomics.store(ctrl, 2, 1);
          if (Atomics.load(ctrl, 0) !== 1) return;
          const r = await request(conn);
          const body = Buffer.concat(r.chunks);
          new Uint8Array(sab, 16).set(body.subarray(0, BODY_BYTES));
          ctrl[1] = r.status;
          ctrl[3] = Math.min(body.length, BODY_BYTES);
          Atomics.store(ctrl, 0, 0);
          Atomics.notify(ctrl, 0);
        });
        w.on('exit', () => resolve(0));
        w.on('message', (n: number) => {
          if (Atomics.load(ctrl, 2) === 1 && n > 0) {
            count += n;
            void conn.close();
            void w.terminate();
          }
        });
        w.postMessage('go');
      }),
  );
  await Promise.all(done);
}
const elapsed_s = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpu_us = cpu.user + cpu.system;
console.log(
  JSON.stringify({
    mode: values.mode,
    vus,
    req_per_s: Math.round(count / elapsed_s),
    cpu_us_per_req: Math.round((cpu_us / Math.max(count, 1)) * 10) / 10,
    rss_idle_mib: idleRss,
    rss_end_mib: rss(),
  }),
);
server.stop();
process.exit(0);
