/** The summary's value formats, k6's text layout, the legacy export and the JSON/CSV sample outputs. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TrendHistogram } from '../src/metrics/histogram.ts';
import { CSV_HEADER } from '../src/outputs/csv.ts';
import type { SummaryData } from '../src/summary/data.ts';
import { legacySummaryExport } from '../src/summary/export.ts';
import { formatBytes, formatTime } from '../src/summary/format.ts';
import { renderTextSummary } from '../src/summary/text.ts';
import { runScript } from './run-script.ts';

const dir = mkdtempSync(join(tmpdir(), 'k6t-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DATA: SummaryData = {
  root_group: {
    name: '',
    path: '',
    id: 'd41d8cd98f00b204e9800998ecf8427e',
    groups: [],
    checks: [{ name: 'status is 200', path: '::status is 200', id: 'x', passes: 45, fails: 0 }],
  },
  options: {
    summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'],
    summaryTimeUnit: '',
    noColor: false,
  },
  state: { isStdOutTTY: false, isStdErrTTY: false, testRunDurationMs: 6858.6 },
  metrics: {
    http_req_duration: {
      type: 'trend',
      contains: 'time',
      values: { avg: 140.36, min: 119.08, med: 140.96, max: 154.63, 'p(90)': 146.88, 'p(95)': 148.21 },
      thresholds: { 'p(95)<1500': { ok: true } },
    },
    'http_req_duration{expected_response:true}': {
      type: 'trend',
      contains: 'time',
      values: { avg: 140.36, min: 119.08, med: 140.96, max: 154.63, 'p(90)': 146.88, 'p(95)': 148.21 },
    },
    http_req_failed: { type: 'rate', contains: 'default', values: { rate: 0, passes: 0, fails: 45 } },
    http_reqs: { type: 'counter', contains: 'default', values: { count: 45, rate: 6.56109 } },
    vus: { type: 'gauge', contains: 'default', values: { value: 1, min: 1, max: 1 } },
    data_received: { type: 'counter', contains: 'data', values: { count: 519_000, rate: 75_670 } },
    checks: { type: 'rate', contains: 'default', values: { rate: 1, passes: 45, fails: 0 } },
  },
};

describe('summary', () => {
  it.each([
    [0, '0s'],
    [0.08801, '88.01µs'],
    [140.364, '140.36ms'],
    [6450, '6.45s'],
    [62_500, '1m2.5s'],
  ])('formats %f ms as %s', (ms, s) => {
    expect(formatTime(ms)).toBe(s);
  });

  it.each([
    [830, '830 B'],
    [4900, '4.9 kB'],
    [519_000, '519 kB'],
    [7_100_000, '7.1 MB'],
  ])('formats %d bytes as %s', (n, s) => {
    expect(formatBytes(n)).toBe(s);
  });

  it("renders k6's compact layout: thresholds, checks, categories, sub-metrics", () => {
    const text = renderTextSummary(DATA);
    expect(text).toContain("  █ THRESHOLDS\n\n    http_req_duration\n    ✓ 'p(95)<1500' p(95)=148.21ms\n");
    expect(text).toContain('  █ TOTAL RESULTS\n');
    expect(text).toContain('    checks_succeeded...................: 100.00% 45 out of 45\n');
    expect(text).toContain('    ✓ status is 200\n');
    expect(text).toContain(
      '    HTTP\n    http_req_duration..................: avg=140.36ms min=119.08ms med=140.96ms max=154.63ms p(90)=146.88ms p(95)=148.21ms\n      { expected_response:true }.......: avg=140.36ms',
    );
    expect(text).toMatch(/http_req_failed\.+: 0\.00% +0 out of 45\n/);
    expect(text).toMatch(/EXECUTION\n {4}vus\.+: 1 +min=1 +max=1\n/);
    expect(text).toMatch(/NETWORK\n {4}data_received\.+: 519 kB +76 kB\/s\n/);
  });

  it('adds per-scenario and per-group sections in full mode', async () => {
    const r = await runScript('lifecycle.js', { summaryMode: 'full' });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('  █ SCENARIO: default\n');
    expect(r.stdout).toContain('    ↳ GROUP: outer::inner\n');
    expect(r.stdout).toMatch(/ {6}checks_succeeded\.+: 100\.00% 8 out of 8\n/);
    const compact = await runScript('lifecycle.js');
    expect(compact.stdout).not.toContain('SCENARIO:');
    expect(compact.stdout).not.toContain('group_duration');
  });

  it('writes the legacy export with thresholds true when failed, groups and checks as maps', () => {
    const failed: SummaryData = structuredClone(DATA);
    failed.metrics['http_req_duration']!.thresholds = { 'p(95)<100': { ok: false } };
    const out = legacySummaryExport(failed) as {
      metrics: Record<string, Record<string, unknown>>;
      root_group: { checks: Record<string, unknown> };
    };
    expect(out.metrics['http_req_duration']!['thresholds']).toEqual({ 'p(95)<100': true });
    expect(out.metrics['http_req_failed']).toEqual({ passes: 0, fails: 45, value: 0 });
    expect(out.root_group.checks['status is 200']).toMatchObject({ passes: 45, fails: 0 });
  });

  it('keeps HDR percentiles within 0.1% and min/max/avg exact', () => {
    const h = new TrendHistogram();
    for (let i = 1; i <= 10_000; i++) h.add(i / 10);
    expect(h.min).toBe(0.1);
    expect(h.max).toBe(1000);
    expect(h.avg()).toBeCloseTo(500.05, 6);
    expect(Math.abs(h.percentile(95) - 950) / 950).toBeLessThan(0.001);
  });

  it("writes k6's NDJSON and CSV sample outputs and the --summary-export file", async () => {
    const json = join(dir, 'out.json');
    const csv = join(dir, 'out.csv');
    const exp = join(dir, 'export.json');
    const r = await runScript('lifecycle.js', { out: [`json=${json}`, `csv=${csv}`], summaryExport: exp });
    expect(r.exitCode).toBe(0);
    const lines = readFileSync(json, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const metric = lines.find((l) => l.type === 'Metric' && l.metric === 'checks');
    expect(metric.data).toMatchObject({ type: 'rate', contains: 'default' });
    const point = lines.find((l) => l.type === 'Point' && l.metric === 'iterations');
    expect(point.data.value).toBe(1);
    expect(point.data.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(point.data.tags).toMatchObject({ scenario: 'default', group: '' });
    expect(lines.filter((l) => l.type === 'Point' && l.metric === 'iterations')).toHaveLength(4);
    const rows = readFileSync(csv, 'utf8').trim().split('\n');
    expect(rows[0]).toBe(CSV_HEADER);
    expect(rows.filter((l) => l.startsWith('iterations,'))).toHaveLength(4);
    expect(rows.find((l) => l.startsWith('checks,'))).toMatch(/^checks,\d+,1\.000000,data is a JSON copy,/);
    const exported = JSON.parse(readFileSync(exp, 'utf8'));
    expect(exported.metrics.iterations.count).toBe(4);
    expect(exported.root_group.groups.outer.groups.inner.checks['data is a JSON copy'].passes).toBe(4);
  });
});
