import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compareRuns, parsePercent } from '../measure/compare/compare.ts';
import { EXIT } from '../measure/core/exit-codes.ts';
import { comparisonJunit, comparisonMarkdown } from '../measure/compare/compare-table.ts';
import { loadRun } from '../measure/compare/load-runs.ts';
import { main } from '../cli/main.ts';
import type { LevelResult, RunReport } from '../lib/summary/types.ts';
import { level, report } from './report/fixture.ts';

/** A level whose budget was met, as a whole run's levels are. */
const judged = (n: number, throughput_infer_s: number) =>
  level({
    level: n,
    throughput_infer_s,
    budgets: [
      { metric: `http_req_duration{scenario:c${n}}`, expr: 'p(95)<20', ok: true, measured: 2, state: 'met' },
    ],
  });
const baseline = report([judged(1, 1000), judged(2, 1800), judged(4, 2500)]);

/** The same run with throughput × `throughput` and every latency percentile × `latency`. */
function scaled(run: RunReport, throughput: number, latency: number): RunReport {
  const scale = (result: LevelResult): LevelResult => ({
    ...result,
    throughput_infer_s: result.throughput_infer_s * throughput,
    latency_us: Object.fromEntries(
      Object.entries(result.latency_us).map(([key, us]) => [key, us * latency]),
    ) as unknown as LevelResult['latency_us'],
  });
  return { ...run, results: run.results.map(scale) };
}

const A = (r: RunReport) => ({ path: 'results/mnist/a', report: r });
const B = (r: RunReport) => ({ path: 'results/mnist/b', report: r });

describe('compareRuns', () => {
  it('flags a 20% slowdown at every level, on throughput and on p99', () => {
    const slower = scaled(baseline, 0.8, 1.25);
    const comparison = compareRuns(A(baseline), B(slower));
    expect(comparison.regressed).toBe(true);
    expect(comparison.levels.map((l) => l.regressions.length)).toEqual([2, 2, 2]);
    expect(comparison.levels[0]!.throughput_infer_s.delta_pct).toBeCloseTo(-20, 6);
    expect(comparison.levels[0]!.p99_ms.delta_pct).toBeCloseTo(25, 6);
    expect(comparison.findings[0]).toBe(
      'c1: throughput 1000.0 → 800.0 infer/s (-20.0%), more than the 5% drop allowed',
    );
  });

  it('passes equal runs and runs within the tolerances', () => {
    expect(compareRuns(A(baseline), B(baseline)).regressed).toBe(false);
    const noisy = compareRuns(A(baseline), B(scaled(baseline, 0.96, 1.09)));
    expect(noisy.regressed).toBe(false);
    expect(noisy.findings).toEqual([]);
    // A faster B is never a regression.
    expect(compareRuns(A(baseline), B(scaled(baseline, 1.5, 0.5))).regressed).toBe(false);
  });

  it('applies the tolerances it is given', () => {
    const slower = scaled(baseline, 0.93, 1.12);
    expect(compareRuns(A(baseline), B(slower)).regressed).toBe(true);
    const loose = { max_throughput_drop_pct: 8, max_p99_rise_pct: 15 };
    expect(compareRuns(A(baseline), B(slower), loose).regressed).toBe(false);
  });

  it('counts a level B did not measure as a regression, and one only B measured as not judged', () => {
    const fewer = {
      ...baseline,
      results: [...baseline.results.slice(0, 2), level({ level: 8, throughput_infer_s: 1 })],
    };
    const comparison = compareRuns(A(baseline), B(fewer));
    expect(comparison.regressed).toBe(true);
    expect(comparison.missing_in_b).toEqual(['c4']);
    expect(comparison.only_in_b).toEqual(['c8']);
    expect(comparison.findings).toEqual(['c4: measured in A, not in B']);
  });

  it('does not pass two runs with no level in common', () => {
    const open = report([level({ level: 1, throughput_infer_s: 1000, mode: 'request-rate', name: 'r1' })]);
    const comparison = compareRuns(A(report([])), B(open));
    expect(comparison.regressed).toBe(true);
    expect(comparison.findings).toEqual(['no level was measured in both runs']);
  });

  it('names settings that differ', () => {
    const comparison = compareRuns(A(baseline), B({ ...baseline, batch: 4, protocol: 'grpc' }));
    expect(comparison.mismatches).toEqual(['protocol: http in A, grpc in B', 'batch: 1 in A, 4 in B']);
    expect(comparisonMarkdown(comparison)).toContain('> Not like for like: protocol: http in A, grpc in B;');
  });

  it('notes windows of different lengths and unstable levels, one line each, without failing the gate', () => {
    expect(compareRuns(A(baseline), B(baseline)).notes).toEqual([]);
    const short = { ...baseline, results: baseline.results.map((r) => ({ ...r, window_s: r.window_s / 5 })) };
    const shaky = {
      ...baseline,
      results: baseline.results.map((r) =>
        r.level === 2 ? { ...r, stable: false, stability_spread_pct: 21.4 } : r,
      ),
    };
    const comparison = compareRuns(A(shaky), B(short));
    expect(comparison.regressed).toBe(false);
    const w = baseline.results[0]!.window_s;
    expect(comparison.notes).toEqual([
      `windows differ: c1 ${w} s in A, ${w / 5} s in B; c2 ${w} s in A, ${w / 5} s in B; c4 ${w} s in A, ${w / 5} s in B`,
      'unstable in A: c2 (±21%); their deltas may be noise',
    ]);
    expect(comparisonMarkdown(comparison)).toContain(
      '- note: unstable in A: c2 (±21%); their deltas may be noise',
    );
  });
});

