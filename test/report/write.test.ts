import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { takeNotWritten } from '../../report/not-written.ts';
import { writeRunReport } from '../../report/write.ts';
import { mountTmpfs, type Tmpfs, tmpfsRefused } from '../tmpfs.ts';
import { level, report, summary } from './fixture.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('writeRunReport', () => {
  it('writes every result file, each parseable', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'k6t-report-')), 'mnist', 'run-1');
    dirs.push(dir);
    const results = [
      level({ level: 1, throughput_infer_s: 700 }),
      level({ level: 2, throughput_infer_s: 1300 }),
    ];
    const written = await writeRunReport(dir, report(results), summary, { budget: { p95_ms: 20 } });
    expect(written.errors).toEqual([]);
    expect(Object.keys(written.files).sort()).toEqual(
      [
        'junit.xml',
        'latency.svg',
        'perf_analyzer.csv',
        'report.html',
        'report.md',
        'summary.json',
        'throughput.svg',
      ].sort(),
    );
    const json = JSON.parse(await readFile(written.files['summary.json']!, 'utf8'));
    expect(json.report.results).toHaveLength(2);
    expect(json.k6.metrics['http_req_duration{scenario:c1}'].values['p(95)']).toBe(2);
    const csv = Papa.parse<string[]>(
      (await readFile(written.files['perf_analyzer.csv']!, 'utf8')).trim(),
    ).data;
    expect(csv).toHaveLength(3);
    expect(await readFile(written.files['report.md']!, 'utf8')).toContain('| 2 | 1300.0 |');
    expect(await readFile(written.files['latency.svg']!, 'utf8')).toContain('p95 budget 20 ms');
  });

  it('still writes the tables when no level finished', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'k6t-report-'));
    dirs.push(dir);
    const written = await writeRunReport(dir, report([]), { metrics: {} });
    expect(written.errors).toEqual([]);
    expect(Object.keys(written.files).sort()).toEqual([
      'junit.xml',
      'perf_analyzer.csv',
      'report.html',
      'report.md',
      'summary.json',
    ]);
  });

  it('keeps the other files when one writer fails', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'k6t-report-'));
    dirs.push(dir);
    const mixed = [
      level({ level: 1, throughput_infer_s: 1 }),
      level({ level: 5, throughput_infer_s: 5, mode: 'request-rate', name: 'r5' }),
    ];
    const written = await writeRunReport(dir, report(mixed), summary);
    const line = `could not write ${join(dir, 'perf_analyzer.csv')}: perfAnalyzerCsv: results mix`;
    expect(written.errors).toEqual([expect.stringContaining(line)]);
    // Also kept for the end of the command's output (cli/execute.ts), where it makes the exit 94.
    expect(takeNotWritten()).toEqual(written.errors);
    expect(written.files).toHaveProperty('summary.json');
    expect(written.files).toHaveProperty('report.md');
    expect(written.files).toHaveProperty('junit.xml');
  });
});

describe.skipIf(tmpfsRefused)('writeRunReport on a full disk (4 KB tmpfs)', () => {
  let disk: Tmpfs;
  beforeAll(() => {
    disk = mountTmpfs('size=4k');
  });
  afterAll(() => disk?.unmount());

  it('writes each file whole or not at all, and names every file not written with ENOSPC', async () => {
    takeNotWritten();
    const dir = join(disk.dir, 'mnist', 'run-1');
    const results = [
      level({ level: 1, throughput_infer_s: 700 }),
      level({ level: 2, throughput_infer_s: 1300 }),
    ];
    const written = await writeRunReport(dir, report(results), summary, { budget: { p95_ms: 20 } });
    expect(written.errors.length).toBeGreaterThan(0);
    for (const error of written.errors)
      expect(error).toMatch(/^could not write \/\S+\/mnist\/run-1\/\S+: ENOSPC \(no space left on device\)$/);
    expect(takeNotWritten()).toEqual(written.errors);
    const left = readdirSync(dir);
    // No temporary name and no half file: what is there is what writeRunReport says it wrote.
    expect(left.sort()).toEqual(Object.keys(written.files).sort());
    for (const name of left.filter((f) => f.endsWith('.json')))
      expect(() => JSON.parse(readFileSync(join(dir, name), 'utf8'))).not.toThrow();
  });
});
