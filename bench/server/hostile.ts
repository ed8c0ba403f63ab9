/**
 * Timings of the server under the hostile clients of issue 40 (the tests assert outcomes only):
 * `node --import tsx bench/server/hostile.ts [--repository DIR --model NAME]`. Starts `serve` in its own
 * process (at --max-old-space-size=1536) and prints, for each body, the answer and its time, the slowest
 * health probe sent every 20 ms meanwhile, and the server's RSS; then the gRPC preface deadline against 1,100
 * idle connections and health under 1,300 slow-header connections. Bounded: everything stops by itself.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const BIN = new URL('../../bin/k6-triton.js', import.meta.url).pathname;
const MB = 1_000_000;
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};

function defaultRepository(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6t-hostile-'));
  mkdirSync(path.join(dir, 'nobatch', '1'), { recursive: true });
  writeFileSync(
    path.join(dir, 'nobatch', 'config.pbtxt'),
    'name: "nobatch"\nbackend: "simulated"\nmax_batch_size: 0\n' +
      'input [ { name: "input.1" data_type: TYPE_FP32 dims: [ 1, 1, 28, 28 ] } ]\n' +
      'output [ { name: "output" data_type: TYPE_FP32 dims: [ 1, 10 ] } ]\n',
  );
  return dir;
}

async function serve(args: string[]) {
  const child = spawn(
    process.execPath,
    [
      '--max-old-space-size=1536',
      BIN,
      'serve',
      '--http-port',
      '0',
      '--grpc-port',
      '0',
      '--metrics-port',
      '0',
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  while (!out.includes('Started Metrics Service')) await new Promise((r) => setTimeout(r, 50));
  const port = (what: string) => Number(new RegExp(`${what} at 127\\.0\\.0\\.1:(\\d+)`).exec(out)![1]);
  return { child, http: port('HTTPService'), grpc: port('GRPCInferenceService') };
}

const rss = (pid: number, field = 'VmRSS') =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** Probes /v2/health/ready every 20 ms until stopped; returns the slowest answer's ms and any failure. */
function probeHealth(port: number) {
  let stop = false;
  let slowest = 0;
  let failures = 0;
  const done = (async () => {
    while (!stop) {
      const t0 = performance.now();
      try {
        const r = await fetch(`http://127.0.0.1:${port}/v2/health/ready`, {
          signal: AbortSignal.timeout(60_000),
        });
        if (r.status !== 200) failures += 1;
      } catch {
        failures += 1;
      }
      slowest = Math.max(slowest, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return async () => {
    stop = true;
    await done;
    return { slowest, failures };
  };
}

async function post(port: number, route: string, body: Buffer, headers: Record<string, string>) {
  const t0 = performance.now();
  const r = await fetch(`http://127.0.0.1:${port}${route}`, {
    method: 'POST',
    body: new Uint8Array(body),
    headers,
    signal: AbortSignal.timeout(120_000),
  }).then(
    async (res) => `${res.status} ${(await res.text()).slice(0, 60)}`,
    (err: Error) => `failed (${err.message})`,
  );
  return { answer: r, ms: performance.now() - t0 };
}

/**
 * A gzip infer body whose JSON is under `bytes` long, `data` a flat list of numbers (more than the shape);
 * `cut`: the text ends mid-list, so that it is read again by the byte-by-byte reader (request-json.ts).
 */
function floatsJson(bytes: number, cut = false): Buffer {
  const data = Array.from({ length: Math.floor((bytes - 200) / 11) }, (_, i) => (Math.sin(i) / 3).toFixed(7));
  const json = `{"inputs":[{"name":"input.1","shape":[1,1,28,28],"datatype":"FP32","data":[${data.join(',')}]}]}`;
  return zlib.gzipSync(cut ? json.slice(0, -10) : json);
}

const repo = arg('--repository') ?? defaultRepository();
const model = arg('--model') ?? 'nobatch';
const route = `/v2/models/${model}/infer`;
const open33 = Buffer.alloc(33 * MB, '[');
const bodies: [string, Buffer, Record<string, string>][] = [
  [
    'gzip [x33M ]x33M',
    zlib.gzipSync(Buffer.concat([open33, Buffer.alloc(33 * MB, ']')]), { level: 9 }),
    { 'Content-Encoding': 'gzip' },
  ],
  [
    'gzip [x32M unclosed',
    zlib.gzipSync(open33.subarray(0, 32 * MB), { level: 9 }),
    { 'Content-Encoding': 'gzip' },
  ],
  ['gzip JSON of 1 MiB of FP32 numbers (the limit)', floatsJson(1024 * 1024), { 'Content-Encoding': 'gzip' }],
  ['the same cut short (not JSON)', floatsJson(1024 * 1024, true), { 'Content-Encoding': 'gzip' }],
  ['plain [x1M ]x1M', Buffer.concat([Buffer.alloc(MB, '['), Buffer.alloc(MB, ']')]), {}],
];

const s = await serve(['--model-repository', repo]);
const pid = s.child.pid!;
console.log(`serve RSS idle ${rss(pid).toFixed(0)} MiB`);
for (const [name, body, headers] of bodies) {
  const stopProbe = probeHealth(s.http);
  const r = await post(s.http, route, body, headers);
  const probe = await stopProbe();
  console.log(
    `${name} (${body.length} bytes): ${r.answer} in ${r.ms.toFixed(0)} ms; health slowest ${probe.slowest.toFixed(0)} ms, ${probe.failures} failed; RSS ${rss(pid).toFixed(0)} MiB`,
  );
}
{
  const stopProbe = probeHealth(s.http);
  const t0 = performance.now();
  const rs = await Promise.all([0, 1, 2].map(() => post(s.http, route, bodies[0]![1], bodies[0]![2])));
  const probe = await stopProbe();
  console.log(
    `three gzip [x33M ]x33M at once: ${rs.map((r) => r.answer.slice(0, 3)).join(', ')} in ${(performance.now() - t0).toFixed(0)} ms; health slowest ${probe.slowest.toFixed(0)} ms, ${probe.failures} failed; peak RSS ${rss(pid, 'VmHWM').toFixed(0)} MiB, alive: ${s.child.exitCode === null}`,
  );
}
s.child.kill('SIGKILL');

/** Opens `count` connections, `first` written on each; resolves once all are connected. */
const openMany = (port: number, count: number, first?: string) =>
  Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Socket>((resolve) => {
          const c = net.connect(port, '127.0.0.1', () => {
            if (first) c.write(first);
            resolve(c);
          });
          c.resume();
          c.on('error', () => {});
        }),
    ),
  );

{
  const g = await serve(['--model-repository', repo, '--grpc-preface-timeout-ms', '2000']);
  const t0 = performance.now();
  const idle = await openMany(g.grpc, 1100);
  let last = 0;
  await new Promise<void>((resolve) => {
    const check = () => {
      if (idle.every((c) => c.closed)) resolve();
      else if (performance.now() - t0 > 30_000) resolve();
      else setTimeout(check, 10);
    };
    check();
  });
  last = performance.now() - t0;
  console.log(
    `1,100 idle gRPC connections, preface deadline 2 s: ${idle.filter((c) => c.closed).length} closed, the last ${last.toFixed(0)} ms after the first opened`,
  );
  for (const c of idle) c.destroy();
  g.child.kill('SIGKILL');
}
{
  const h = await serve(['--model-repository', repo, '--http-header-timeout-ms', '60000']);
  const slow = await openMany(h.http, 1300, 'GET /v2/health/ready HTTP/1.1\r\nHost: x\r\n');
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const r = await fetch(`http://127.0.0.1:${h.http}/v2/health/ready`);
    times.push(r.status === 200 ? performance.now() - t0 : Number.NaN);
  }
  times.sort((a, b) => a - b);
  console.log(
    `1,300 slow-header HTTP connections: 20 health probes, median ${times[10]!.toFixed(1)} ms, slowest ${times[19]!.toFixed(1)} ms (NaN = not 200)`,
  );
  for (const c of slow) c.destroy();
  h.child.kill('SIGKILL');
}
