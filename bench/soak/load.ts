/**
 * The soak's load generator, in its own process so its memory is measured apart from the server's:
 * `concurrency` closed loops of HTTP requests to http://127.0.0.1:PORT until `duration_s` passes or it is
 * signalled. Mostly valid binary MNIST-shaped inferences, with some gzip bodies, malformed JSON, over-deep
 * `data` and gzip bombs mixed in, so the refusal paths soak too. Prints a JSON line of counts every second.
 * Run by bench/soak/run.ts: node --import tsx bench/soak/load.ts PORT CONCURRENCY DURATION_S
 */
import zlib from 'node:zlib';
import { Pool } from 'undici';
import { mnistZeroRequest } from '../server/mnist-zero.ts';

const [port, concurrency, duration_s] = process.argv.slice(2).map(Number);
if (!port || !concurrency || !duration_s) {
  console.error('usage: load.ts PORT CONCURRENCY DURATION_S (all positive numbers)');
  process.exit(2);
}

const PATH = '/v2/models/mnist-zero/infer';
const { header, body } = mnistZeroRequest();
const depth = 100_000;

/** Request kinds with their share of the traffic (shares add up to 1). */
const KINDS: { share: number; headers: Record<string, string>; body: Buffer }[] = [
  {
    share: 0.9,
    headers: { 'Inference-Header-Content-Length': String(header.length) },
    body,
  },
  {
    share: 0.05,
    headers: { 'Inference-Header-Content-Length': String(header.length), 'Content-Encoding': 'gzip' },
    body: zlib.gzipSync(body),
  },
  { share: 0.03, headers: {}, body: Buffer.from('{"inputs": [ {"name": ') },
  {
    share: 0.019,
    headers: {},
    body: Buffer.from(
      `{"inputs":[{"name":"input.1","shape":[1,1,28,28],"datatype":"FP32","data":${'['.repeat(depth)}0${']'.repeat(depth)}}]}`,
    ),
  },
  // A 256 MiB gzip bomb (256 KiB on the wire): one in a thousand requests.
  {
    share: 0.001,
    headers: { 'Content-Encoding': 'gzip' },
    body: Buffer.concat(Array(16).fill(zlib.gzipSync(Buffer.alloc(16 << 20)))),
  },
];

const pool = new Pool(`http://127.0.0.1:${port}`, { connections: concurrency });
const counts: Record<string, number> = {};
const end = Date.now() + duration_s * 1000;
let stopping = false;
let seed = 1;
/** A small deterministic sequence: the mix repeats run to run. */
const random = () => {
  seed = (seed * 16807) % 2147483647;
  return seed / 2147483647;
};

function pick() {
  let u = random();
  for (const k of KINDS) {
    if (u < k.share) return k;
    u -= k.share;
  }
  return KINDS[0]!;
}

async function loop(): Promise<void> {
  while (!stopping && Date.now() < end) {
    const kind = pick();
    let label: string;
    try {
      const res = await pool.request({ method: 'POST', path: PATH, headers: kind.headers, body: kind.body });
      await res.body.arrayBuffer();
      label = String(res.statusCode);
    } catch (err) {
      label = (err as NodeJS.ErrnoException).code ?? 'error';
    }
    counts[label] = (counts[label] ?? 0) + 1;
  }
}

const report = setInterval(() => console.log(JSON.stringify(counts)), 1000);
const stop = () => {
  stopping = true;
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
await Promise.all(Array.from({ length: concurrency }, loop));
clearInterval(report);
console.log(JSON.stringify(counts));
await pool.close();
