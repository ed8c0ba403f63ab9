/**
 * No verdict without a measurement behind it: a server that never answers inference makes every level "not
 * measured" (exit 96, JUnit errors, never tests="0"); a percentile from too few samples, or from a level that
 * never became stable, is "inconclusive" (exit 95, 0 with --allow-inconclusive); an unstable level is measured
 * again as perf_analyzer measures it (--max-trials), and count windows grow until they hold their requests.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LevelResult, RunReport } from '../../../lib/summary/types.ts';
import { type EmbeddedServer, startEmbedded } from '../../../measure/core/embedded.ts';
import { EXIT } from '../../../measure/core/exit-codes.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { startHostileProxy } from './hostile-proxy.ts';
import { resultsDir, runCli, runFolder } from './run-cli.ts';

const K6 = referenceTool('k6', 'K6_BIN');
/** Budgets no latency here misses: only the samples can make a verdict inconclusive. */
const LOOSE = { P95_MS: '60000', P99_MS: '60000' };
/** The verdict rules as a user gets them (run-cli.ts relaxes them for the tests of mechanics). */
const STRICT = { ALLOW_INCONCLUSIVE: '', MAX_TRIALS: '' };

let server: EmbeddedServer;
beforeAll(async () => {
  server = await startEmbedded();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

/** Benches mnist with `args` against `url`; returns the run, its report and its folder. */
async function bench(url: string, args: string[], env: Record<string, string> = {}) {
  const results = resultsDir();
  const run = await runCli(
    [...['bench', 'mnist', '--url', url, '--count', '2', '--results-dir', results], ...args],
    { ...LOOSE, ...(K6.path ? { K6_BIN: K6.path } : {}), ...env },
  );
  const dir = runFolder(results, 'mnist');
  const report = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).report as RunReport;
  return { run, report, dir };
}

async function neverAnswered(runtime: string) {
  const proxy = await startHostileProxy(server.url, 'hang');
  try {
    const junit = join(resultsDir(), 'junit.xml');
    const { run, report } = await bench(proxy.url, [
      ...['--runtime', runtime, '--concurrency', '1,2', '--step-duration', '1s', '--warmup', '1s'],
      ...['--junit', junit],
    ]);
    expect(proxy.inferences()).toBeGreaterThan(0);
    expect(run.code, run.stderr).toBe(EXIT.NOT_MEASURED);
    for (const level of ['c1', 'c2'])
      expect(run.stdout).toMatch(
        new RegExp(`^${level}: not measured: no request completed in its window$`, 'm'),
      );
    expect(run.stdout).toMatch(/^verdict: not measured \(not measured: c1, c2\)$/m);
    expect(run.stdout).not.toContain('all budgets met');
    expect(report).toMatchObject({ verdict: 'not_measured', verdict_ok: false, unmeasured: ['c1', 'c2'] });
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuites tests="2" failures="0" errors="2"/);
    expect(xml).toContain('c1: not measured: no request completed in its window');
  } finally {
    await proxy.close();
  }
}

describe('a server that accepts inference and never answers', () => {
  it('Node runtime: every level not measured, exit 96, JUnit errors', { timeout: 120_000 }, async () => {
    await neverAnswered('node');
  });

  it.skipIf(!K6.path)(`real k6: the same ${K6.skipReason}`, { timeout: 120_000 }, async () => {
    await neverAnswered('k6');
  });
});

describe('verdicts the samples cannot carry', () => {
  const FEW = ['--runtime', 'node', '--request-rate', '10', '--step-duration', '2s', '--warmup', '1s'];

  it('a p99 from a few dozen requests is inconclusive, with its count and reason; exit 95', {
    timeout: 120_000,
  }, async () => {
    const { run, report } = await bench(server.url, [...FEW, '--max-trials', '3'], STRICT);
    expect(run.code, run.stdout).toBe(EXIT.INCONCLUSIVE);
    const [level] = report.results as LevelResult[];
    const p99 = level!.budgets.find((b) => b.expr.startsWith('p(99)'))!;
    expect(p99.state).toBe('inconclusive');
    expect(p99.samples).toBeGreaterThan(0);
    expect(p99.samples).toBeLessThan(1000);
    expect(p99.reason).toMatch(
      /^(p\(99\) needs 1,000 samples \(10 beyond it\); \d+ measured|level unstable .*)$/,
    );
    expect(run.stdout).toMatch(
      /^budget inconclusive: http_req_duration at level r10: budget p\(99\)<60000 inconclusive, measured [\d.]+ ms \(\d+ samples\): /m,
    );
    expect(run.stdout).toMatch(/^verdict: inconclusive \(\d budget\(s\) inconclusive\)$/m);
    expect(report.verdict).toBe('inconclusive');
  });

  it('--allow-inconclusive prints the same verdict and exits 0', { timeout: 120_000 }, async () => {
    const { run, report, dir } = await bench(
      server.url,
      [...FEW, '--max-trials', '3', '--allow-inconclusive'],
      {
        ALLOW_INCONCLUSIVE: '',
      },
    );
    expect(run.code, run.stdout).toBe(EXIT.OK);
    expect(report).toMatchObject({ verdict: 'inconclusive', allow_inconclusive: true, verdict_ok: false });
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('<skipped/>');
  });
});

describe("perf_analyzer's measurement rules", () => {
  it('measures an unstable level again, up to --max-trials windows, and keeps the last pass', {
    timeout: 120_000,
  }, async () => {
    // A tolerance no two windows meet: the level stays unstable through both passes 6 windows allow.
    const { run, report, dir } = await bench(
      server.url,
      [...['--runtime', 'node', '--concurrency', '1', '--step-duration', '1s', '--warmup', '1s']],
      { ...STRICT, STABILITY: '0.0001', MAX_TRIALS: '6' },
    );
    expect(run.stderr).toMatch(/measuring again \(pass 2 of at most 2\): c1 unstable ±\d+%/);
    expect(existsSync(join(dir, 'passes', '2', 'levels.json'))).toBe(true);
    const [c1] = report.results as LevelResult[];
    expect(c1).toMatchObject({ name: 'c1', trials: 2, stable: false });
    const p95 = c1!.budgets.find((b) => b.expr.startsWith('p(95)'))!;
    expect(p95).toMatchObject({ state: 'inconclusive' });
    expect(p95.reason).toMatch(/^level unstable \(±[\d.]+% over its windows, limit ±0.0001%\)$/);
    expect(run.code).toBe(EXIT.INCONCLUSIVE);
  });

  it('count windows: a pass whose windows held too few requests is measured again with longer ones', {
    timeout: 120_000,
  }, async () => {
    const { run, report } = await bench(
      server.url,
      [
        ...['--runtime', 'node', '--request-rate', '20', '--step-duration', '1s', '--warmup', '1s'],
        ...['--measurement-mode', 'count_windows', '--measurement-request-count', '20', '--max-trials', '6'],
      ],
      { ...STRICT, STABILITY: '100' },
    );
    // 20 requests a second in a 1 s pass: about 20, where three windows of 20 need 60.
    expect(run.stderr).toMatch(/measuring again \(pass 2 of at most 2\): r20 \d+ requests/);
    const [r20] = report.results as LevelResult[];
    expect(r20!.trials).toBe(2);
    expect(r20!.window_s).toBeGreaterThan(1);
    expect(r20!.requests).toBeGreaterThanOrEqual(60);
  });
});
