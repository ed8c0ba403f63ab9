/**
 * `k6-triton merge` on synthetic runner files whose pooled percentiles are known: counts add up, p95/p99
 * equal the pooled samples' (nearest rank, within the HDR histogram's 3 significant digits, 0.1%), and the
 * verdict is judged on the pool, where an average of the runners' percentiles would pass a missed budget.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runMerge } from '../../measure/merge/run-merge.ts';

const WINDOW_S = 6;
const ENV = { CONCURRENCY: '2,4', STEP_DURATION: `${WINDOW_S}s`, WARMUP_DURATION: '0s' };

/** A runner's samples: `n` latencies spread evenly over [lo, hi) ms in shuffled order, `failed` of them failed. */
interface Runner {
  lo: number;
  hi: number;
  n: number;
  failed: number;
}

function latencies(r: Runner): number[] {
  // 7919 is prime to every n used here, so i -> i*7919 mod n visits each grid point once, out of order.
  return Array.from({ length: r.n }, (_, i) => r.lo + ((r.hi - r.lo) * ((i * 7919) % r.n)) / r.n);
}

function point(metric: string, value: number, tags: Record<string, string>): string {
  return JSON.stringify({ type: 'Point', data: { time: '2026-11-23T08:00:00Z', value, tags }, metric });
}

/**
 * k6 `--out json` lines of one runner for the given levels; `withMetricLines` also marks the runner that ran
 * the one-VU stats probes, which record each level's window length and the runtime.
 */
function runnerFile(runner: Runner, levels: string[], withMetricLines: boolean): string {
  const lines: string[] = [];
  if (withMetricLines) {
    for (const level of levels)
      lines.push(
        point('k6_triton_window_s', WINDOW_S, { scenario: `${level}_stats`, k6_triton_runtime: 'k6' }),
      );
  }
  if (withMetricLines) {
    lines.push(
      JSON.stringify({
        type: 'Metric',
        data: { name: 'http_req_duration', type: 'trend', contains: 'time' },
        metric: 'http_req_duration',
      }),
    );
    lines.push(
      JSON.stringify({
        type: 'Metric',
        data: { name: 'http_req_failed', type: 'rate' },
        metric: 'http_req_failed',
      }),
    );
  }
  for (const scenario of levels) {
    latencies(runner).forEach((ms, i) => {
      const tags = { scenario, window: String(i % 3), method: 'POST' };
      lines.push(point('http_req_duration', ms, tags));
      lines.push(point('http_req_failed', i < runner.failed ? 1 : 0, tags));
      lines.push(point('iterations', 1, { scenario }));
    });
    // Setup's samples carry no scenario tag and must not count.
    lines.push(point('http_req_duration', 9999, {}));
  }
  return `${lines.join('\n')}\n`;
}

/** k6's nearest-rank percentile of the pooled samples (what an HDR histogram reports, to its precision). */
function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1]!;
}

const RUNNERS: Runner[] = [
  { lo: 1, hi: 10, n: 3001, failed: 0 },
  { lo: 1, hi: 10, n: 2003, failed: 5 },
  { lo: 40, hi: 80, n: 2503, failed: 2 },
];

function writeRunners(dir: string, levels = ['c2', 'c4']): string[] {
  return RUNNERS.map((runner, i) => {
    const text = runnerFile(runner, levels, i === 0);
    const path = join(dir, `runner-${i}.json${i === 2 ? '.gz' : ''}`);
    writeFileSync(path, i === 2 ? gzipSync(text) : text);
    return path;
  });
}

