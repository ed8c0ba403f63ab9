/**
 * Invalid responses in the results: a level whose responses came back 200 but were no valid answer counts them
 * as failed requests (HTTP: k6's http_req_failed plus the infer_invalid count), no throughput, and names them per level in one line with
 * their first cause, on stdout and in report.md, which says how many responses were checked and how many failed.
 */
import { describe, expect, it } from 'vitest';
import { firstErrorCheck } from '../../lib/load/names.ts';
import { resolveRunPlan } from '../../scenarios/kit/run-plan.ts';
import { levelSummary } from '../../scenarios/kit/summary.ts';
import { failureLines, firstInvalid } from '../../lib/summary/failure.ts';
import { buildRunReport, type K6SummaryData, levelsFromSummary } from '../../lib/summary/from-summary.ts';
import { getModel } from '../../models/index.ts';
import { reportMarkdown } from '../../report/markdown.ts';

const trend = (avg: number, count: number) => ({
  type: 'trend',
  contains: 'time',
  values: {
    avg,
    min: 0,
    med: avg,
    max: avg * 3,
    'p(50)': avg,
    'p(90)': avg,
    'p(95)': avg,
    'p(99)': avg,
    count,
  },
});
const rate = (passes: number, fails: number) => ({
  type: 'rate',
  contains: 'default',
  values: { rate: passes / (passes + fails), passes, fails },
  thresholds: { 'rate<0.01': { ok: passes / (passes + fails) < 0.01 } },
});
const counter = (count: number) => ({ type: 'counter', contains: 'default', values: { count, rate: count } });
const check = (name: string) => ({ name, path: `::${name}`, id: name, passes: 0, fails: 1 });

/**
 * c1: a gateway answered every request 200 text/html, and http_req_failed saw nothing wrong. c2: one in ten
 * outputs checked, two of the 20 checked invalid (after a timeout came first at that level).
 */
const gateway: K6SummaryData = {
  root_group: {
    name: '',
    checks: [
      check(firstErrorCheck('c1', 'invalid response: body is text/html, not JSON', false)),
      check(firstErrorCheck('c2', 'request timeout', true)),
      check(firstErrorCheck('c2', 'invalid response: missing output "y"', false)),
    ],
  },
  metrics: {
    'http_req_duration{scenario:c1}': trend(0.4, 1204),
    'http_req_failed{scenario:c1}': rate(0, 1204),
    'infer_invalid{scenario:c1}': counter(1204),
    'infer_checked{scenario:c1}': counter(1204),
    'http_req_duration{scenario:c2}': trend(0.5, 200),
    'http_req_failed{scenario:c2}': rate(1, 199),
    'infer_invalid{scenario:c2}': counter(2),
    'infer_checked{scenario:c2}': counter(20),
  },
};
const levels = [
  { name: 'c1', mode: 'concurrency' as const, level: 1, window_s: 2 },
  { name: 'c2', mode: 'concurrency' as const, level: 2, window_s: 2 },
];

describe('invalid responses', () => {
  it('are failed requests with no throughput, counted per level with their first cause', () => {
    const [c1, c2] = levelsFromSummary({ summary: gateway, batch: 1, levels, stopped_ms: Infinity });
    expect(c1).toMatchObject({
      requests: 1204,
      errors: 1204,
      inferences: 0,
      throughput_infer_s: 0,
      responses_invalid: 1204,
      responses_checked: 1204,
      invalid_cause: 'body is text/html, not JSON',
      failure: { failed_pct: 100, no_response: false },
    });
    // k6 judged http_req_failed met (it saw 200s); the error rate counts the invalid answers too.
    expect(c1!.budgets.find((b) => b.metric === 'http_req_failed{scenario:c1}')).toMatchObject({
      ok: false,
      state: 'missed',
      measured: 1,
    });
    // Only valid successes are throughput: 197 of 200.
    expect(c2).toMatchObject({ errors: 3, responses_invalid: 2, responses_checked: 20, inferences: 197 });
    expect(c2!.invalid_cause).toBe('missing output "y"');
  });

  it('name each level in one line: invalid of requests, outputs checked when sampled, the first cause', () => {
    const results = levelsFromSummary({ summary: gateway, batch: 1, levels, stopped_ms: Infinity });
    expect(failureLines(results)).toEqual([
      'c1: 1,204 of 1,204 responses invalid: body is text/html, not JSON (no request succeeded: no figures, no CSV row)',
      'c2: 2 of 200 responses invalid (outputs checked on 20): missing output "y"',
    ]);
    expect(firstInvalid(gateway)).toEqual(
      new Map([
        ['c1', 'body is text/html, not JSON'],
        ['c2', 'missing output "y"'],
      ]),
    );
  });

  it('are printed by the scenario and in report.md, which counts the checked and the invalid', () => {
    const budget = JSON.stringify({
      p95_ms: 20,
      p99_ms: 50,
      error_rate: 0.01,
      levels: 'all',
      source: 'test',
    });
    const run = resolveRunPlan(getModel('mnist'), { CONCURRENCY: '1,2' }, budget, 'test.json');
    const out = levelSummary(gateway as unknown as Record<string, unknown>, run, {});
    expect(out.stdout).toContain('c1: 1,204 of 1,204 responses invalid: body is text/html, not JSON');
    expect(out.stdout).not.toContain('all budgets met');
    const results = levelsFromSummary({ summary: gateway, batch: 1, levels, stopped_ms: Infinity });
    const md = reportMarkdown(
      buildRunReport({
        model: 'mnist',
        protocol: 'http',
        runtime: 'node',
        batch: 1,
        started_at: 'now',
        results,
        validate_every: 10,
        warmup_checks: 16,
      }),
    );
    expect(md).toContain('- c1: 1,204 of 1,204 responses invalid: body is text/html, not JSON');
    expect(md).toContain('of 1 in 10 measured responses');
    expect(md).toContain('- c1: 1,204 responses, outputs of 1,204 checked, 1,204 invalid');
    expect(md).toContain('- c2: 200 responses, outputs of 20 checked, 2 invalid');
  });

  it('read an HTTP summary without invalid answers from http_req_failed alone', () => {
    const legacy: K6SummaryData = {
      metrics: {
        'http_req_duration{scenario:c1}': trend(0.4, 100),
        'http_req_failed{scenario:c1}': rate(4, 96),
      },
    };
    const [c1] = levelsFromSummary({ summary: legacy, batch: 1, levels: [levels[0]!], stopped_ms: Infinity });
    expect(c1).toMatchObject({ errors: 4, inferences: 96, responses_invalid: 0 });
  });
});
