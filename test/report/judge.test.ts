import { describe, expect, it } from 'vitest';
import { parseThresholdExpr } from '../../lib/load/threshold-expr.ts';
import { buildRunReport } from '../../lib/summary/from-summary.ts';
import { judgeVerdict, percentileInterval, runVerdict, samplesNeeded } from '../../lib/summary/judge.ts';
import { junitXml } from '../../report/junit.ts';
import { reportMarkdown } from '../../report/markdown.ts';
import { verdictExitCode } from '../../measure/core/verdict-exit.ts';
import { EXIT } from '../../measure/core/exit-codes.ts';
import { level } from './fixture.ts';

const METRIC = 'http_req_duration{scenario:c1}';
/** Trend values as k6 reports them: a few grid percentiles, min, max, count. */
function trend(count: number, p99: number): Record<string, number> {
  return {
    count,
    min: 1,
    max: p99 * 2,
    'p(95)': p99 * 0.8,
    'p(98)': p99 * 0.9,
    'p(99)': p99,
    'p(99.9)': p99 * 1.5,
  };
}
function judge(
  expr: string,
  values: Record<string, number>,
  more: { succeeded?: number; stable?: boolean; ok?: boolean } = {},
) {
  const parsed = parseThresholdExpr(expr, 'test');
  return judgeVerdict(
    { metric: METRIC, expr, ok: more.ok ?? true, measured: values[parsed.aggregation] ?? null },
    parsed,
    {
      values,
      succeeded: more.succeeded ?? values['count'] ?? 0,
      ...(more.stable !== undefined ? { stable: more.stable, stability_spread_pct: 31 } : {}),
      stability_pct: 10,
      trend: true,
    },
  );
}

describe('what a budget verdict may claim', () => {
  it('asks 10 samples beyond a percentile: p99 1,000, p95 200, p90 100, med 20', () => {
    expect([99, 95, 90, 50].map(samplesNeeded)).toEqual([1000, 200, 100, 20]);
  });

  it('calls a p99 from 190 samples inconclusive, met or not, and names the count', () => {
    const met = judge('p(99)<50', trend(190, 10));
    expect(met).toMatchObject({ ok: false, state: 'inconclusive', samples: 190 });
    expect(met.reason).toBe('p(99) needs 1,000 samples (10 beyond it); 190 measured');
  });

  it('keeps a miss whose whole interval is beyond the budget, even from few samples', () => {
    // Every grid percentile from p(95) up is above 5 ms: no reading of 190 samples meets p(99)<5.
    expect(judge('p(99)<5', trend(190, 10), { ok: false })).toMatchObject({ state: 'missed' });
    // An interval that reaches below the budget leaves the miss inconclusive.
    expect(judge('p(99)<9.5', trend(190, 10), { ok: false })).toMatchObject({ state: 'inconclusive' });
  });

  it('judges a p99 from enough samples as k6 did', () => {
    expect(judge('p(99)<50', trend(5000, 10))).toMatchObject({ ok: true, state: 'met', samples: 5000 });
    expect(judge('p(99)<5', trend(5000, 10), { ok: false })).toMatchObject({ ok: false, state: 'missed' });
  });

  it('calls a latency verdict of an unstable level inconclusive', () => {
    const verdict = judge('p(95)<50', trend(50_000, 10), { stable: false });
    expect(verdict).toMatchObject({ state: 'inconclusive' });
    expect(verdict.reason).toBe('level unstable (±31% over its windows, limit ±10%)');
  });

  it('keeps a miss of an unstable level when every sample is beyond the budget', () => {
    const slow = { ...trend(50_000, 10), min: 6 };
    expect(judge('p(95)<5', slow, { stable: false, ok: false })).toMatchObject({ state: 'missed' });
    expect(judge('p(95)<7', slow, { stable: false, ok: false })).toMatchObject({ state: 'inconclusive' });
  });

  it('calls a level without a successful request not measured, never met', () => {
    expect(judge('p(95)<50', trend(5000, 10), { succeeded: 0 })).toMatchObject({
      ok: false,
      state: 'not_measured',
      measured: null,
    });
  });

  it('brackets a percentile with an order-statistics interval read from the grid', () => {
    const values = {
      count: 10_000,
      min: 1,
      max: 30,
      'p(98.5)': 8,
      'p(98.75)': 9,
      'p(99)': 10,
      'p(99.3)': 11,
      'p(99.5)': 12,
    };
    // Ranks 9,880..9,921 of 10,000 lie between p(98.75) and p(99.3).
    expect(percentileInterval(99, 10_000, values)).toEqual({ confidence: 0.95, low: 9, high: 11 });
    // 150 samples: the upper rank lies past the last sample, so nothing bounds p(99) above.
    expect(percentileInterval(99, 150, values)?.high).toBeNull();
  });
});

