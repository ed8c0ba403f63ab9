/**
 * How close a replayed schedule's sends land to the record, request by request, as the server side sees
 * them: a recording proxy (this process) in front of `k6-triton serve` (its own process) notes when each
 * inference request arrives, and the bench replays a recorded schedule through it (`bench mnist --schedule`).
 * The measured window's arrivals, in order, are matched with the record's send times in order; each one's
 * error is its offset from the record less the median offset (the window's start is not known to the proxy).
 * A client-side figure could not show this: it would read the clock it paced itself with. The bench runs
 * as a child process awaited, not spawnSync: the proxy answers on this process's event loop.
 *
 *   node --import tsx bench/arrivals/replay-precision.ts [--runtime node,k6] [--rate 200] [--duration 10]
 *
 * Figures go in bench/arrivals/RESULTS.md.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { arrivalOffsets_ms } from '../../lib/load/arrivals.ts';
import { formatScheduleLine } from '../../lib/load/schedule-file.ts';
import { startForwardingProxy } from '../../test/e2e/bench/forwarding-proxy.ts';
import { startServeProcess } from '../serve-process.ts';

const CLI = join(import.meta.dirname, '../../bin/k6-triton.js');
const { values: args } = parseArgs({
  options: {
    runtime: { type: 'string', default: 'node' },
    rate: { type: 'string', default: '200' },
    duration: { type: 'string', default: '10' },
  },
});

/** A proxy to `target` that records when each POST arrives (ms, on the performance clock). */
async function recordingProxy(
  target: string,
): Promise<{ url: string; arrivals: number[]; close(): Promise<void> }> {
  const arrivals: number[] = [];
  const proxy = await startForwardingProxy(target, {
    onRequest: (req) => {
      if (req.method === 'POST') arrivals.push(performance.now());
    },
  });
  return { ...proxy, arrivals };
}

/** The record: `duration` s of Poisson sends at `rate`/s, written as a schedule file. */
function recordedSchedule(rate: number, duration_s: number): { path: string; offsets_ms: number[] } {
  const offsets_ms = arrivalOffsets_ms({ arrivals: { kind: 'poisson' }, rate, duration_s, seed: 9 });
  const path = join(mkdtempSync(join(tmpdir(), 'replay-precision-')), 'recorded.jsonl');
  writeFileSync(
    path,
    `${offsets_ms.map((t) => formatScheduleLine(1_700_000_000_000 + t, 'mnist')).join('\n')}\n`,
  );
  return { path, offsets_ms };
}

/** Runs the CLI with `cliArgs`; resolves with its exit status and the tail of its stderr. */
function runBench(cliArgs: string[]): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, cliArgs, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d).slice(-2000);
  });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stderr })));
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Each arrival's error against the record, ms: matched in order, less the median offset. */
function errors_ms(arrivals: number[], offsets_ms: number[]): number[] {
  const measured = [...arrivals].sort((a, b) => a - b).slice(-offsets_ms.length);
  const shift = measured.map((t, i) => t - offsets_ms[i]!);
  const median = [...shift].sort((a, b) => a - b)[Math.floor(shift.length / 2)]!;
  return shift.map((s) => s - median);
}

const rate = Number(args.rate);
const duration_s = Number(args.duration);
const record = recordedSchedule(rate, duration_s);
const serve = await startServeProcess();
console.log(
  '| Runtime | Sends | Within 1 ms | abs error p50 (ms) | p90 | p99 | max | Sent late > 1 ms | Sent early > 1 ms |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
try {
  for (const runtime of String(args.runtime).split(',')) {
    const proxy = await recordingProxy(`http://127.0.0.1:${serve.http}`);
    const results = mkdtempSync(join(tmpdir(), 'replay-precision-run-'));
    const run = await runBench([
      CLI,
      'bench',
      'mnist',
      '--schedule',
      record.path,
      '--warmup',
      '1s',
      '--url',
      proxy.url,
      '--protocol',
      'http',
      '--metrics-url',
      'off',
      '--no-progress',
      '--runtime',
      runtime,
      '--p95-ms',
      '100000',
      '--p99-ms',
      '100000',
      '--results-dir',
      results,
    ]);
    await proxy.close();
    if (run.status !== 0)
      throw new Error(`bench (${runtime}) exited ${run.status}: ${run.stderr.slice(-600)}`);
    if (proxy.arrivals.length < record.offsets_ms.length)
      throw new Error(`${runtime}: ${proxy.arrivals.length} arrivals for ${record.offsets_ms.length} sends`);
    const errs = errors_ms(proxy.arrivals, record.offsets_ms);
    const abs = errs.map(Math.abs).sort((a, b) => a - b);
    const within = abs.filter((e) => e <= 1).length;
    const f = (x: number) => x.toFixed(3);
    console.log(
      `| ${runtime} | ${errs.length} | ${((100 * within) / errs.length).toFixed(1)}% | ${f(quantile(abs, 0.5))} | ${f(quantile(abs, 0.9))} | ${f(quantile(abs, 0.99))} | ${f(abs[abs.length - 1]!)} | ${errs.filter((e) => e > 1).length} | ${errs.filter((e) => e < -1).length} |`,
    );
  }
} finally {
  serve.child.kill();
}