describe('merge', () => {
  it("pools samples: counts add up, percentiles are the pooled ones, the verdict is the pool's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k6-triton-merge-'));
    const files = writeRunners(dir);
    const outcome = await runMerge({ model: 'mnist', files, settings: ENV, dir: join(dir, 'out') });
    const pooled = RUNNERS.flatMap(latencies);
    const total = RUNNERS.reduce((s, r) => s + r.n, 0);
    const failed = RUNNERS.reduce((s, r) => s + r.failed, 0);

    expect(outcome.report.results.map((r) => r.name)).toEqual(['c2', 'c4']);
    expect(outcome.report.runtime).toBe('k6');
    for (const level of outcome.report.results) {
      expect(level.requests).toBe(total);
      expect(level.errors).toBe(failed);
      expect(level.inferences).toBe(total - failed);
      expect(level.throughput_infer_s).toBeCloseTo((total - failed) / WINDOW_S, 6);
      for (const p of [50, 90, 95, 99] as const) {
        const expected_us = nearestRank(pooled, p) * 1000;
        const merged_us = level.latency_us[`p${p}`];
        expect(Math.abs(merged_us - expected_us) / expected_us).toBeLessThanOrEqual(1e-3);
      }
      expect(level.latency_us.avg).toBeCloseTo((pooled.reduce((s, v) => s + v, 0) / pooled.length) * 1000, 3);
      expect(level.latency_us.max).toBeCloseTo(Math.max(...pooled) * 1000, 6);
    }

    // The average of the runners' p99s (about 33 ms) is within mnist's 50 ms budget; the pool's (about 79 ms) is not.
    const averaged =
      RUNNERS.map((r) => nearestRank(latencies(r), 99)).reduce((s, v) => s + v, 0) / RUNNERS.length;
    expect(averaged).toBeLessThan(50);
    expect(outcome.report.results[0]!.latency_us.p99).toBeGreaterThan(75_000);
    expect(outcome.report.verdict_ok).toBe(false);
    expect(outcome.exitCode).toBe(99);
    const missed = outcome.report.results[0]!.budgets.filter((b) => !b.ok).map((b) => b.expr);
    expect(missed).toContain('p(99)<50');

    // One CSV, one report: a row per level.
    const csv = readFileSync(outcome.written.files['perf_analyzer.csv']!, 'utf8').trim().split('\n');
    expect(csv).toHaveLength(3);
    expect(readFileSync(outcome.written.files['report.md']!, 'utf8')).toContain('| 4 |');
    expect(outcome.stats.files).toBe(3);
  });

  it('a budget the pool meets passes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k6-triton-merge-'));
    const files = writeRunners(dir);
    const outcome = await runMerge({
      model: 'mnist',
      files,
      settings: { ...ENV, P95_MS: '100', P99_MS: '100' },
      dir: join(dir, 'out'),
    });
    // 7 failures in 7507 requests stay under mnist's error budget.
    expect(outcome.report.verdict_ok).toBe(true);
    expect(outcome.exitCode).toBe(0);
  });

  it('reads windows and levels from the records, never from defaults; a level asked for without samples is an error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k6-triton-merge-'));
    const files = writeRunners(dir);
    // No settings at all: the 6 s windows and the levels c2, c4 are the probes' records.
    const outcome = await runMerge({ model: 'mnist', files, settings: {}, dir: join(dir, 'out') });
    expect(outcome.report.results.map((r) => [r.name, r.window_s])).toEqual([
      ['c2', WINDOW_S],
      ['c4', WINDOW_S],
    ]);
    const total = RUNNERS.reduce((s, r) => s + r.n - r.failed, 0);
    expect(outcome.report.results[0]!.throughput_infer_s).toBeCloseTo(total / WINDOW_S, 6);
    await expect(
      runMerge({ model: 'mnist', files, settings: { CONCURRENCY: '2,4,8' }, dir: join(dir, 'o2') }),
    ).rejects.toThrow(/^merge: level c8 has no samples in the files \(they hold c2, c4\)/);
  });

  it('bad input is one line naming the file or the setting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k6-triton-merge-'));
    const files = writeRunners(dir, ['c2', 'c8']);
    await expect(runMerge({ model: 'mnist', files, settings: ENV, dir })).rejects.toThrow(
      /level c8, which this plan \(c2, c4\) lacks; give the run's --concurrency/,
    );
    await expect(
      runMerge({ model: 'mnist', files: [join(dir, 'nope.json')], settings: ENV, dir }),
    ).rejects.toThrow(/nope\.json does not exist/);
    const junk = join(dir, 'junk.json');
    writeFileSync(junk, 'not json\n');
    await expect(runMerge({ model: 'mnist', files: [junk], settings: ENV, dir })).rejects.toThrow(
      /junk\.json:1: not a JSON line/,
    );
  });
});
