/**
 * `k6-triton capacity` end to end against the embedded server (127.0.0.1) on MNIST, with 1 s windows and a
 * ceiling of 4, so each run measures at most three levels; plus the one-line errors of bad flags.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli } from '../bench/processes.ts';
import { runCli } from '../bench/run-cli.ts';

const QUICK = [
  '--step-duration',
  '1s',
  '--warmup',
  '0s',
  '--count',
  '2',
  '--runtime',
  'node',
  '--attempts',
  '1',
];

/** The one capacity folder under results/mnist/. */
function capacityDir(results: string): string {
  const runs = readdirSync(join(results, 'mnist')).filter((d) => d.startsWith('capacity-'));
  expect(runs).toHaveLength(1);
  return join(results, 'mnist', runs[0]!);
}

describe('k6-triton capacity', () => {
  it('finds the ceiling within a loose budget, confirms it (also by a linear pass) and writes the search path', async () => {
    const results = mkdtempSync(join(tmpdir(), 'k6-triton-capacity-'));
    const csv = join(results, 'pa.csv');
    const run = await runCli([
      'capacity',
      'mnist',
      ...QUICK,
      ...['--start', '2', '--max', '4', '--p95-ms', '5000', '--p99-ms', '10000', '--target-rate', '100000'],
      '--confirm-sweep',
      // perf_analyzer's -f, -r and --metrics-interval, honoured as bench honours them.
      ...['-f', csv, '-r', '3', '--metrics-interval', '250'],
      ...['--results-dir', results],
    ]);
    // No error line (the bench's progress lines also start with "k6-triton: ").
    expect(run.stderr).not.toMatch(/k6-triton: (capacity|could not)/);
    expect(run.code).toBe(0);
    const dir = capacityDir(results);
    const record = JSON.parse(readFileSync(join(dir, 'capacity.json'), 'utf8'));
    expect(record.path.map((t: { measurement: { level: number } }) => t.measurement.level)).toEqual([
      2, 4, 4,
    ]);
    expect(record.path.map((t: { purpose: string }) => t.purpose)).toEqual(['explore', 'explore', 'confirm']);
    expect(record.answer.level).toBe(4);
    expect(record.answer.above).toBeNull();
    // The ceiling, unless this busy machine's generator was bound (which the search names first).
    expect(['ceiling', 'generator']).toContain(record.answer.limit);
    expect(record.answer.measurement.throughput_infer_s).toBeGreaterThan(0);
    // The plan rests on a stable measurement within budget only; on this busy machine there may be none.
    const stable = record.path
      .map((t: { measurement: { stable?: boolean; throughput_infer_s: number } }) => t.measurement)
      .filter((m: { stable?: boolean }) => m.stable !== false);
    if (stable.length > 0) {
      const basis = record.path.find(
        (t: { measurement: { level: number; stable?: boolean } }) =>
          t.measurement.level === record.projection.level && t.measurement.stable !== false,
      );
      expect(basis).toBeDefined();
      expect(record.projection.servers).toBe(Math.ceil(100000 / record.projection.per_server_infer_s));
      expect(run.stdout).toMatch(
        /planning: 100,000 inferences\/s needs \d+ servers? .*from the stable measurement of \d/,
      );
    } else {
      expect(record.projection).toBeUndefined();
      expect(run.stdout).toContain(
        'planning: no stable measurement within budget, so no server count is given',
      );
    }
    expect(run.stdout).toContain('mnist: 4 concurrent requests of 1, ');
    expect(run.stdout).toContain('search: 3 measured levels: 2, 4, 4');
    // Sized for a person: one line per measurement (level, figures, stable or not, verdict), the answer, and
    // where the full reports went; the runtime's own output is in each measurement's runtime.log.
    const lines = run.stdout.split('\n');
    expect(lines.length).toBeLessThan(100);
    const trialLines = lines.filter((l) => /^capacity #\d+ /.test(l));
    expect(trialLines).toHaveLength(3);
    for (const line of trialLines)
      expect(line).toMatch(
        /^capacity #\d \d \(\w+\): [\d,]+ infer\/s, p95 [\d.]+ ms, p99 [\d.]+ ms, errors [\d.]+%, (un)?stable.* → (within budget|missed .+)$/,
      );
    expect(run.stdout).not.toContain('execution: local');
    expect(run.stdout).not.toContain('## Budgets');
    expect(run.stdout).toMatch(
      /each one's report is in .*levels\/mnist\/<run>\/ \(report\.md; the runtime's output in runtime\.log\)/,
    );
    for (const level of readdirSync(join(dir, 'levels', 'mnist')))
      expect(readFileSync(join(dir, 'levels', 'mnist', level, 'runtime.log'), 'utf8')).toContain(
        'execution: local',
      );
    // -f: the search's perf_analyzer.csv, a row per measured level.
    const rows = readFileSync(csv, 'utf8').trim().split('\n');
    expect(rows[0]).toMatch(/^Concurrency,Inferences\/Second,/);
    expect(
      rows
        .slice(1)
        .map((r) => r.split(',')[0])
        .sort(),
    ).toEqual(['2', '4', '4']);
    // The linear pass over --start..the ceiling (no level above it): 2, 3, 4 in one bench run.
    expect(record.confirmation).toMatchObject({
      kind: 'linear',
      levels: [2, 3, 4],
      answer: 4,
      confirms: true,
    });
    expect(run.stdout).toContain(
      'confirmed: a linear bench over 2..4 (3 levels; the search measured 3, 2 distinct): 4 within budget',
    );
    expect(readdirSync(join(dir, 'confirm', 'mnist'))).toHaveLength(1);
    // Written like a bench run: every measured level in summary.json, a level folder per bench run, no JUnit gate.
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.report.results.map((r: { level: number }) => r.level)).toEqual([2, 4, 4]);
    expect(readdirSync(join(dir, 'levels', 'mnist'))).toHaveLength(3);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toMatch(/^# mnist: capacity\n/);
    expect(existsSync(join(dir, 'perf_analyzer.csv'))).toBe(true);
    expect(existsSync(join(dir, 'junit.xml'))).toBe(false);
  }, 150_000);

  it('exits 99 when even the first level misses the budget, measured twice', async () => {
    const results = mkdtempSync(join(tmpdir(), 'k6-triton-capacity-'));
    const run = await runCli([
      'capacity',
      'mnist',
      ...QUICK,
      ...['--max', '4', '--p95-ms', '0.001', '--p99-ms', '0.001', '--results-dir', results],
    ]);
    expect(run.code).toBe(99);
    expect(run.stdout).toMatch(
      /mnist: no concurrency within budget \(p95 0\.001 ms, p99 0\.001 ms\); the first level, 1, missed it twice: p95/,
    );
    const record = JSON.parse(readFileSync(join(capacityDir(results), 'capacity.json'), 'utf8'));
    expect(record.path.map((t: { measurement: { level: number } }) => t.measurement.level)).toEqual([1, 1]);
    expect(record.answer.level).toBeNull();
  }, 90_000);

  it('stops at SIGINT as bench does: the level being measured is cut, exit 105', async () => {
    const results = mkdtempSync(join(tmpdir(), 'k6-triton-capacity-'));
    const run = startCli(
      ['capacity', 'mnist', ...QUICK, '--step-duration', '60s', '--max', '4', '--results-dir', results],
      { P95_MS: '5000', P99_MS: '10000' },
    );
    // Once the search has started its first level, Ctrl-C as a user would send it to the command alone.
    await expect
      .poll(() => run.output(), { timeout: 60_000, interval: 200 })
      .toContain('capacity #1 1 (explore): ');
    run.child.kill('SIGINT');
    expect(await run.exited, run.output()).toBe(105);
    expect(run.output()).toContain('capacity: no level was measured; interrupted while measuring 1');
  }, 90_000);

  it('rejects bad flags with one line naming the flag and the fix', async () => {
    const above = await runCli(['capacity', 'mnist', '--start', '8', '--max', '4']);
    expect(above.code).toBe(1);
    expect(above.stderr.trim()).toBe('k6-triton: --start 8 is above --max 4; lower --start or raise --max');
    const word = await runCli(['capacity', 'mnist', '--max-levels', 'many']);
    expect(word.code).not.toBe(0);
    expect(word.stderr).toContain('--max-levels must be a positive whole number, e.g. --max-levels 8');
    const csv = await runCli(['capacity', '--mix', 'mixes/none.json', '-f', 'out.csv']);
    expect(csv.code).toBe(1);
    expect(csv.stderr.trim()).toBe(
      "k6-triton: -f does not apply to --mix; the mix file gives each model's load and the search scales them all",
    );
    const model = await runCli(['capacity', 'nosuchmodel']);
    expect(model.code).toBe(1);
    expect(model.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });
});
