/**
 * Every scenario end to end: the bench command bundles it, starts the embedded server, runs it on
 * the Node runtime over each protocol, and writes results that parse, one row per level, with the
 * server's statistics columns filled.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { QUICK, resultsDir, runCli, runFolder } from './run-cli.ts';

const MODELS = ['resnext101-32x4d', 'dlrm', 'bert-base', 'bert-large', 'mnist', 'resnet50'];
const PROTOCOLS = ['http', 'http-json', 'grpc'];

function readCsv(path: string): Record<string, string>[] {
  const parsed = Papa.parse<Record<string, string>>(readFileSync(path, 'utf8').trim(), { header: true });
  expect(parsed.errors).toEqual([]);
  return parsed.data;
}

describe.each(PROTOCOLS)('bench over %s', (protocol) => {
  it.each(MODELS)('%s runs without errors and writes parseable results', async (model) => {
    const results = resultsDir();
    // 16 images as JSON numbers are ~25 MB a request: too slow to finish within a one-second level.
    const batch = model === 'resnet50' && protocol === 'http-json' ? ['--batch', '2'] : [];
    const run = await runCli(
      [
        'bench',
        model,
        ...QUICK,
        ...batch,
        '--protocol',
        protocol,
        '--concurrency',
        '1,2',
        '--results-dir',
        results,
      ],
      // Budgets are about speed, which tests do not judge: generous ones keep the run's verdict about errors.
      { P95_MS: '60000', P99_MS: '60000' },
    );
    expect(run.stderr).not.toMatch(/ERRO/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Concurrency: 1, throughput: [\d.]+ infer\/sec, latency \d+ usec/);
    const dir = runFolder(results, model);
    const rows = readCsv(join(dir, 'perf_analyzer.csv'));
    expect(rows.map((r) => r['Concurrency']).sort()).toEqual(['1', '2']);
    for (const row of rows) {
      expect(Number(row['Inferences/Second'])).toBeGreaterThan(0);
      expect(Number(row['Server Compute Infer'])).toBeGreaterThan(0);
      expect(Number(row['p99 latency'])).toBeGreaterThanOrEqual(Number(row['p50 latency']));
    }
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.report.results).toHaveLength(2);
    expect(summary.report.protocol).toBe(protocol);
    const checks = summary.k6.root_group.checks as { name: string; fails: number; passes: number }[];
    expect(checks.find((c) => c.name === 'outputs match the model')).toMatchObject({ fails: 0 });
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toMatch(
      /\| Concurrency \| Throughput \(infer\/s\) \|/,
    );
  });
});
