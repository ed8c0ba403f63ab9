/**
 * How far paced sends lag their schedule: benches mnist on the embedded server with Poisson arrivals at
 * rising rates and with a recorded schedule replayed, and prints per level the mean lag (the mean latency
 * from the scheduled start less the mean send latency: the time each send waited past its due time) and
 * both p99s. Run: npx tsx bench/arrivals/send-lag.ts [node|k6 ...]; figures go in bench/arrivals/RESULTS.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arrivalOffsets_ms } from '../../lib/load/arrivals.ts';
import { formatScheduleLine } from '../../lib/load/schedule-file.ts';

const CLI = join(import.meta.dirname, '../../bin/k6-triton.js');
const runtimes = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['node'];

interface Level {
  name: string;
  requests: number;
  latency_us: { avg: number; p99: number };
  scheduled_latency_us?: { avg: number; p99: number };
}

function bench(runtime: string, args: string[]): Level[] {
  const results = mkdtempSync(join(tmpdir(), 'arrivals-lag-'));
  const common = [
    '--warmup',
    '1s',
    '--count',
    '8',
    '--metrics-url',
    'off',
    '--no-progress',
    '--runtime',
    runtime,
  ];
  const budgets = ['--p95-ms', '100000', '--p99-ms', '100000'];
  const run = spawnSync(
    process.execPath,
    [CLI, 'bench', 'mnist', ...args, ...common, ...budgets, '--results-dir', results],
    {
      encoding: 'utf8',
    },
  );
  if (run.status !== 0)
    throw new Error(`bench ${args.join(' ')} exited ${run.status}: ${run.stderr.slice(-400)}`);
  const dir = join(results, 'mnist', readdirSync(join(results, 'mnist'))[0]!);
  return JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).report.results as Level[];
}

function print(runtime: string, what: string, levels: Level[]): void {
  for (const l of levels) {
    const s = l.scheduled_latency_us;
    if (!s) continue;
    const lag_ms = (s.avg - l.latency_us.avg) / 1000;
    console.log(
      `| ${runtime} | ${what} | ${l.name} | ${l.requests} | ${lag_ms.toFixed(3)} | ${(l.latency_us.p99 / 1000).toFixed(2)} | ${(s.p99 / 1000).toFixed(2)} |`,
    );
  }
}

/** A recorded-looking schedule: 10 s of Poisson sends at 200/s written as a schedule file. */
function recordedFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'arrivals-rec-')), 'recorded.jsonl');
  const offsets = arrivalOffsets_ms({ arrivals: { kind: 'poisson' }, rate: 200, duration_s: 10, seed: 9 });
  writeFileSync(
    path,
    `${offsets.map((t) => formatScheduleLine(1_700_000_000_000 + t, 'mnist')).join('\n')}\n`,
  );
  return path;
}

console.log(
  '| Runtime | Arrivals | Level | Requests | Mean start lag (ms) | Send p99 (ms) | Scheduled p99 (ms) |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
const recorded = recordedFile();
for (const runtime of runtimes) {
  print(
    runtime,
    'poisson',
    bench(runtime, ['--request-rate', '50,200,500', '--arrivals', 'poisson', '--step-duration', '5s']),
  );
  print(
    runtime,
    'gamma:0.5',
    bench(runtime, ['--request-rate', '200', '--arrivals', 'gamma:0.5', '--step-duration', '5s']),
  );
  print(runtime, 'constant', bench(runtime, ['--request-rate', '200', '--step-duration', '5s']));
  print(runtime, 'schedule (200/s, 10 s)', bench(runtime, ['--schedule', recorded]));
}
