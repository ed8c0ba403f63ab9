/**
 * k6 threshold expressions: `<aggregation> <operator> <number>` (e.g. `p(95)<20`, `rate<0.01`).
 * Parsed here so user budgets fail before k6 starts, with one line naming where the expression came from.
 * Runs inside k6 and on Node; the Node runtime parses scripts' thresholds with it too (packages/runtime/src/thresholds.ts).
 */

/** k6's comparison operators ('===' is k6's alias of '=='). */
export type ThresholdOp = '<' | '<=' | '>' | '>=' | '==' | '===' | '!=';

/** k6 metric types and the aggregations their thresholds accept. */
export type MetricType = 'trend' | 'counter' | 'rate' | 'gauge';

/** A parsed threshold expression. */
export interface ThresholdExpr {
  /** 'avg' | 'min' | 'max' | 'med' | 'count' | 'rate' | 'value' | 'p(95)' ... */
  aggregation: string;
  /** The percentile for p(N), else undefined. */
  percentile?: number;
  op: ThresholdOp;
  value: number;
}

const AGGREGATIONS_BY_TYPE: Record<MetricType, readonly string[]> = {
  trend: ['avg', 'min', 'max', 'med', 'p(N)'],
  counter: ['count', 'rate'],
  rate: ['rate'],
  gauge: ['value'],
};

/** Case-sensitive, as k6's parser is (`AVG<1` fails k6 run); the exponent's e in either case, as Go's ParseFloat. */
const EXPR =
  /^\s*(avg|min|max|med|count|rate|value|p\(\s*(\d+(?:\.\d+)?)\s*\))\s*(===|==|!=|<=|>=|<|>)\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*$/;

/**
 * Parses and validates one expression; `where` names its origin for the error (e.g. 'thresholds/dlrm.json extra[0]').
 * With metricType, also checks the aggregation fits the metric (a Trend has no `rate`).
 */
export function parseThresholdExpr(expr: string, where: string, metricType?: MetricType): ThresholdExpr {
  const match = EXPR.exec(expr);
  const usage =
    'expected <avg|min|max|med|p(N)|count|rate|value> <op> <number> with op one of < <= > >= == !=, e.g. p(95)<20';
  if (!match) throw new Error(`${where}: threshold "${expr}" is invalid; ${usage}`);
  const aggregationRaw = match[1]!;
  const percentile = match[2] === undefined ? undefined : Number(match[2]);
  if (percentile !== undefined && percentile > 100) {
    throw new Error(`${where}: threshold "${expr}" is invalid; p(N) needs 0 <= N <= 100`);
  }
  const aggregation = percentile === undefined ? aggregationRaw : `p(${percentile})`;
  if (metricType) {
    const allowed = AGGREGATIONS_BY_TYPE[metricType];
    const key = percentile === undefined ? aggregation : 'p(N)';
    if (!allowed.includes(key)) {
      throw new Error(
        `${where}: threshold "${expr}" uses ${aggregation}, which a ${metricType} metric lacks; use ${allowed.join(' or ')}`,
      );
    }
  }
  return { aggregation, percentile, op: match[3] as ThresholdOp, value: Number(match[4]) };
}

/** Whether a measured value passes a parsed expression (as k6 evaluates it). */
export function thresholdPasses(expr: ThresholdExpr, measured: number): boolean {
  switch (expr.op) {
    case '<':
      return measured < expr.value;
    case '<=':
      return measured <= expr.value;
    case '>':
      return measured > expr.value;
    case '>=':
      return measured >= expr.value;
    case '!=':
      return measured !== expr.value;
    default:
      return measured === expr.value;
  }
}
