/**
 * The seeds' own perf_analyzer command lines (fixtures/seed-perf-analyzer-commands.txt) with `perf_analyzer`
 * replaced by `k6-triton bench`, run against the embedded server: each must run, write its results beside the
 * catalog entry its -m names, and its -f CSV must carry perf_analyzer's columns (compared with a real
 * perf_analyzer's -f file when ../shared/tools/bin/perf_analyzer exists).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../../../report/csv.ts';
import { type EmbeddedServer, startEmbedded } from '../../../measure/core/embedded.ts';
import { EXIT } from '../../../measure/core/exit-codes.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { resultsDir, runCli } from './run-cli.ts';

const perfAnalyzer = referenceTool('perf_analyzer', 'PERF_ANALYZER');
const SEEDS = readFileSync(join(import.meta.dirname, 'fixtures/seed-perf-analyzer-commands.txt'), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('perf_analyzer '));

/**
 * Test-only overrides, after the seed's own flags: one-second windows (perf_analyzer's -p in ms), no warm-up,
 * three trials, two payload samples, the Node runtime. The seed's levels and model stay as written.
 */
const SHORT = ['-p', '1000', '--warmup', '0s', '-r', '3', '--count', '2', '--runtime', 'node'];

/** A seed's words with perf_analyzer swapped for bench and its -u pointed at `hostPort`. */
function asBench(line: string, hostPort: string): string[] {
  const words = line.split(/\s+/).slice(1);
  const u = words.indexOf('-u');
  if (u >= 0) words[u + 1] = hostPort;
  return ['bench', ...words];
}

function header(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n')[0]!.split(',');
}

let server: EmbeddedServer;
beforeAll(async () => {
  server = await startEmbedded();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe('the seeds perf_analyzer command lines run as k6-triton bench', () => {
  it('the fixture holds the seed commands', () => {
    expect(SEEDS.length).toBeGreaterThan(0);
  });

  for (const line of SEEDS)
    it(`runs: ${line}`, async () => {
      const hostPort = new URL(server.url).host;
      const results = resultsDir();
      const csv = join(mkdtempSync(join(tmpdir(), 'k6t-pa-cli-')), 'seed.csv');
      const args = [...asBench(line, hostPort), ...SHORT, '-f', csv, '--results-dir', results];
      const run = await runCli(args, { P95_MS: '60000', P99_MS: '60000' });
      expect(run.code, run.stderr).toBe(EXIT.OK);
      // -m onnx-mnist-cpu is the catalog's mnist: its runs go beside bench mnist's.
      expect(readdirSync(results)).toEqual(['mnist']);
      expect(header(csv)).toEqual(['Concurrency', ...CSV_COLUMNS]);
      const levels = readFileSync(csv, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((row) => Number(row.split(',')[0]));
      const range = /--concurrency-range (\d+):(\d+)/.exec(line);
      if (range) expect(levels.sort((a, b) => a - b)).toEqual(rangeOf(Number(range[1]), Number(range[2])));
      if (!perfAnalyzer.path) {
        console.warn(`seed CSV against perf_analyzer's: ${perfAnalyzer.skipReason}`);
        return;
      }
      // The real tool's -f on the same server, one short level: only its header is compared.
      const paCsv = `${csv}.perf_analyzer`;
      const words = asBench(line, hostPort)
        .slice(1)
        .map((w) => (/^\d+:\d+$/.test(w) ? '1' : w));
      await promisify(execFile)(perfAnalyzer.path, [...words, '-p', '500', '-s', '100', '-f', paCsv], {
        timeout: 120_000,
      }).catch(() => undefined);
      expect(existsSync(paCsv), 'perf_analyzer wrote its -f file').toBe(true);
      expect(header(csv)).toEqual(header(paCsv));
    }, 240_000);
});

describe('a generic run of a catalog model and k6 -o', () => {
  it("bench generic --model-name onnx-mnist-cpu writes beside bench mnist's runs; -o is k6's --out", async () => {
    const results = resultsDir();
    const points = join(mkdtempSync(join(tmpdir(), 'k6t-pa-cli-')), 'points.json');
    const args = ['bench', 'generic', '--model-name', 'onnx-mnist-cpu', '-u', new URL(server.url).host];
    args.push('--concurrency-range', '1', ...SHORT, '-o', `json=${points}`, '--results-dir', results);
    const run = await runCli(args, { P95_MS: '60000', P99_MS: '60000' });
    expect(run.code, run.stderr).toBe(EXIT.OK);
    expect(readdirSync(results)).toEqual(['mnist']);
    expect(readFileSync(points, 'utf8')).toMatch(/"type":"Point".*"metric":"http_req_duration"/);
  }, 120_000);
});

function rangeOf(start: number, end: number): number[] {
  return Array.from({ length: end - start + 1 }, (_, i) => start + i);
}
