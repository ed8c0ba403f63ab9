/**
 * A level whose requests failed (the server died during it): its verdict is the failure and its first
 * error, it is never called load-generator bound, and a level with no successful request has no CSV row,
 * perf_analyzer line, table row or plot point, while the report says why.
 */
import { describe, expect, it } from 'vitest';
import { levelSummary } from '../../scenarios/kit/summary.ts';
import { resolveRunPlan } from '../../scenarios/kit/run-plan.ts';
import { grpcNoResponse, httpNoResponse } from '../../lib/kserve/no-response.ts';
import { firstErrorCheck, parseFirstErrorCheck } from '../../lib/load/names.ts';
import { failureVerdict, levelFailure } from '../../lib/summary/failure.ts';
import { type K6SummaryData, levelsFromSummary } from '../../lib/summary/from-summary.ts';
import { generatorWarnings } from '../../lib/summary/generator.ts';
import { perfAnalyzerSummary } from '../../lib/summary/stdout.ts';
import { buildRunReport } from '../../lib/summary/from-summary.ts';
import { getModel } from '../../models/index.ts';
import { perfAnalyzerCsv } from '../../report/csv.ts';
import { reportHtml } from '../../report/html.ts';
import { reportMarkdown } from '../../report/markdown.ts';

const trend = (avg: number, p95: number, count: number) => ({
  type: 'trend',
  contains: 'time',
  values: {
    avg,
    min: 0,
    med: avg,
    max: p95 * 2,
    'p(50)': avg,
    'p(90)': p95,
    'p(95)': p95,
    'p(99)': p95,
    count,
  },
});
const failedRate = (passes: number, fails: number) => ({
  type: 'rate',
  contains: 'default',
  values: { rate: passes / (passes + fails), passes, fails },
  thresholds: { 'rate<0.01': { ok: passes / (passes + fails) < 0.01 } },
});
const check = (name: string) => ({ name, path: `::${name}`, id: name, passes: 0, fails: 1 });

/**
 * c1 served, the server was killed during c2 (most of its requests refused) and c4 found nobody: refused
 * connections are instant, so c2's and c4's iterations are nearly all generator time.
 */
const deadServer: K6SummaryData = {
  root_group: {
    name: '',
    checks: [
      check('status is OK'),
      check(firstErrorCheck('c2', 'HTTP 503', false)),
      check(firstErrorCheck('c2', 'dial: connection refused', true)),
      check(firstErrorCheck('c4', 'dial: connection refused', true)),
    ],
  },
  metrics: {
    'http_req_duration{scenario:c1}': trend(0.55, 1.2, 8500),
    'http_req_duration{scenario:c2}': trend(0.12, 0.6, 30_000),
    'http_req_duration{scenario:c4}': {
      ...trend(0, 0, 41_000),
      thresholds: { 'p(95)<20': { ok: true }, 'p(99)<50': { ok: true } },
    },
    'http_req_failed{scenario:c1}': failedRate(0, 8500),
    'http_req_failed{scenario:c2}': failedRate(27_500, 2500),
    'http_req_failed{scenario:c4}': failedRate(41_000, 0),
    'iteration_duration{scenario:c1}': trend(0.58, 1.3, 8500),
    'iteration_duration{scenario:c2}': trend(0.33, 0.7, 30_000),
    'iteration_duration{scenario:c4}': trend(0.47, 0.9, 41_000),
  },
};

const levels = [1, 2, 4].map((level) => ({
  name: `c${level}`,
  mode: 'concurrency' as const,
  level,
  window_s: 5,
}));

function results() {
  return levelsFromSummary({ summary: deadServer, batch: 1, levels, stopped_ms: Number.MAX_SAFE_INTEGER });
}

