/**
 * `bench --mix` and `capacity --mix` on a tritonserver the command starts: the seed trio (mixes/seed-trio.json,
 * its shares of 20 requests/s) on real Triton 2.60.0 with all three models loaded, under the Node runtime and
 * under real k6. dlrm is given a p95 no request can meet, so the verdicts differ per model; each model's
 * Triton statistics and Prometheus metrics are its own, and the server is gone when the command ends.
 * Skipped where there is no tritonserver (or, for the k6 row, no k6).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../../lib/summary/types.ts';
import { type MixModel, mixRunFolder, readMixFolder, readMixRun } from '../bench/mix-folder.ts';
import { resultsDir, runCli } from '../bench/run-cli.ts';
import { REPO_ROOT, referenceTool } from '../tools/reference-tools.ts';
import { answers, REAL_TRITON } from './servers.ts';

const SHORT = ['--step-duration', '3s', '--warmup', '1s', '--count', '2'];
const SERVED = { mnist: 'onnx-mnist-cpu', 'bert-base': 'bert-base', dlrm: 'dlrm' } as const;
const k6 = referenceTool('k6', 'K6_BIN');

/** The seed trio as the repo has it, with budgets a loaded machine meets, except dlrm's p95. */
function seedTrio(): string {
  const seed = JSON.parse(readFileSync(join(REPO_ROOT, 'mixes', 'seed-trio.json'), 'utf8'));
  const loose = { p95_ms: 60_000, p99_ms: 60_000 };
  seed.models = seed.models.map((m: { model: string }) => ({
    ...m,
    ...loose,
    ...(m.model === 'dlrm' ? { p95_ms: 0.001 } : {}),
  }));
  const path = join(resultsDir(), 'seed-trio.json');
  writeFileSync(path, JSON.stringify(seed));
  return path;
}

/** The started tritonserver's URL from the line the command prints, and the models it says it serves. */
function startedServer(stdout: string): { url?: string; serving?: string } {
  const line = /^tritonserver on (http:\/\/127\.0\.0\.1:\d+) .*serving ([^)]*)\)$/m.exec(stdout);
  return { url: line?.[1], serving: line?.[2] };
}

/** A model's own level as its bench folder holds it: Triton statistics and the scraped metrics. */
function ownLevel(dir: string, id: string) {
  const own = JSON.parse(readFileSync(join(dir, id, 'summary.json'), 'utf8')) as { report: RunReport };
  expect(own.report.model).toBe(SERVED[id as keyof typeof SERVED]);
  expect(own.report.results).toHaveLength(1);
  return own.report.results[0]!;
}

/** Each model measured on its own Triton statistics and metrics; the first `requests` are the mix's. */
function checkPerModelServer(dir: string, models: MixModel[], mixRequests: number) {
  for (const m of models) {
    expect(m.result, `${m.id} measured`).toBeDefined();
    expect(m.result!.requests, `${m.id} requests`).toBeGreaterThan(0);
    expect(m.result!.errors, `${m.id} errors`).toBe(0);
    // Triton's statistics API read per model: the model's own requests, not the mix's.
    const counted = m.result!.server?.request_count ?? 0;
    expect(counted, `${m.id} server requests`).toBeGreaterThan(0);
    expect(counted, `${m.id} server requests`).toBeLessThan(mixRequests);
    // Triton's Prometheus metrics, scraped per level and filtered to the model.
    const metrics = ownLevel(dir, m.id).server_metrics;
    expect(metrics?.request_success, `${m.id} metrics`).toBeGreaterThan(0);
    expect(metrics!.request_failure).toBe(0);
  }
}

