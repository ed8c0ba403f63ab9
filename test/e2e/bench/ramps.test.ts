/**
 * A ramp end to end (issue 39 item 4): `bench mnist --ramp 1:4` against the embedded server runs one k6
 * ramping-vus scenario, and the run reports one level per window, named by its planned average VUs, each with
 * its own requests and budget verdicts. Under the Node runtime always, under real k6 when it is present.
 * Generative ramps: genai-ramps.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Ramp, rampWindowLevels } from '../../../lib/load/ramp.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { resultsDir, runCli, runFolder } from './run-cli.ts';

interface Level {
  name: string;
  scheduled_latency_us?: { p50: number };
  level: number;
  requests: number;
  window_s: number;
  latency_us: { avg: number };
  budgets: { state: string }[];
}

const RAMP: Ramp = { mode: 'concurrency', from: 1, to: 4, duration_s: 8 };
const WINDOW_S = 2;
const COMMON = ['--step-duration', `${WINDOW_S}s`, '--warmup', '1s', '--metrics-url', 'off', '--no-progress'];
// Budgets far above any latency: the test checks the windows, not the machine's speed (a short window may
// hold too few samples for p99: inconclusive, not failed).
const LOOSE = ['--p95-ms', '100000', '--p99-ms', '100000', '--allow-inconclusive'];

/** Runs `bench mnist` with a ramp's flags; returns the run, its folder and its levels. */
async function benchRamp(ramp: Ramp, runtime: 'node' | 'k6', k6Bin?: string) {
  const results = resultsDir();
  const flag = ramp.mode === 'concurrency' ? '--ramp' : '--ramp-rate';
  const args = [flag, `${ramp.from}:${ramp.to}`, '--ramp-duration', `${ramp.duration_s}s`];
  const run = await runCli(
    ['bench', 'mnist', ...args, ...COMMON, ...LOOSE, '--runtime', runtime, '--results-dir', results],
    k6Bin ? { K6_BIN: k6Bin } : {},
  );
  expect(run.code, run.stderr).toBe(0);
  const folder = runFolder(results, 'mnist');
  const summary = JSON.parse(readFileSync(join(folder, 'summary.json'), 'utf8'));
  return { run, folder, levels: summary.report.results as Level[] };
}

async function checkRamp(runtime: 'node' | 'k6', k6Bin?: string): Promise<void> {
  const { run, folder, levels } = await benchRamp(RAMP, runtime, k6Bin);
  // One level per window, in order, the planned average VUs rising.
  const planned = rampWindowLevels(RAMP, WINDOW_S);
  expect(levels.map((l) => l.level)).toEqual(planned);
  expect(planned).toEqual([...planned].sort((a, b) => a - b));
  expect(new Set(planned).size).toBe(RAMP.duration_s / WINDOW_S);
  for (const level of levels) {
    expect(level.requests, level.name).toBeGreaterThan(0);
    expect(level.budgets, level.name).toHaveLength(3);
    for (const budget of level.budgets) expect(['met', 'inconclusive']).toContain(budget.state);
  }
  // Requests in flight on average (Little's law) follow the ramp's VUs: the last window holds more than the first.
  const inFlight = levels.map((l) => (l.requests * l.latency_us.avg) / 1e6 / l.window_s);
  expect(inFlight.at(-1)).toBeGreaterThan(inFlight[0]!);
  expect(run.stdout).toMatch(/Verdict: (all budgets met|\*\*inconclusive\*\*)/);
  // The perf_analyzer-style CSV: one row per window, its average concurrency first (rows in
  // perf_analyzer's order, by throughput).
  const csv = readFileSync(join(folder, 'perf_analyzer.csv'), 'utf8').trim().split('\n');
  const rows = csv.slice(1).map((line) => Number(line.split(',')[0]));
  expect(rows.sort((a, b) => a - b)).toEqual(planned);
  expect(readFileSync(join(folder, 'report.md'), 'utf8')).toContain('| c2_33 |');
}

const RATE_RAMP: Ramp = { mode: 'request-rate', from: 100, to: 400, duration_s: 8 };

async function checkRateRamp(runtime: 'node' | 'k6', k6Bin?: string): Promise<void> {
  const { levels } = await benchRamp(RATE_RAMP, runtime, k6Bin);
  expect(levels.map((l) => l.name)).toEqual(['r137_5', 'r212_5', 'r287_5', 'r362_5']);
  // Each window holds about its planned arrivals (sends due near a boundary land either side of it by the
  // generator's lag: 0.2 s of it on a loaded CI machine moved 57 of r287_5's 575), the counts rise with the rate,
  // and the windows together hold the ramp's 2,000.
  const counts = levels.map((l) => l.requests);
  expect(counts).toEqual([...counts].sort((a, b) => a - b));
  for (const level of levels) {
    const planned = level.level * WINDOW_S;
    expect(Math.abs(level.requests - planned), level.name).toBeLessThanOrEqual(planned * 0.15);
    expect(level.scheduled_latency_us?.p50, level.name).toBeGreaterThan(0);
    expect(level.budgets.length, level.name).toBeGreaterThan(0);
  }
  const total = levels.reduce((a, l) => a + l.requests, 0);
  expect(Math.abs(total - 2000)).toBeLessThanOrEqual(2);
}

describe('bench --ramp on mnist', () => {
  it(
    'judges each window of one ramping-vus scenario as a level (Node runtime)',
    () => checkRamp('node'),
    120_000,
  );

  const k6 = referenceTool('k6', 'K6_BIN');
  it.skipIf(!k6.path)(
    `does the same under real k6 ${k6.skipReason}`,
    () => checkRamp('k6', k6.path),
    120_000,
  );

  it(
    'judges each window of one ramping-arrival-rate scenario as a level (Node runtime)',
    () => checkRateRamp('node'),
    120_000,
  );
  it.skipIf(!k6.path)(
    `does the open-loop ramp under real k6 ${k6.skipReason}`,
    () => checkRateRamp('k6', k6.path),
    120_000,
  );

  /** Runs bench with --ramp 1:4 and `args`; expects it refused with `message`. */
  async function refused(args: string[], message: string): Promise<void> {
    const run = await runCli([...args, '--ramp', '1:4', '--runtime', 'node', '--results-dir', resultsDir()]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(message);
  }

  it('refuses a sequence model in one line', async () => {
    await refused(
      ['bench', 'sequence-identity'],
      'RAMP (--ramp) is not supported with a sequence model (sequence-identity)',
    );
  }, 60_000);

  it('refuses a model mix in one line', async () => {
    const mix = join(resultsDir(), 'mix.json');
    writeFileSync(mix, JSON.stringify({ total_rate: 10, models: [{ model: 'mnist', share: 100 }] }));
    await refused(['bench', '--mix', mix], '--ramp is not supported with --mix');
  }, 60_000);
});