describe('levels whose requests failed', () => {
  it('names the level, whether the server answered and the error in the first-error check', () => {
    const name = firstErrorCheck('c8', 'dial: connection refused', true);
    expect(name).toBe('first error at c8 (no response): dial: connection refused');
    expect(parseFirstErrorCheck(name)).toEqual({
      level: 'c8',
      noResponse: true,
      error: 'dial: connection refused',
    });
    expect(parseFirstErrorCheck(firstErrorCheck('r2_5', 'HTTP 400: bad input: x', false))).toEqual({
      level: 'r2_5',
      noResponse: false,
      error: 'HTTP 400: bad input: x',
    });
    expect(parseFirstErrorCheck('status is OK')).toBeUndefined();
  });

  it('tells a failure the server never answered from one it answered, as each client words it', () => {
    expect(httpNoResponse('dial: connection refused')).toBe(true);
    expect(httpNoResponse('read: connection reset by peer')).toBe(true);
    expect(httpNoResponse('HTTP 503')).toBe(false);
    expect(httpNoResponse('HTTP 400: unexpected shape for input')).toBe(false);
    // Real k6 names the status, the Node runtime numbers it.
    expect(grpcNoResponse('status Unavailable: connection error: desc = "connect: connection refused"')).toBe(
      true,
    );
    expect(grpcNoResponse('status 14: connection error: connect ECONNREFUSED 127.0.0.1:8001')).toBe(true);
    expect(grpcNoResponse('status 3: unexpected shape for input')).toBe(false);
    expect(grpcNoResponse('status InvalidArgument: unexpected shape')).toBe(false);
    expect(grpcNoResponse('status 140: no such code')).toBe(false);
  });

  it('words the verdict from the failed share and the first error', () => {
    const verdict = (requests: number, errors: number, noResponse = false) => {
      const failure = levelFailure(requests, errors, { error: 'E', noResponse });
      return failure && failureVerdict(failure);
    };
    expect(verdict(100, 100, true)).toBe('server unreachable: E');
    expect(verdict(100, 100)).toBe('all requests failed: E');
    expect(verdict(100, 92, true)).toBe('92% of requests failed: E');
    expect(verdict(1000, 999)).toBe('99.9% of requests failed: E');
    expect(verdict(100, 50)).toBeUndefined();
    expect(verdict(100, 0)).toBeUndefined();
  });

  it('reads the first error of each level and never calls a failed level generator bound', () => {
    const [c1, c2, c4] = results();
    expect(c1!.failure).toBeUndefined();
    expect(c2!.failure).toMatchObject({ no_response: false, first_error: 'HTTP 503' });
    expect(c2!.failure!.failed_pct).toBeCloseTo(91.67, 1);
    expect(c4!.failure).toEqual({
      failed_pct: 100,
      no_response: true,
      first_error: 'dial: connection refused',
    });
    // 64% and 100% of the iteration outside the request: bound, were the requests not failures.
    expect(c2!.generator!.overhead_pct).toBeGreaterThan(60);
    expect(c4!.generator!.overhead_pct).toBe(100);
    expect(c2!.generator!.bound).toBe(false);
    expect(c4!.generator!.bound).toBe(false);
    expect(generatorWarnings(results())).toEqual([]);
    // The failed requests' durations measured nothing: the latency budgets say "no data".
    expect(c4!.budgets.filter((b) => b.metric.startsWith('http_req_duration'))).toEqual([
      expect.objectContaining({ ok: false, measured: null }),
      expect.objectContaining({ ok: false, measured: null }),
    ]);
  });

  it('does not judge the generator of a level where some requests got no answer: reconnects are not its work', () => {
    // 1 in 6 requests reset (dlrm over HTTPS before the fix): 35% of each iteration outside the request.
    const level = (noResponse: boolean, error: string) => {
      const summary: K6SummaryData = {
        root_group: { name: '', checks: [check(firstErrorCheck('c1', error, noResponse))] },
        metrics: {
          'http_req_duration{scenario:c1}': trend(6.5, 9, 600),
          'http_req_failed{scenario:c1}': failedRate(100, 500),
          'iteration_duration{scenario:c1}': trend(10, 12, 600),
        },
      };
      return levelsFromSummary({
        summary,
        batch: 1,
        levels: levels.slice(0, 1),
        stopped_ms: Number.MAX_SAFE_INTEGER,
      })[0]!;
    };
    const reset = level(true, 'read: EOF');
    expect(reset.failure).toBeUndefined();
    expect(reset.generator!.overhead_pct).toBeCloseTo(35, 0);
    expect(reset.generator!.bound).toBe(false);
    expect(reset.generator!.not_judged).toBe('17% of requests got no answer (reconnects count as its time)');
    expect(generatorWarnings([reset])).toEqual([]);
    // The same level whose failures the server answered (HTTP 503) is judged, and bound.
    expect(level(false, 'HTTP 503').generator!.bound).toBe(true);
  });

  it('counts a gRPC level whose every connect was refused: errors but no duration sample', () => {
    const grpc: K6SummaryData = {
      root_group: {
        name: '',
        checks: [check(firstErrorCheck('c4', 'status 14: connection error: connect failed', true))],
      },
      metrics: {
        'grpc_req_duration{scenario:c4}': { type: 'trend', contains: 'time', values: { count: 0 } },
        'infer_errors{scenario:c4}': failedRate(5000, 0),
      },
    };
    const [c4] = levelsFromSummary({ summary: grpc, batch: 1, levels: [levels[2]!], stopped_ms: Infinity });
    expect(c4).toMatchObject({ name: 'c4', requests: 5000, errors: 5000, throughput_infer_s: 0 });
    expect(failureVerdict(c4!.failure!)).toBe(
      'server unreachable: status 14: connection error: connect failed',
    );
  });

  it('writes no CSV row and no perf_analyzer line for a level with no successful request', () => {
    const csv = perfAnalyzerCsv(results());
    expect(
      csv
        .trim()
        .split('\n')
        .map((line) => line.split(',')[0]),
    ).toEqual(['Concurrency', '2', '1']);
    expect(perfAnalyzerSummary(results())).not.toMatch(/Concurrency: 4/);
    expect(perfAnalyzerSummary(results())).toMatch(/Concurrency: 2,/);
  });

  it('says why in report.md and report.html, with no generator-bound warning', async () => {
    const report = buildRunReport({
      model: 'mnist',
      protocol: 'http',
      runtime: 'node',
      batch: 1,
      started_at: '2026-11-25T00:00:00Z',
      results: results(),
    });
    const md = reportMarkdown(report);
    expect(md).toContain('- c4: server unreachable: dial: connection refused (no request succeeded');
    expect(md).toContain('- c2: 92% of requests failed: HTTP 503 (8% succeeded');
    expect(md).not.toMatch(/generator bound/);
    expect(md).not.toMatch(/^\| 4 \|/m);
    expect(md).toMatch(/^\| c2 \|.*not judged: most requests failed/m);
    const html = await reportHtml(report);
    expect(html).toContain('c4: server unreachable: dial: connection refused');
    expect(html).not.toMatch(/generator bound/);
  });

  it('prints the cause per failed level on the console (handleSummary)', () => {
    const entry = getModel('mnist');
    const budget = JSON.stringify({
      p95_ms: 20,
      p99_ms: 50,
      error_rate: 0.01,
      levels: 'all',
      source: 'test',
    });
    const run = resolveRunPlan(entry, { CONCURRENCY: '1,2,4' }, budget, 'test.json');
    const stdout = levelSummary(deadServer, run, {}).stdout!;
    expect(stdout).toContain('c4: server unreachable: dial: connection refused');
    expect(stdout).toContain('c2: 92% of requests failed: HTTP 503');
    expect(stdout).not.toMatch(/generator bound|Concurrency: 4/);
  });
});
