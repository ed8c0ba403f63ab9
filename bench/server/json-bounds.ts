/**
 * The cost of checking a JSON body's bounds before JSON.parse (packages/server/src/json-bounds.ts), on a
 * normal MNIST infer body (784 FP32 in JSON) and on larger flat bodies; and how long JSON.parse plus the check
 * hold the main thread per inflated MiB, which sets the inflated limit for compressed JSON bodies.
 * `node --import tsx bench/server/json-bounds.ts [--tokenizer DIR]` (DIR: a node_modules holding
 * @streamparser/json, measured for comparison only; the server does not depend on it).
 */
import { createRequire } from 'node:module';
import { checkJsonBounds } from '../../packages/server/src/json-bounds.ts';

const mnist = Buffer.from(
  JSON.stringify({
    inputs: [
      {
        name: 'input.1',
        shape: [1, 1, 28, 28],
        datatype: 'FP32',
        data: Array.from({ length: 784 }, (_, i) => Math.round(Math.sin(i) * 1e6) / 1e6),
      },
    ],
  }),
);

/** Median µs per call of `fn` over `rounds` rounds of `reps` calls. */
function time(fn: () => void, reps: number, rounds = 15): number {
  const per: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < reps; i++) fn();
    per.push(Number(process.hrtime.bigint() - t0) / 1000 / reps);
  }
  per.sort((a, b) => a - b);
  return per[Math.floor(rounds / 2)]!;
}

/** The check as it reads bodies above its threshold, forced onto every body. */
const ALWAYS = { uncheckedBytes: 0 };
const at = process.argv.indexOf('--tokenizer');
const parse = (b: Buffer) => JSON.parse(b.toString('utf8'));
console.log(`MNIST JSON body: ${mnist.length} bytes`);
// Alternate so that drift on a shared machine hits both alike.
for (let k = 0; k < 3; k++) {
  const p = time(() => parse(mnist), 2000);
  const s = time(() => checkJsonBounds(mnist, ALWAYS), 2000);
  const sp = time(() => {
    checkJsonBounds(mnist, ALWAYS);
    parse(mnist);
  }, 2000);
  console.log(`  JSON.parse ${p.toFixed(1)} µs, check ${s.toFixed(1)} µs, check + parse ${sp.toFixed(1)} µs`);
}
if (at > 0) {
  const req = createRequire(`${process.argv[at + 1]}/`);
  const { Tokenizer } = req('@streamparser/json') as {
    Tokenizer: new () => { write(b: Uint8Array): void; onToken: (t: unknown) => void };
  };
  const t = time(() => {
    const tok = new Tokenizer();
    tok.onToken = () => {};
    tok.write(mnist);
  }, 200);
  console.log(`  @streamparser/json Tokenizer alone: ${t.toFixed(1)} µs`);
}
for (const mib of [1, 4, 8, 16]) {
  const flat = Buffer.from(
    `[${Array.from({ length: (mib * 1024 * 1024) / 10 }, (_, i) => (Math.sin(i) / 3).toFixed(6)).join(',')}]`,
  );
  const s = time(() => checkJsonBounds(flat, ALWAYS), 1, 5);
  const p = time(() => parse(flat), 1, 5);
  console.log(
    `${mib} MiB of FP32 numbers: check ${(s / 1000).toFixed(1)} ms, JSON.parse ${(p / 1000).toFixed(1)} ms`,
  );
}
