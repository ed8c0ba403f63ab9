/**
 * `capacity --mix` end to end against the embedded server on a small grid: three seed models scaled
 * together from 50% to 100% of the file's loads with 1 s windows. Within generous budgets the answer is the
 * ceiling, in one sentence naming each model's part; against a budget no request meets, no scale holds and
 * the run exits 99.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultsDir, runCli } from '../bench/run-cli.ts';

const QUICK = ['--step-duration', '1s', '--warmup', '0s', '--count', '2', '--runtime', 'node'];
const GRID = ['--start', '50', '--max', '100', '--attempts', '1'];

/** A mix of three seed models; `dlrmP95` is dlrm's budget. */
function mixFile(dlrmP95: number): string {
  const path = join(resultsDir(), 'cap.json');
  const loose = { p95_ms: 60_000, p99_ms: 60_000 };
  const models = [
    { model: 'mnist', rate: 4, ...loose },
    { model: 'bert-base', concurrency: 2, ...loose },
    { model: 'dlrm', rate: 2, p95_ms: dlrmP95, p99_ms: 60_000 },
  ];
  writeFileSync(path, JSON.stringify({ models }));
  return path;
}

async function capacity(dlrmP95: number, maxLevels: number) {
  const results = resultsDir();
  const run = await runCli([
    'capacity',
    '--mix',
    mixFile(dlrmP95),
    ...QUICK,
    ...GRID,
    ...['--max-levels', String(maxLevels), '--results-dir', results],
  ]);
  const runs = readdirSync(join(results, 'mix-cap')).filter((d) => d.startsWith('capacity-'));
  expect(runs, run.stderr).toHaveLength(1);
  const dir = join(results, 'mix-cap', runs[0]!);
  return { run, record: JSON.parse(readFileSync(join(dir, 'capacity.json'), 'utf8')) };
}

const levels = (record: { trials: { measurement: { level: number } }[] }) =>
  record.trials.map((t) => t.measurement.level);

describe('capacity --mix', () => {
  it("scales the mix to the grid's top within every budget and answers in one sentence", async () => {
    const { run, record } = await capacity(60_000, 3);
    expect(run.code, run.stderr).toBe(0);
    expect(levels(record)).toEqual([50, 100, 100]);
    expect(record.answer.level).toBe(100);
    expect(record.best.models.map((m: { load: { level: number } }) => m.load.level)).toEqual([4, 2, 2]);
    const sentence = record.sentence as string;
    expect(sentence).toMatch(
      /^The mix cap holds [\d.,]+ requests\/s in total \(mnist [\d.,]+, bert-base [\d.,]+, dlrm [\d.,]+\) within every model's budget, at 100% of its file's loads; limited by /,
    );
    expect(run.stdout).toContain(sentence);
    expect(run.stdout).toContain('search: 3 measured scales: 50%, 100%, 100%');
    // One line per scale (its tables are in its folder, the runtime's output in runtime.log there).
    const lines = run.stdout.split('\n').filter((l) => /^capacity #\d+ /.test(l));
    expect(lines).toHaveLength(3);
    for (const line of lines)
      expect(line).toMatch(/^capacity #\d \d+% \(\w+\): [\d.,]+ requests\/s, (un)?stable, every budget met$/);
    expect(run.stdout).not.toContain('execution: local');
    expect(run.stdout).not.toContain('# Model mix');
    expect(run.stdout.split('\n').length).toBeLessThan(30);
  }, 240_000);

  it('finds no scale within a budget no request meets, says which model missed it, and exits 99', async () => {
    const { run, record } = await capacity(0.001, 2);
    expect(run.code, run.stderr).toBe(99);
    expect(levels(record)).toEqual([50, 50]);
    expect(record.answer.level).toBeNull();
    expect(record.sentence).toMatch(
      /^The mix cap holds no load within every model's budget: at 50% \([\d.,]+ requests\/s\) dlrm's p95 [\d.,]+ ms \(budget 0\.001 ms\)\.$/,
    );
  }, 240_000);
});
