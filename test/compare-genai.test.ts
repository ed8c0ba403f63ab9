import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../measure/compare/compare.ts';
import { DEFAULT_GENAI_TOLERANCES } from '../measure/compare/compare-genai.ts';
import { comparisonJunit, comparisonMarkdown, verdictLine } from '../measure/compare/compare-table.ts';
import type { GenerativeLevel, LevelResult, RunReport, TimeStats_ms } from '../lib/summary/types.ts';
import { level, report } from './report/fixture.ts';

const times = (p50: number, p95: number, p99: number): TimeStats_ms => ({
  avg: p50,
  p50,
  p95,
  p99,
  min: p50 / 2,
  max: p99,
});

/** A generative level: TTFT and ITL percentiles, output tokens/s and goodput, all scaled by the arguments. */
function genaiLevel(n: number, { slower = 1, tokens = 1, goodput = 1, slo = 150 } = {}): LevelResult {
  const genai: GenerativeLevel = {
    requests_per_s: 10 * tokens,
    output_tokens: 2000 * tokens,
    output_tokens_per_s: 1000 * tokens,
    ttft_ms: times(14 * slower, 20 * slower, 30 * slower),
    itl_ms: times(1.9 * slower, 2.2 * slower, 2.5 * slower),
    latency_ms: times(200, 220, 250),
    chunk_gap_ms: times(1.9, 2.2, 2.5),
    goodput: {
      slo: { ttft_ms: slo, itl_ms: 10 },
      good_requests: 100 * goodput,
      good_fraction: goodput,
      requests_per_s: 10 * goodput,
    },
  };
  // The tensor figures stay equal: only the token gates can fail.
  return level({ level: n, throughput_infer_s: 10, genai });
}

const run = (...levels: LevelResult[]): RunReport => ({ ...report(levels), model: 'gpt2' });
const A = (r: RunReport) => ({ path: 'results/gpt2/a', report: r });
const B = (r: RunReport) => ({ path: 'results/gpt2/b', report: r });
const baseline = run(genaiLevel(1), genaiLevel(4));

describe('compareRuns on generative levels', () => {
  it('passes equal runs and judges each token figure', () => {
    const comparison = compareRuns(A(baseline), B(baseline));
    expect(comparison.regressed).toBe(false);
    const g = comparison.levels[0]!.genai!;
    expect(g.ttft_ms.p99).toEqual({ a: 30, b: 30, delta_pct: 0 });
    expect(g.output_tokens_per_s.a).toBe(1000);
    expect(g.goodput_requests_per_s).toEqual({ a: 10, b: 10, delta_pct: 0 });
    expect(verdictLine(comparison)).toBe('verdict: no regression');
  });

  it('flags a TTFT and ITL rise at the percentile judged, naming metric and level', () => {
    const comparison = compareRuns(A(baseline), B(run(genaiLevel(1, { slower: 1.2 }), genaiLevel(4))));
    expect(comparison.regressed).toBe(true);
    expect(comparison.findings).toEqual([
      'c1: TTFT p99 30.00 → 36.00 ms (+20.0%), more than the 10% rise allowed',
      'c1: ITL p99 2.50 → 3.00 ms (+20.0%), more than the 10% rise allowed',
    ]);
    expect(verdictLine(comparison)).toBe('verdict: regression (c1 TTFT p99 +20.0%; c1 ITL p99 +20.0%)');
    // Looser bounds, or another percentile's bound, pass the same runs.
    const loose = { ...DEFAULT_GENAI_TOLERANCES, max_ttft_rise_pct: 25, max_itl_rise_pct: 25 };
    const tolerances = { max_throughput_drop_pct: 5, max_p99_rise_pct: 10 };
    expect(
      compareRuns(A(baseline), B(run(genaiLevel(1, { slower: 1.2 }), genaiLevel(4))), {
        ...tolerances,
        genai: loose,
      }).regressed,
    ).toBe(false);
    const p50 = compareRuns(A(baseline), B(run(genaiLevel(1, { slower: 1.2 }), genaiLevel(4))), {
      ...tolerances,
      genai: { ...DEFAULT_GENAI_TOLERANCES, percentile: 'p50' },
    });
    expect(p50.findings[0]).toBe('c1: TTFT p50 14.00 → 16.80 ms (+20.0%), more than the 10% rise allowed');
  });

  it('flags an output tokens/s drop and a goodput drop', () => {
    const comparison = compareRuns(
      A(baseline),
      B(run(genaiLevel(1), genaiLevel(4, { tokens: 0.9, goodput: 0.5 }))),
    );
    expect(comparison.findings).toEqual([
      'c4: output tokens/s 1000.0 → 900.0 tokens/s (-10.0%), more than the 5% drop allowed',
      'c4: goodput 10.0 → 5.0 req/s (-50.0%), more than the 5% drop allowed',
    ]);
  });

  it('does not judge goodput judged on other SLOs, and says why', () => {
    const comparison = compareRuns(
      A(baseline),
      B(run(genaiLevel(1, { goodput: 0.1, slo: 50 }), genaiLevel(4))),
    );
    expect(comparison.regressed).toBe(false);
    expect(comparison.levels[0]!.genai!.goodput_requests_per_s).toBeUndefined();
    expect(comparison.levels[0]!.genai!.goodput_skipped).toBe('the runs judged goodput on different SLOs');
    expect(comparisonMarkdown(comparison)).toContain('n/a (the runs judged goodput on different SLOs)');
  });

  it('writes the token table and a JUnit testcase per token gate', () => {
    const comparison = compareRuns(A(baseline), B(run(genaiLevel(1, { slower: 2 }), genaiLevel(4))));
    const md = comparisonMarkdown(comparison);
    expect(md).toContain('| Level | TTFT p50 (ms) | TTFT p95 (ms) | TTFT p99 (ms) | ITL p50 (ms)');
    expect(md).toContain('| c1 | 14.00 → 28.00 (+100.0%) |');
    expect(md).toContain('TTFT p99 rise ≤ 10%');
    expect(md.trimEnd().split('\n').at(-1)).toBe(
      'verdict: regression (c1 TTFT p99 +100.0%; c1 ITL p99 +100.0%)',
    );
    const xml = new XMLParser({ ignoreAttributes: false }).parse(comparisonJunit(comparison));
    const cases = xml.testsuites.testsuite.testcase as {
      '@_name': string;
      '@_classname': string;
      failure?: unknown;
    }[];
    const c1 = cases.filter((c) => c['@_classname'] === 'gpt2.c1');
    expect(c1.map((c) => c['@_name'])).toEqual([
      'throughput drop <= 5%',
      'p99 rise <= 10%',
      'TTFT p99 rise <= 10%',
      'ITL p99 rise <= 10%',
      'output tokens/s drop <= 5%',
      'goodput drop <= 5%',
    ]);
    expect(c1.filter((c) => c.failure).map((c) => c['@_name'])).toEqual([
      'TTFT p99 rise <= 10%',
      'ITL p99 rise <= 10%',
    ]);
  });

  it('leaves tensor runs as they were: no token table, no token gates', () => {
    const tensor = report([level({ level: 1, throughput_infer_s: 100 })]);
    const comparison = compareRuns(A(tensor), B(tensor));
    expect(comparison.levels[0]!.genai).toBeUndefined();
    expect(comparisonMarkdown(comparison)).not.toContain('TTFT');
  });
});
