/**
 * perf_analyzer-verbose.csv (bench --verbose-csv): the columns and names of perf_analyzer's own
 * `--verbose-csv --collect-metrics` file. The bench's file is checked on every machine (its header, and
 * Avg latency = request/response + response wait); its header against the real perf_analyzer's on the same
 * embedded server where ../shared/tools/bin/perf_analyzer exists (else that check is skipped, saying why).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvHeader } from '../../../report/csv.ts';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import type { RunningServer } from '@k6-triton/server';
import { resultsDir, runCli, runFolder } from '../bench/run-cli.ts';
import { referenceTool } from './reference-tools.ts';

const run = promisify(execFile);
const perfAnalyzer = referenceTool('perf_analyzer', 'PERF_ANALYZER');

const TINY = `
name: "tiny"
backend: "simulated"
max_batch_size: 0
input [ { name: "A" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "B" data_type: TYPE_FP32 dims: [ 4 ] } ]
parameters { key: "compute_ms" value: { string_value: "2" } }
`;

function lines(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split(','));
}

describe('verbose CSV', () => {
  let server: RunningServer;
  let work: string;

  beforeAll(async () => {
    work = resultsDir();
    mkdirSync(join(work, 'repo', 'tiny', '1'), { recursive: true });
    writeFileSync(join(work, 'repo', 'tiny', 'config.pbtxt'), TINY);
    server = await startCatalogServer({
      httpPort: 0,
      grpcPort: -1,
      metricsPort: 0,
      modelRepository: join(work, 'repo'),
    });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("bench --verbose-csv writes perf_analyzer's verbose columns beside perf_analyzer.csv", async () => {
    const results = join(work, 'results');
    const bench = await runCli([
      'bench',
      'generic',
      ...['--model-name', 'tiny', '--url', `http://127.0.0.1:${server.httpPort}`],
      ...['--metrics-url', `http://127.0.0.1:${server.metricsPort}/metrics`, '--verbose-csv'],
      ...[
        '--concurrency',
        '1',
        '--step-duration',
        '1s',
        '--warmup',
        '0s',
        '--count',
        '2',
        '--runtime',
        'node',
      ],
      ...['--results-dir', results],
    ]);
    expect(bench.code, bench.stderr).toBe(0);
    const folder = runFolder(results, 'tiny');
    const [header, row] = lines(readFileSync(join(folder, 'perf_analyzer-verbose.csv'), 'utf8'));
    expect(header).toEqual(csvHeader('concurrency', true));
    const at = (name: string) => Number(row![header!.indexOf(name)]);
    // Each cell truncated to whole microseconds, so the parts may sum 1 below the whole.
    expect(at('Avg latency') - at('request/response') - at('response wait')).toBeGreaterThanOrEqual(0);
    expect(at('Avg latency') - at('request/response') - at('response wait')).toBeLessThanOrEqual(1);
    expect(at('Avg latency')).toBeGreaterThan(0);
    // The embedded server serves no GPU metric: empty cells, as perf_analyzer writes them then.
    expect(row!.slice(-4)).toEqual(['', '', '', '']);
    // The plain file keeps perf_analyzer's default columns.
    const [plain] = lines(readFileSync(join(folder, 'perf_analyzer.csv'), 'utf8'));
    expect(plain).toEqual(csvHeader('concurrency'));
  }, 120_000);

  it.skipIf(!perfAnalyzer.path)(
    `has the real perf_analyzer's --verbose-csv --collect-metrics header ${perfAnalyzer.skipReason}`,
    async () => {
      const csv = join(work, 'pa-verbose.csv');
      await run(
        perfAnalyzer.path!,
        [
          ...['-m', 'tiny', '-u', `127.0.0.1:${server.httpPort}`, '-i', 'http', '--concurrency-range', '1'],
          ...['-p', '500', '-f', csv, '--verbose-csv', '--collect-metrics'],
          // Only the header is checked: any window counts as stable, so a busy machine can't fail it.
          ...['-s', '100', '--max-trials', '20'],
          ...['--metrics-url', `http://127.0.0.1:${server.metricsPort}/metrics`, '--metrics-interval', '200'],
        ],
        { timeout: 100_000 },
      );
      const [header] = lines(readFileSync(csv, 'utf8'));
      expect(header).toEqual(csvHeader('concurrency', true));
    },
    120_000,
  );
});
