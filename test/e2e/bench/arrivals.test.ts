/**
 * Paced open loops end to end (issue 28): a short Poisson level and a recorded schedule replayed on the
 * mnist bench. Each sends exactly the requests its schedule plans (the same seeded schedule the unit tests
 * check, or the file's lines for the run's model) and reports the latency from each scheduled start.
 * Under the Node runtime always, under real k6 when it is present. No timing bounds: the bench/arrivals
 * script measures how close sends come to the schedule.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { arrivalOffsets_ms } from '../../../lib/load/arrivals.ts';
import { formatScheduleLine } from '../../../lib/load/schedule-file.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { resultsDir, runCli, runFolder } from './run-cli.ts';

interface Level {
  name: string;
  requests: number;
  scheduled_latency_us?: { p50: number; p95: number };
}

// Budgets far above any latency: the test checks counts, not the machine's speed.
const COMMON = [
  '--warmup',
  '0s',
  '--count',
  '2',
  '--metrics-url',
  'off',
  '--no-progress',
  '--p95-ms',
  '100000',
  '--p99-ms',
  '100000',
];

async function bench(args: string[], runtime: 'node' | 'k6', k6Bin?: string) {
  const results = resultsDir();
  const run = await runCli(
    ['bench', 'mnist', ...args, ...COMMON, '--runtime', runtime, '--results-dir', results],
    k6Bin ? { K6_BIN: k6Bin } : {},
  );
  expect(run.code, run.stderr).toBe(0);
  const summary = JSON.parse(readFileSync(join(runFolder(results, 'mnist'), 'summary.json'), 'utf8'));
  return { run, levels: summary.report.results as Level[] };
}

/** 40 sends of mnist in bursts over 0.6 s, two lines for another model the run leaves out. */
function scheduleFile(): string {
  const lines: string[] = [];
  for (let i = 0; i < 40; i++)
    lines.push(formatScheduleLine(5000 + (i % 4) * 2 + Math.floor(i / 4) * 60, 'mnist', i % 2));
  lines.splice(10, 0, formatScheduleLine(5123, 'bert'), formatScheduleLine(5123, 'bert'));
  const path = join(resultsDir(), 'recorded.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

async function checkPoisson(runtime: 'node' | 'k6', k6Bin?: string): Promise<void> {
  const { run, levels } = await bench(
    ['--request-rate', '40', '--arrivals', 'poisson', '--step-duration', '2s'],
    runtime,
    k6Bin,
  );
  const planned = arrivalOffsets_ms({ arrivals: { kind: 'poisson' }, rate: 40, duration_s: 2 }).length;
  expect(levels.map((l) => [l.name, l.requests])).toEqual([['r40', planned]]);
  expect(levels[0]!.scheduled_latency_us?.p50).toBeGreaterThan(0);
  expect(run.stdout).toContain('## Open loop: latency from the scheduled start');
}

async function checkSchedule(runtime: 'node' | 'k6', k6Bin?: string): Promise<void> {
  const { run, levels } = await bench(
    ['--schedule', scheduleFile(), '--schedule-speed', '2'],
    runtime,
    k6Bin,
  );
  // 40 sends over 546 ms / 2 + 1 ms: one level at the replay's mean rate.
  expect(levels).toHaveLength(1);
  expect(levels[0]!.requests).toBe(40);
  expect(levels[0]!.name).toBe(`r${String(Math.round((40 / 0.274) * 100) / 100).replace('.', '_')}`);
  expect(levels[0]!.scheduled_latency_us?.p50).toBeGreaterThan(0);
  expect(run.stdout).toContain('latency from the scheduled start');
}

describe('paced open loop on the mnist bench', () => {
  it(
    'sends a Poisson level as its seeded schedule plans (Node runtime)',
    () => checkPoisson('node'),
    120_000,
  );
  it(
    'replays a recorded schedule, twice as fast, for its model only (Node runtime)',
    () => checkSchedule('node'),
    120_000,
  );

  const k6 = referenceTool('k6', 'K6_BIN');
  it.skipIf(!k6.path)(
    `does both under real k6 ${k6.skipReason}`,
    async () => {
      await checkPoisson('k6', k6.path);
      await checkSchedule('k6', k6.path);
    },
    240_000,
  );
});
