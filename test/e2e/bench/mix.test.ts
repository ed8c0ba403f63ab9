/**
 * bench --mix: three seed models in one k6 test against the embedded server, under the Node runtime and
 * under real k6. Each model has its own load (two open-loop rates and a concurrency) and budget: mnist and
 * bert-base within generous ones, dlrm against a p95 no request can meet, so the verdicts differ per model,
 * the mix fails and the run exits 99 as a bench does.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referenceTool } from '../tools/reference-tools.ts';
import { type MixModel, readMixRun } from './mix-folder.ts';
import { alive, startCli, until, watchDescendants } from './processes.ts';
import { QUICK, resultsDir, runCli } from './run-cli.ts';

const WINDOW_S = 2;

const TRIO = [
  { model: 'mnist', rate: 10, p95_ms: 60_000, p99_ms: 60_000 },
  { model: 'bert-base', concurrency: 1, p95_ms: 60_000, p99_ms: 60_000 },
  { model: 'dlrm', rate: 2, p95_ms: 0.001 },
];

/** A mix file in a fresh folder. */
function mixFile(models: object[] = TRIO): string {
  const path = join(resultsDir(), 'trio.json');
  writeFileSync(path, JSON.stringify({ name: 'trio', models }));
  return path;
}

/** Inferences a model has served, from the statistics extension (0 while the server is not up). */
async function inferences(url: string, model: string): Promise<number> {
  const res = await fetch(`${url}/v2/models/${model}/stats`).catch(() => undefined);
  if (!res?.ok) return 0;
  const body = (await res.json()) as { model_stats: { inference_count: number }[] };
  return body.model_stats[0]?.inference_count ?? 0;
}

async function benchMix(runtime: 'node' | 'k6', k6Bin?: string) {
  const results = resultsDir();
  const quick = QUICK.map((arg) => (arg === '1s' ? `${WINDOW_S}s` : arg === 'node' ? runtime : arg));
  const run = await runCli(
    // perf_analyzer's --metrics-interval reaches the mix's scraper (it was dropped before).
    [
      'bench',
      '--mix',
      mixFile(),
      ...quick,
      '--no-progress',
      '--metrics-interval',
      '100',
      '--results-dir',
      results,
    ],
    k6Bin ? { K6_BIN: k6Bin } : {},
  );
  return { run, ...readMixRun(results, 'trio', run.stderr) };
}

function checkMix({ run, dir, summary, models }: Awaited<ReturnType<typeof benchMix>>, runtime: string) {
  // dlrm missed its budget: the run exits as k6 does on a crossed threshold.
  expect(run.code, run.stderr).toBe(99);
  expect(summary.runtime).toBe(runtime);
  expect(models.map((m) => m.id)).toEqual(['mnist', 'bert-base', 'dlrm']);
  const [mnist, bert, dlrm] = models as [MixModel, MixModel, MixModel];
  expect(mnist.result?.name).toBe('mnist__r10');
  expect(bert.result?.name).toBe('bert-base__c1');
  expect(dlrm.result?.name).toBe('dlrm__r2');
  for (const m of models) {
    expect(m.result, `${m.id} measured`).toBeDefined();
    expect(m.result!.requests, `${m.id} requests`).toBeGreaterThan(0);
    expect(m.result!.errors, `${m.id} errors`).toBe(0);
    // Triton's statistics API read per model: each model's own requests, not the mix's.
    expect(m.result!.server?.request_count, `${m.id} server requests`).toBeGreaterThan(0);
    expect(m.result!.server!.request_count).toBeLessThan(summary.whole.requests);
    // Scraped every 100 ms (16 seen here for a 2 s window): more scrapes than 500 ms could give, 2 a second
    // over the window and the interval on each side of it (6 seen here).
    expect(m.result!.server_metrics?.scrapes, `${m.id} scrapes`).toBeGreaterThan(WINDOW_S * 2 + 3);
  }
  // An open loop starts at most rate x window iterations (k6's schedule).
  expect(mnist.result!.requests).toBeLessThanOrEqual(10 * WINDOW_S + 1);
  expect(dlrm.result!.requests).toBeLessThanOrEqual(2 * WINDOW_S + 1);
  expect(summary.whole.requests).toBe(models.reduce((s, m) => s + m.result!.requests, 0));
  // A few seconds of 10 req/s carry no p99: met or inconclusive, never missed; dlrm's 1 µs budget is missed.
  expect(mnist.verdict).toMatch(/^(met|inconclusive)$/);
  expect(bert.verdict).toMatch(/^(met|inconclusive)$/);
  expect(dlrm.verdict).toBe('missed');
  expect(dlrm.verdict_ok).toBe(false);
  expect(dlrm.result!.budgets.find((b) => b.expr === 'p(95)<0.001')?.ok).toBe(false);
  expect(summary.whole.verdict_ok).toBe(false);
  expect(summary.whole.tightest.id).toBe('dlrm');
  // The whole mix's latency pools every model's measured requests, and only those: its extremes are theirs.
  // (Its percentiles need not lie between theirs: k6 interpolates between samples, and a model has few.)
  const own = models.map((m) => m.result!.latency_us);
  expect(summary.whole.latency_us.max).toBe(Math.max(...own.map((l) => l.max)));
  expect(summary.whole.latency_us.min).toBe(Math.min(...own.map((l) => l.min)));
  expect(summary.whole.latency_us.p95).toBeGreaterThan(0);
  // Each model's scenarios carry its id in one k6 summary.
  const k6 = JSON.parse(readFileSync(join(dir, 'k6-summary.json'), 'utf8'));
  for (const name of ['mnist__r10', 'bert-base__c1', 'dlrm__r2'])
    expect(Object.keys(k6.metrics)).toContain(`http_req_duration{scenario:${name}}`);
  // Each model's own bench folder, and the mix's table.
  for (const id of ['mnist', 'bert-base', 'dlrm']) {
    const own = JSON.parse(readFileSync(join(dir, id, 'summary.json'), 'utf8'));
    expect(own.report.results).toHaveLength(1);
  }
  const table = readFileSync(join(dir, 'report.md'), 'utf8');
  expect(table).toMatch(/^\| dlrm \| 2 req\/s \| .* \| FAIL \|$/m);
  expect(table).toMatch(/^\| bert-base \| 1 VU \| .* \| (pass|inconclusive) \|$/m);
  expect(run.stdout).toContain('# Model mix trio at 100%');
}

