import { describe, expect, it } from 'vitest';
import { parseThresholdExpr, thresholdPasses } from '../../lib/load/threshold-expr.ts';

describe('parseThresholdExpr', () => {
  it.each([
    ['p(95)<20', { aggregation: 'p(95)', percentile: 95, op: '<', value: 20 }],
    ['p(99.9) <= 40.5', { aggregation: 'p(99.9)', op: '<=', value: 40.5 }],
    ['avg>1', { aggregation: 'avg', op: '>', value: 1 }],
    ['med>=0', { aggregation: 'med', op: '>=' }],
    ['count==3', { aggregation: 'count', op: '==', value: 3 }],
    ['rate!=0', { aggregation: 'rate', op: '!=' }],
    ['value===2', { aggregation: 'value', op: '===' }],
    ['min < 1e3', { aggregation: 'min', value: 1000 }],
  ])('reads k6 expression %j', (expr, expected) => {
    expect(parseThresholdExpr(expr, 'test')).toMatchObject(expected);
  });

  it.each([
    ['p95<20'],
    ['p(95)=<20'],
    ['p(95)<'],
    ['mean<20'],
    ['p(95)<20ms'],
    ['p(101)<20'],
    ['AVG<20'],
    [''],
  ])('rejects %j with one line naming where it came from', (expr) => {
    expect(() => parseThresholdExpr(expr, 'thresholds/dlrm.json extra[0]')).toThrow(
      /^thresholds\/dlrm\.json extra\[0\]: threshold ".*" is invalid; /,
    );
  });

  it('checks the aggregation fits the metric type', () => {
    expect(() => parseThresholdExpr('rate<0.1', 'P', 'trend')).toThrow(
      /a trend metric lacks; use avg or min/,
    );
    expect(() => parseThresholdExpr('p(95)<1', 'P', 'counter')).toThrow(/counter metric lacks/);
    expect(parseThresholdExpr('count>=0', 'P', 'counter').aggregation).toBe('count');
  });

  it('evaluates as k6 does', () => {
    expect(thresholdPasses(parseThresholdExpr('p(95)<20', 't'), 19.9)).toBe(true);
    expect(thresholdPasses(parseThresholdExpr('p(95)<20', 't'), 20)).toBe(false);
    expect(thresholdPasses(parseThresholdExpr('rate<=0.01', 't'), 0.01)).toBe(true);
    expect(thresholdPasses(parseThresholdExpr('count!=0', 't'), 0)).toBe(false);
  });
});