async function benchSeedTrio(runtime: 'node' | 'k6') {
  const results = resultsDir();
  const run = await runCli(
    ['bench', '--mix', seedTrio(), ...SHORT, '--no-progress', '--runtime', runtime, '--results-dir', results],
    { TRITONSERVER: REAL_TRITON.path ?? '', ...(k6.path ? { K6_BIN: k6.path } : {}) },
  );
  const output = `${run.stdout}\n${run.stderr}`;
  const { url, serving } = startedServer(run.stdout);
  expect(url, output).toBeDefined();
  expect(serving).toBe('onnx-mnist-cpu, bert-base, dlrm');
  const { dir, summary, models } = readMixRun(results, 'seed-trio', output);
  // dlrm missed its budget: the run exits as k6 does on a crossed threshold.
  expect(run.code, output).toBe(99);
  expect(summary.runtime).toBe(runtime);
  expect(models.map((m) => [m.id, m.result?.name])).toEqual([
    ['mnist', 'mnist__r10'],
    ['bert-base', 'bert-base__r6'],
    ['dlrm', 'dlrm__r4'],
  ]);
  // Short windows carry no p99: met or inconclusive, never missed; dlrm's budget is missed.
  expect(models.map((m) => m.verdict === 'missed')).toEqual([false, false, true]);
  expect(models.map((m) => m.verdict_ok)).toEqual([expect.any(Boolean), expect.any(Boolean), false]);
  expect(summary.whole.verdict_ok).toBe(false);
  expect(summary.whole.requests).toBe(models.reduce((s, m) => s + m.result!.requests, 0));
  checkPerModelServer(dir, models, summary.whole.requests);
  // dlrm's requests carry 4096 rows each: Triton counts its inferences, not its requests.
  const dlrm = ownLevel(dir, 'dlrm').server_metrics!;
  expect(dlrm.exec_count).toBeGreaterThan(0);
  expect(dlrm.inference_count).toBe((dlrm.exec_count ?? 0) * 4096);
  expect(readFileSync(join(dir, 'report.md'), 'utf8')).toMatch(/^\| dlrm \| 4 req\/s \| .* \| FAIL \|$/m);
  // Stopped at the end.
  expect(await answers(`${url}/v2/health/live`)).toBe(false);
}

describe.skipIf(!REAL_TRITON.path)(
  `model mixes on a tritonserver the command starts ${REAL_TRITON.skipReason}`,
  () => {
    it('bench --mix runs the seed trio with per-model verdicts and per-model server statistics (Node runtime)', async () => {
      await benchSeedTrio('node');
    }, 300_000);

    it.skipIf(!k6.path)(
      `bench --mix does the same under real k6 ${k6.skipReason}`,
      async () => {
        await benchSeedTrio('k6');
      },
      300_000,
    );

    it('capacity --mix scales the seed trio on it and stops it', async () => {
      const results = resultsDir();
      const grid = ['--start', '50', '--max', '100', '--attempts', '1', '--max-levels', '2'];
      const run = await runCli(
        ['capacity', '--mix', seedTrio(), ...SHORT, '--runtime', 'node', ...grid, '--results-dir', results],
        { TRITONSERVER: REAL_TRITON.path ?? '' },
      );
      const output = `${run.stdout}\n${run.stderr}`;
      const { url, serving } = startedServer(run.stdout);
      expect(serving, output).toBe('onnx-mnist-cpu, bert-base, dlrm');
      // dlrm's p95 budget holds at no scale.
      expect(run.code, output).toBe(99);
      const dir = mixRunFolder(results, 'seed-trio', output);
      const capacity = JSON.parse(readFileSync(join(dir, 'capacity.json'), 'utf8'));
      expect(capacity.trials.map((t: { measurement: { level: number } }) => t.measurement.level)).toEqual([
        50, 50,
      ]);
      expect(capacity.sentence).toMatch(
        /^The mix seed-trio holds no load within every model's budget: at 50% .* dlrm's p95/,
      );
      // Each scale is a mix folder of its own, measured on Triton's per-model statistics and metrics.
      const scales = readdirSync(dir).filter((d) => /^p50-\d$/.test(d));
      expect(scales.sort()).toEqual(['p50-1', 'p50-2']);
      for (const scale of scales) {
        const { summary, models } = readMixFolder(join(dir, scale));
        expect(models.map((m) => m.load.level)).toEqual([5, 3, 2]);
        checkPerModelServer(join(dir, scale), models, summary.whole.requests);
      }
      expect(await answers(`${url}/v2/health/live`)).toBe(false);
    }, 300_000);
  },
);
