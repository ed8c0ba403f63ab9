/**
 * Engine overhead and end-to-end throughput of the Node runtime, through runTest():
 *   node --import tsx bench/runtime/engine.ts [--seconds 5] [--http]
 * - empty async default function at 1 and 256 VUs: iterations/s and RSS (the engine's own cost);
 * - with --http: `await http.asyncRequest('GET', url)` per iteration at 8, 16 and 64 VUs against a
 *   node:http server in a separate process that answers a 16-byte body at once (engine + k6/http),
 *   and 256 VUs each POSTing a 600 KB body read with open(path, 'b') in the init context (one buffer
 *   for all VUs: RSS shows it is held once).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runTest } from '@k6-triton/runtime';

const SERVER = `
import http from 'node:http';
const body = Buffer.alloc(16, 120);
const s = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(200, { 'content-length': body.length }); res.end(body); });
});
s.keepAliveTimeout = 60000;
s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'));
`;

/** Starts the answer-at-once server in its own process; resolves its port. */
function startServer(): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SERVER], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (d: Buffer) => resolve({ port: Number(String(d).trim()), child }));
  });
}

interface Row {
  case: string;
  vus: number;
  iterations_per_s: number;
  rss_mb: number;
}

/** One measured case: a script body run for `seconds` with `vus` VUs. */
interface Case {
  name: string;
  body: string;
  vus: number;
  env?: Record<string, string>;
}

async function measure(dir: string, c: Case, seconds: number): Promise<Row> {
  const { name, body, vus, env = {} } = c;
  const script = join(dir, `${name}-${vus}.js`);
  writeFileSync(script, `${body}\nexport const options = { vus: ${vus}, duration: '${seconds}s' };\n`);
  let peakRss = process.memoryUsage.rss();
  const t = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 100);
  const r = await runTest({
    script,
    quiet: true,
    env,
    includeSystemEnv: false,
    noSummary: true,
    stdout: () => {},
  });
  clearInterval(t);
  const it = r.summaryData?.metrics['iterations']?.values['count'] ?? 0;
  return {
    case: name,
    vus,
    iterations_per_s: Math.round(it / (r.summaryData!.state.testRunDurationMs / 1000)),
    rss_mb: Math.round(peakRss / 2 ** 20),
  };
}

const { values: args } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, http: { type: 'boolean', default: false } },
});
const seconds = Number(args.seconds);
const dir = mkdtempSync(join(tmpdir(), 'k6t-bench-'));
const rows: Row[] = [];
try {
  const empty = 'export default async function () {}';
  for (const vus of [1, 256])
    rows.push(await measure(dir, { name: 'empty async default', body: empty, vus }, seconds));
  if (args.http) {
    const { port, child } = await startServer();
    try {
      const get = `import http from 'k6/http';\nexport default async function () { await http.asyncRequest('GET', 'http://127.0.0.1:' + __ENV.PORT + '/'); }`;
      for (const vus of [8, 16, 64])
        rows.push(
          await measure(dir, { name: 'http GET 16 B', body: get, vus, env: { PORT: String(port) } }, seconds),
        );
      const blob = join(dir, 'payload.bin');
      writeFileSync(blob, Buffer.alloc(600 * 1024, 7));
      const post = `import http from 'k6/http';\nconst body = open(${JSON.stringify(blob)}, 'b');\nexport default async function () { await http.asyncRequest('POST', 'http://127.0.0.1:' + __ENV.PORT + '/', body); }`;
      rows.push(
        await measure(
          dir,
          { name: 'http POST 600 KB (open b)', body: post, vus: 256, env: { PORT: String(port) } },
          seconds,
        ),
      );
    } finally {
      child.kill();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log('| case | VUs | iterations/s | peak RSS (MB) |\n|---|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.case} | ${r.vus} | ${r.iterations_per_s} | ${r.rss_mb} |`);
