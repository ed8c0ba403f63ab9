/**
 * Generative ramps end to end (issue 39 item 4): `bench gpt2 --ramp 1:4` and `--ramp-rate 2:8` against the
 * embedded server's simulated LLM run one ramping scenario whose windows are judged as generative levels: TTFT,
 * ITL, output tokens/s, goodput, budgets and genai-perf exports per window, each request in the window it
 * started in, cancelled requests apart. Under the Node runtime always, under real k6 when it is present.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { levelName } from '../../../lib/load/names.ts';
import { type Ramp, rampDue_ms, rampWindowLevels } from '../../../lib/load/ramp.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { resultsDir, runCli, runFolder } from './run-cli.ts';

interface Stats {
  p50: number;
}

interface Window {
  name: string;
  level: number;
  requests: number;
  errors: number;
  window_s: number;
  latency_us: { avg: number };
  budgets: { state: string }[];
  genai: {
    ttft_ms: Stats;
    itl_ms: Stats;
    output_tokens_per_s: number;
    goodput?: { good_requests: number };
    cancelled_requests?: number;
    schedule?: { sends: number };
  };
}

interface RecordLine {
  level: string;
  sent_ms: number;
  done_ms?: number;
}

const WINDOW_S = 2;
const RAMP: Ramp = { mode: 'concurrency', from: 1, to: 4, duration_s: 8 };
const RATE_RAMP: Ramp = { mode: 'request-rate', from: 2, to: 8, duration_s: 8 };
const COMMON = [
  '--step-duration',
  `${WINDOW_S}s`,
  '--warmup',
  '1s',
  '--metrics-url',
  'off',
  '--no-progress',
  '--preflight',
  'off',
];
// Budgets far above any latency, on every window: the test checks the windows, not the machine's speed.
const LOOSE_BUDGET = {
  model: 'gpt2',
  ttft_p95_ms: 100000,
  itl_p95_ms: 100000,
  p95_ms: 100000,
  p99_ms: 200000,
  error_rate: 0.5,
  levels: 'all',
  source: 'test: loose bounds so that every window of a ramp is judged',
};

/** Runs `bench gpt2` with a ramp's flags and `extra`; returns its folder, windows and records. */
async function benchRamp(ramp: Ramp, runtime: 'node' | 'k6', k6Bin?: string, extra: string[] = []) {
  const results = resultsDir();
  const budget = join(results, 'gpt2-loose.json');
  writeFileSync(budget, JSON.stringify(LOOSE_BUDGET));
  const flag = ramp.mode === 'concurrency' ? '--ramp' : '--ramp-rate';
  const args = [flag, `${ramp.from}:${ramp.to}`, '--ramp-duration', `${ramp.duration_s}s`];
  const run = await runCli(
    [
      'bench',
      'gpt2',
      ...args,
      ...COMMON,
      ...extra,
      '--thresholds',
      budget,
      '--allow-inconclusive',
      '--runtime',
      runtime,
      '--results-dir',
      results,
    ],
    k6Bin ? { K6_BIN: k6Bin } : {},
  );
  expect(run.code, run.stderr).toBe(0);
  const folder = runFolder(results, 'gpt2');
  const summary = JSON.parse(readFileSync(join(folder, 'summary.json'), 'utf8'));
  const records = readFileSync(join(folder, 'records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RecordLine);
  return { run, folder, windows: summary.report.results as Window[], records };
}

/**
 * Every record is in the window its request was sent in, returns how many streams ended in a later window
 * than the one they count in. The windows are laid from the ramp's first send, on the records' own clock (the
 * Node runtime stamps them on its monotonic clock, real k6 in epoch ms): the first request is sent at the
 * ramp's start (closed loop) or when its arrivals reach one (open loop, rampDue_ms). Requests sent within
 * `margin_ms` of a boundary are left out: a send may leave a few ms after its due time.
 */
function checkStartWindows(records: readonly RecordLine[], ramp: Ramp, names: readonly string[]): number {
  const margin_ms = 100;
  const first = Math.min(...records.map((r) => r.sent_ms));
  const start = first - (ramp.mode === 'request-rate' ? rampDue_ms(ramp, 0) : 0);
  const starts = names.map((_, i) => start + i * WINDOW_S * 1000);
  let spanning = 0;
  let checked = 0;
  for (const r of records) {
    const i = starts.filter((s) => s <= r.sent_ms).length - 1;
    if (i < 0) continue;
    const next = starts[i + 1] ?? Number.POSITIVE_INFINITY;
    if (r.sent_ms - starts[i]! < margin_ms || next - r.sent_ms < margin_ms) continue;
    checked++;
    expect(r.level, `request sent ${(r.sent_ms - start).toFixed(0)} ms into the ramp`).toBe(names[i]);
    if (r.done_ms !== undefined && r.done_ms > next) spanning++;
  }
  expect(checked).toBeGreaterThan(records.length / 2);
  return spanning;
}

/** What every generative window holds: requests, TTFT, ITL, tokens/s, goodput, budgets, its genai-perf export. */
function checkWindows(folder: string, windows: readonly Window[], records: readonly RecordLine[]): void {
  for (const w of windows) {
    expect(w.requests, w.name).toBeGreaterThan(0);
    expect(w.genai.ttft_ms.p50, w.name).toBeGreaterThan(0);
    expect(w.genai.itl_ms.p50, w.name).toBeGreaterThan(0);
    expect(w.genai.output_tokens_per_s, w.name).toBeGreaterThan(0);
    expect(w.genai.goodput?.good_requests, w.name).toBeGreaterThan(0);
    expect(w.budgets.length, w.name).toBeGreaterThanOrEqual(4);
    for (const budget of w.budgets) expect(['met', 'inconclusive'], w.name).toContain(budget.state);
    // Every request the window scored (not a cancelled one) is kept for rescoring under the window's name.
    expect(records.filter((r) => r.level === w.name).length, w.name).toBe(w.requests + w.errors);
    const csv = join(folder, `profile_export_genai_perf-${w.name}.csv`);
    expect(existsSync(csv), csv).toBe(true);
    expect(readFileSync(csv, 'utf8')).toContain('Time To First Token');
  }
}

async function checkRamp(runtime: 'node' | 'k6', k6Bin?: string): Promise<void> {
  const { folder, windows, records } = await benchRamp(RAMP, runtime, k6Bin);
  const names = rampWindowLevels(RAMP, WINDOW_S).map((l) => levelName('concurrency', l));
  expect(windows.map((w) => w.name)).toEqual(names);
  checkWindows(folder, windows, records);
  // The simulated LLM runs four requests at once, so requests rise with the VUs: c3 over c1.
  expect(windows.at(-1)!.requests).toBeGreaterThan(windows[0]!.requests);
  const inFlight = windows.map((w) => (w.requests * w.latency_us.avg) / 1e6 / w.window_s);
  expect(inFlight.at(-1)).toBeGreaterThan(inFlight[0]!);
  // A stream lasts about 200 ms: some cross a window's end and still count in the window they started in.
  expect(checkStartWindows(records, RAMP, names)).toBeGreaterThan(0);
  expect(readFileSync(join(folder, 'report.md'), 'utf8')).toMatch(
    /\| 2\.33 \| [\d.]+ \| [\d.]+ \| [\d.]+ \//,
  );
}

/** Half the sends cancelled 50 ms after they leave (a gpt2 stream lasts about 200 ms). */
const CANCEL = ['--cancel-rate', '50', '--cancel-after', '0.05'];

async function checkRateRamp(runtime: 'node' | 'k6', k6Bin?: string): Promise<void> {
  const { folder, windows, records } = await benchRamp(RATE_RAMP, runtime, k6Bin, CANCEL);
  const names = rampWindowLevels(RATE_RAMP, WINDOW_S).map((l) => levelName('request-rate', l));
  expect(names).toEqual(['r2_75', 'r4_25', 'r5_75', 'r7_25']);
  expect(windows.map((w) => w.name)).toEqual(names);
  checkWindows(folder, windows, records);
  // Each window sends about its planned arrivals (sends due near a boundary land either side of it by the
  // generator's lag: 2.5 off r7_25's 14.5 on a loaded CI machine), the sends rise with the rate, and together
  // they are the ramp's 40.
  const sends = windows.map((w) => w.genai.schedule?.sends ?? 0);
  expect(sends).toEqual([...sends].sort((a, b) => a - b));
  for (const w of windows)
    expect(Math.abs(w.genai.schedule!.sends - w.level * WINDOW_S), w.name).toBeLessThanOrEqual(4);
  expect(Math.abs(sends.reduce((a, b) => a + b, 0) - 40)).toBeLessThanOrEqual(2);
  // No send was dropped for want of a VU: the ramp starts with VUs for its top rate's streams (k6 tags a
  // dropped iteration with the ramp's scenario, not a window, so the run's own count is read).
  const k6Summary = JSON.parse(readFileSync(join(folder, 'k6-summary.json'), 'utf8'));
  expect(k6Summary.metrics['dropped_iterations']?.values?.count ?? 0).toBe(0);
  checkStartWindows(records, RATE_RAMP, names);
  // Cancelled requests count apart, in the window they were sent in: a send is answered, failed or cancelled
  // (the last window's streams may be cut by the ramp's end).
  const cancelled = windows.map((w) => w.genai.cancelled_requests ?? 0);
  expect(cancelled.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  for (const w of windows.slice(0, -1))
    expect(w.requests + w.errors + (w.genai.cancelled_requests ?? 0), w.name).toBe(w.genai.schedule!.sends);
}

describe('bench gpt2 --ramp and --ramp-rate', () => {
  const k6 = referenceTool('k6', 'K6_BIN');

  it(
    'judges each window of one ramping-vus scenario as a generative level (Node runtime)',
    () => checkRamp('node'),
    180_000,
  );
  it.skipIf(!k6.path)(
    `does the same under real k6 ${k6.skipReason}`,
    () => checkRamp('k6', k6.path),
    180_000,
  );

  it(
    'judges each window of one ramping-arrival-rate scenario, cancelled requests apart (Node runtime)',
    () => checkRateRamp('node'),
    180_000,
  );
  it.skipIf(!k6.path)(
    `does the open-loop ramp, cancellations too, under real k6 ${k6.skipReason}`,
    () => checkRateRamp('k6', k6.path),
    180_000,
  );

  it('refuses conversations in one line, with the reason', async () => {
    const run = await runCli([
      'bench',
      'gpt2',
      '--ramp',
      '1:4',
      '--conversation-turn-mean',
      '2',
      '--runtime',
      'node',
      '--results-dir',
      resultsDir(),
    ]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      "RAMP (--ramp) is not supported with conversations (multi-turn sessions); a session's turns start in different windows",
    );
  }, 60_000);
});