describe('comparison output', () => {
  const comparison = compareRuns(A(baseline), B(scaled(baseline, 0.8, 1.25)));

  it('writes a Markdown table with each level and the verdict', () => {
    const md = comparisonMarkdown(comparison);
    expect(md).toContain('**Regression**: 6 finding(s)');
    expect(md).toContain('| c1 | 1000.0 → 800.0 (-20.0%) |');
    expect(md).toContain('**regression** |');
    expect(comparisonMarkdown(compareRuns(A(baseline), B(baseline)))).toContain('No regression');
  });

  it('writes JUnit with one failure per failed gate', () => {
    const xml = new XMLParser({ ignoreAttributes: false }).parse(comparisonJunit(comparison));
    const cases = xml.testsuites.testsuite.testcase as { '@_name': string; failure?: unknown }[];
    expect(cases).toHaveLength(6);
    expect(cases.filter((c) => c.failure !== undefined)).toHaveLength(6);
    const passing = new XMLParser({ ignoreAttributes: false }).parse(
      comparisonJunit(compareRuns(A(baseline), B(baseline))),
    );
    expect(passing.testsuites.testsuite.testcase.filter((c: { failure?: unknown }) => c.failure)).toEqual([]);
  });

  it('parses tolerance flags and rejects anything else naming the flag', () => {
    expect(parsePercent('--max-p99-rise', '10%')).toBe(10);
    expect(parsePercent('--max-p99-rise', '2.5')).toBe(2.5);
    expect(() => parsePercent('--max-p99-rise', 'ten')).toThrow(
      "invalid --max-p99-rise; expected a percentage such as 5%, got 'ten'",
    );
    expect(() => parsePercent('--max-p99-rise', '-5%')).toThrow(/invalid --max-p99-rise/);
  });
});

describe('k6-triton compare', () => {
  afterEach(() => {
    process.exitCode = undefined;
    vi.restoreAllMocks();
  });

  async function runFolder(root: string, name: string, run: RunReport): Promise<string> {
    const dir = join(root, name);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'summary.json'), JSON.stringify({ report: run, k6: {} }));
    return dir;
  }

  async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out += String(chunk);
      return true;
    });
    vi.spyOn(console, 'error').mockImplementation((line) => {
      err += `${line}\n`;
    });
    const code = await main(['node', 'k6-triton', 'compare', ...args]);
    return { code, out, err };
  }

  it('exits 98 on a 20% slowdown, prints Markdown and writes JUnit', async () => {
    const root = await mkdtemp(join(tmpdir(), 'k6t-compare-'));
    const a = await runFolder(root, 'a', baseline);
    const b = await runFolder(root, 'b', scaled(baseline, 0.8, 1.25));
    const junit = join(root, 'compare.xml');
    const result = await cli(a, b, '--junit', junit);
    expect(result.code).toBe(EXIT.REGRESSION);
    expect(result.out).toContain('**Regression**');
    expect(await readFile(junit, 'utf8')).toContain('type="Regression"');
  });

  it('exits 0 on equal runs and reads a model folder as its newest run', async () => {
    const root = await mkdtemp(join(tmpdir(), 'k6t-compare-'));
    const a = await runFolder(root, 'base', baseline);
    await runFolder(join(root, 'mnist'), '2026-11-22T07-00-00-000', scaled(baseline, 0.5, 2));
    await runFolder(join(root, 'mnist'), '2026-11-22T08-00-00-000', baseline);
    const result = await cli(a, join(root, 'mnist'), '--max-p99-rise', '1%');
    expect(result.code).toBe(0);
    expect(result.out).toContain('2026-11-22T08-00-00-000');
    expect(result.out).toContain('No regression');
  });

  it('never picks a run that measured nothing: skips it in a model folder, refuses it by name', async () => {
    const root = await mkdtemp(join(tmpdir(), 'k6t-compare-'));
    const a = await runFolder(root, 'base', baseline);
    const nothing: RunReport = { ...baseline, results: [], verdict_ok: false, verdict: 'not_measured' };
    await runFolder(join(root, 'mnist'), '2026-11-22T07-00-00-000', baseline);
    const empty = await runFolder(join(root, 'mnist'), '2026-11-22T08-00-00-000', nothing);
    const picked = await cli(a, join(root, 'mnist'));
    expect(picked.code).toBe(0);
    expect(picked.out).toContain('2026-11-22T07-00-00-000');
    expect(picked.err).toContain(`compare: skipped ${empty}: no level completed a request`);
    const named = await cli(a, empty);
    expect(named.code).toBe(1);
    expect(named.err).toContain('measured nothing (no level completed a request)');
  });

  it('fails with one line naming a missing folder, a folder without summary.json and a bad flag', async () => {
    const root = await mkdtemp(join(tmpdir(), 'k6t-compare-'));
    const a = await runFolder(root, 'a', baseline);
    const missing = await cli(a, join(root, 'nope'));
    expect(missing.code).toBe(1);
    expect(missing.err).toBe(
      `k6-triton: compare: ${join(root, 'nope')} does not exist; pass a run folder written by \`k6-triton bench\` (results/<model>/<run-id>)\n`,
    );
    await mkdir(join(root, 'empty'));
    const empty = await cli(join(root, 'empty'), a);
    expect(empty.err).toMatch(/^k6-triton: compare: .*empty has no summary\.json .*; pass a run folder/);
    await writeFile(join(root, 'other.json'), '{"metrics":{}}');
    expect(() => loadRun(join(root, 'other.json'))).toThrow(/has no report\.results/);
    const flag = await cli(a, a, '--max-throughput-drop', 'lots');
    expect(flag.code).toBe(1);
    expect(flag.err).toContain("invalid --max-throughput-drop; expected a percentage such as 5%, got 'lots'");
  });
});