describe('the run verdict', () => {
  const met = { ok: true, state: 'met' as const };
  it('is met only when something was judged and nothing else was', () => {
    expect(runVerdict([met], []).verdict).toBe('met');
    expect(runVerdict([], []).verdict).toBe('not_measured');
    expect(runVerdict([], []).reasons).toEqual(['no budget judged a measured level']);
    expect(runVerdict([met], ['c2']).verdict).toBe('not_measured');
    expect(runVerdict([met, { ok: false, state: 'inconclusive' }], []).verdict).toBe('inconclusive');
    expect(
      runVerdict(
        [
          { ok: false, state: 'missed' },
          { ok: false, state: 'inconclusive' },
        ],
        ['c3'],
      ).verdict,
    ).toBe('missed');
  });

  it('names a planned level that completed no request, in report.md, JUnit and the exit code', () => {
    const c1 = level({
      level: 1,
      throughput_infer_s: 100,
      budgets: [{ metric: METRIC, expr: 'p(95)<20', ok: true, measured: 2, state: 'met' }],
    });
    const report = buildRunReport(
      { model: 'dlrm', protocol: 'http', runtime: 'node', batch: 1, started_at: 'now', results: [c1] },
      { planned: ['c1', 'c2'] },
    );
    expect(report).toMatchObject({ verdict: 'not_measured', verdict_ok: false, unmeasured: ['c2'] });
    expect(reportMarkdown(report)).toContain('Verdict: **not measured** (not measured: c2)');
    expect(junitXml(report)).toMatch(/<error message="c2: not measured[^"]*" type="NotMeasured"/);
    expect(verdictExitCode(report, EXIT.OK)).toBe(EXIT.NOT_MEASURED);
  });

  it('fails JUnit when no budget judged anything, never tests="0" with success', () => {
    const report = buildRunReport({
      model: 'dlrm',
      protocol: 'http',
      runtime: 'node',
      batch: 1,
      started_at: 'now',
      results: [],
    });
    const xml = junitXml(report);
    expect(xml).toContain('errors="1"');
    expect(xml).toContain('no budget judged a measured level');
    expect(verdictExitCode(report, EXIT.OK)).toBe(EXIT.NOT_MEASURED);
    // k6's own failure stays the exit code: the runtime broke before any verdict.
    expect(verdictExitCode(report, EXIT.SCRIPT_EXCEPTION)).toBe(EXIT.SCRIPT_EXCEPTION);
  });

  it('fails an inconclusive run unless allowed, and says which', () => {
    const c1 = level({
      level: 1,
      throughput_infer_s: 100,
      budgets: [
        { metric: METRIC, expr: 'p(99)<50', ok: false, measured: 2, state: 'inconclusive', reason: 'few' },
      ],
    });
    const fields = {
      model: 'dlrm',
      protocol: 'http',
      runtime: 'node' as const,
      batch: 1,
      started_at: 'now',
      results: [c1],
    };
    const strict = buildRunReport(fields, { planned: ['c1'] });
    expect(verdictExitCode(strict, EXIT.THRESHOLDS_FAILED)).toBe(EXIT.INCONCLUSIVE);
    expect(junitXml(strict)).toContain('type="Inconclusive"');
    const allowed = buildRunReport(fields, { planned: ['c1'], allowInconclusive: true });
    expect(verdictExitCode(allowed, EXIT.OK)).toBe(EXIT.OK);
    expect(junitXml(allowed)).toContain('<skipped/>');
    expect(reportMarkdown(allowed)).toContain('allowed by --allow-inconclusive');
  });
});