describe('bench --mix', () => {
  it('runs three seed models side by side with per-model verdicts (Node runtime)', async () => {
    checkMix(await benchMix('node'), 'node');
  }, 180_000);

  const k6 = referenceTool('k6', 'K6_BIN');
  it.skipIf(!k6.path)(
    `does the same under real k6 ${k6.skipReason}`,
    async () => {
      checkMix(await benchMix('k6', k6.path), 'k6');
    },
    180_000,
  );

  it('stops on SIGINT as a bench does: every model names its cut level, every child stops, exit 105', async () => {
    const results = resultsDir();
    const loose = { p95_ms: 60_000, p99_ms: 60_000 };
    const models = [
      { model: 'mnist', concurrency: 1, ...loose },
      { model: 'dlrm', rate: 2, ...loose },
    ];
    const bench = startCli([
      ...['bench', '--mix', mixFile(models), '--warmup', '0s', '--step-duration', '60s'],
      ...['--count', '2', '--runtime', 'node', '--results-dir', results],
    ]);
    const watcher = watchDescendants(bench.child.pid!);
    try {
      const served = await until(async () => {
        const url = /embedded server on (http:\/\/127\.0\.0\.1:\d+)/.exec(bench.output())?.[1];
        return url !== undefined && (await inferences(url, 'onnx-mnist-cpu')) >= 50;
      });
      expect(served, bench.output()).toBe(true);
      process.kill(bench.child.pid!, 'SIGINT');
      expect(await bench.exited, bench.output()).toBe(105);
      expect(watcher.stop().filter(alive)).toEqual([]);
    } finally {
      if (bench.child.exitCode === null) process.kill(-bench.child.pid!, 'SIGKILL');
    }
    const dir = join(results, 'mix-trio', readdirSync(join(results, 'mix-trio'))[0]!);
    expect(readFileSync(join(dir, 'mnist', 'report.md'), 'utf8')).toMatch(
      /mnist__c1: not measured \(interrupted after \d+(\.\d)? s of 60 s\)/,
    );
    expect(readFileSync(join(dir, 'dlrm', 'report.md'), 'utf8')).toMatch(
      /dlrm__r2: not measured \(interrupted/,
    );
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toMatch(
      /^\| mnist \| 1 VU \| .* \| not measured \|$/m,
    );
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.exit_code).toBe(105);
    expect(summary.whole.requests).toBe(0);
  }, 120_000);

  it('refuses a bad mix file in one line before anything starts', async () => {
    const path = join(resultsDir(), 'bad.json');
    writeFileSync(path, JSON.stringify({ total_rate: 10, models: [{ model: 'mnist', share: 90 }] }));
    const run = await runCli(['bench', '--mix', path, '--runtime', 'node', '--results-dir', resultsDir()]);
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim()).toMatch(/bad\.json: shares sum to 90, not 100; adjust models\[\]\.share$/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  }, 60_000);
});
