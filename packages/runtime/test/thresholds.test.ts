/** k6's threshold grammar: aggregations per metric type, operators, object form, sub-metric keys. */
import { describe, expect, it } from 'vitest';
import { MetricRegistry } from '../src/metrics/registry.ts';
import { buildThresholds, evaluateThresholds, parseThresholdExpression } from '../src/thresholds.ts';

describe('threshold expressions', () => {
  it.each([
    ['p(95)<500', 'trend', 'p(95)', '<', 500],
    ['p(99.9) <= 1.5', 'trend', 'p(99.9)', '<=', 1.5],
    ['avg>=0', 'trend', 'avg', '>=', 0],
    ['med != 3', 'trend', 'med', '!=', 3],
    ['rate<0.01', 'rate', 'rate', '<', 0.01],
    ['count===10', 'counter', 'count', '===', 10],
    ['rate>2', 'counter', 'rate', '>', 2],
    ['value==1', 'gauge', 'value', '==', 1],
  ] as const)('parses %s on a %s', (expr, type, agg, op, value) => {
    expect(parseThresholdExpression(expr, 'm', type)).toMatchObject({
      aggregation: agg,
      op,
      value,
    });
  });

  it.each([
    ['p95<500', 'trend'],
    ['p(95)<<500', 'trend'],
    ['avg<', 'trend'],
    ['count<1', 'trend'],
    ['avg<1', 'rate'],
    ['value<1', 'counter'],
    ['rate<1', 'gauge'],
    // As real k6: method names are case-sensitive, a percentile is at most 100.
    ['P(95)<1', 'trend'],
    ['p(101)<1', 'trend'],
  ] as const)('rejects %s on a %s with an error naming the expression', (expr, type) => {
    expect(() => parseThresholdExpression(expr, 'my_metric', type)).toThrow(`"${expr}"`);
  });

  it('builds thresholds on sub-metrics, in object form, and evaluates them', () => {
    const reg = new MetricRegistry();
    const sets = buildThresholds(
      {
        'http_req_duration{scenario:c8}': ['p(95)<100'],
        http_req_failed: [{ threshold: 'rate<0.5', abortOnFail: true, delayAbortEval: '10s' }],
      },
      reg,
    );
    expect(sets.map((s) => s.key)).toEqual(['http_req_duration{scenario:c8}', 'http_req_failed']);
    expect(sets[1]!.thresholds[0]).toMatchObject({ abortOnFail: true, delayAbortEval_ms: 10_000 });
    const dur = reg.get('http_req_duration')!;
    dur.add(50, { scenario: 'c8' });
    dur.add(5000, { scenario: 'other' });
    reg.get('http_req_failed')!.add(1, {});
    const early = evaluateThresholds(sets, 1000);
    expect(early).toMatchObject({ ok: false, abort: false });
    expect(sets[0]!.thresholds[0]!.ok).toBe(true);
    expect(evaluateThresholds(sets, 11_000).abort).toBe(true);
  });

  it('rejects thresholds on unknown metrics', () => {
    expect(() => buildThresholds({ nope: ['count>1'] }, new MetricRegistry())).toThrow(
      'no metric name "nope" found',
    );
  });
});

describe('sub-metrics', () => {
  it('route samples to every matching sub-metric, through the index when there are many', () => {
    const reg = new MetricRegistry();
    const keys = [
      'http_req_duration{scenario:c1}',
      'http_req_duration{scenario:c2}',
      'http_req_duration{scenario:c1,window:0}',
      'http_req_duration{scenario:c1,window:1}',
      'http_req_duration{window:1}',
      'http_req_duration{method:GET,scenario:c2}',
    ];
    const subs = keys.map((k) => reg.submetric(k));
    const m = reg.get('http_req_duration')!;
    m.add(1, { scenario: 'c1', window: '0', expected_response: 'true' });
    m.add(2, { scenario: 'c1', window: '1' });
    m.add(4, { scenario: 'c2', window: '1', method: 'GET' });
    m.add(8, { scenario: 'c3' });
    const counts = subs.map((s) => (s.sink as unknown as { count: number }).count);
    expect(counts).toEqual([2, 1, 1, 1, 2, 1]);
    const expected = reg.submetric('http_req_duration{expected_response:true}').sink as unknown as {
      count: number;
    };
    expect(expected.count).toBe(1);
  });
});
