/**
 * Latency budgets (thresholds/<model>.json) turned into k6 `options.thresholds`, one sub-metric per level.
 * Besides the budgets it adds always-true "probe" thresholds on every sub-metric the report reads, because
 * k6 only puts a tagged sub-metric in its summary when a threshold names it. Runs inside k6: no Node imports.
 */
import {
  bareLevelName,
  INFER_CHECKED_METRIC,
  errorMetricFor,
  INFER_INVALID_METRIC,
  parseLevelName,
  type RequestMetric,
  SCHEDULED_LATENCY_METRIC,
  SERVER_COUNTERS,
  statsName,
  subMetricKey,
  subWindowKey,
  WINDOW_START_METRIC,
} from './load/names.ts';
import { parseThresholdExpr } from './load/threshold-expr.ts';
import { type Env, read } from './settings/read.ts';
import { S } from './settings/schema.ts';

/** One model's budget, as thresholds/<model>.json states it. */
export interface Budget {
  /** Budget on the request duration's 95th percentile, ms. */
  p95_ms: number;
  /** Budget on the 99th percentile, ms. */
  p99_ms: number;
  /** Highest allowed failed-request rate (0.01 = 1%); the threshold is `rate<error_rate`. */
  error_rate: number;
  /** Levels the budget applies to: every level, or measurement scenario names ('c1', 'r100'). */
  levels: 'all' | string[];
  /** Where the numbers come from (seed and figure). */
  source: string;
  /** More k6 expressions on the request duration, e.g. ['avg<15']. */
  extra?: string[];
  /** Model id, for readers of the file. */
  model?: string;
  /** Generative models: budget on time to first token's p95, ms (the latency budgets apply to end-to-end latency). */
  ttft_p95_ms?: number;
  /** Generative models: budget on inter-token latency's p95, ms. */
  itl_p95_ms?: number;
}

/** Budget overrides from the environment (P95_MS, P99_MS). */
export interface BudgetOverrides {
  p95_ms?: number;
  p99_ms?: number;
}

/** The limits a level is judged by: the budget file's, after the P95_MS and P99_MS overrides. */
export interface BudgetLimits {
  p95_ms: number;
  p99_ms: number;
  error_rate: number;
}

/** The budget in force: the overrides where given, else the file's numbers. */
export function effectiveBudget(budget: Budget, overrides: BudgetOverrides = {}): BudgetLimits {
  return {
    p95_ms: overrides.p95_ms ?? budget.p95_ms,
    p99_ms: overrides.p99_ms ?? budget.p99_ms,
    error_rate: budget.error_rate,
  };
}

/** Always-true expressions that only make k6 keep a sub-metric in its summary. */
export const PROBE_EXPRS: readonly string[] = ['max>=0', 'count>=0', 'rate>=0', 'value>=0'];

/** Whether a threshold expression is a probe rather than a budget. */
export function isProbeExpr(expr: string): boolean {
  return PROBE_EXPRS.includes(expr.replace(/\s+/g, ''));
}

const KNOWN_FIELDS = [
  'p95_ms',
  'p99_ms',
  'error_rate',
  'levels',
  'source',
  'extra',
  'model',
  'ttft_p95_ms',
  'itl_p95_ms',
  '$comment',
];

function positiveMs(source: string, raw: Record<string, unknown>, field: string): number {
  const value = raw[field];
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new Error(
      `${source}: field "${field}" must be a positive number of milliseconds, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** Validates a budget (parsed JSON or its text); every error is one line naming the file and field. */
export function parseBudget(json: unknown, source: string): Budget {
  let raw: unknown = json;
  if (typeof json === 'string') {
    try {
      raw = JSON.parse(json);
    } catch (error) {
      throw new Error(`${source}: not valid JSON (${(error as Error).message.split('\n')[0]})`);
    }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new Error(`${source}: expected a JSON object with p95_ms, p99_ms, error_rate, levels and source`);
  }
  const record = raw as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!KNOWN_FIELDS.includes(key)) {
      throw new Error(`${source}: unknown field "${key}"; known fields are ${KNOWN_FIELDS.join(', ')}`);
    }
  }
  const p95_ms = positiveMs(source, record, 'p95_ms');
  const p99_ms = positiveMs(source, record, 'p99_ms');
  if (p99_ms < p95_ms)
    throw new Error(`${source}: field "p99_ms" (${p99_ms}) must not be below p95_ms (${p95_ms})`);
  const error_rate = record['error_rate'];
  if (typeof error_rate !== 'number' || !(error_rate >= 0 && error_rate <= 1)) {
    throw new Error(
      `${source}: field "error_rate" must be a number from 0 to 1 (0.01 = 1%), got ${JSON.stringify(error_rate)}`,
    );
  }
  const levels = record['levels'] ?? 'all';
  if (levels !== 'all') {
    if (!Array.isArray(levels) || levels.length === 0) {
      throw new Error(`${source}: field "levels" must be "all" or a non-empty list such as ["c1", "c8"]`);
    }
    for (const name of levels) {
      if (typeof name !== 'string' || !parseLevelName(name)) {
        throw new Error(
          `${source}: field "levels" has ${JSON.stringify(name)}; use level names like "c8" or "r100"`,
        );
      }
    }
  }
  const text = record['source'];
  if (typeof text !== 'string' || text.trim() === '') {
    throw new Error(`${source}: field "source" must say where the numbers come from (a non-empty string)`);
  }
  const extra = record['extra'];
  if (extra !== undefined) {
    if (!Array.isArray(extra))
      throw new Error(`${source}: field "extra" must be a list of k6 expressions like ["avg<15"]`);
    extra.forEach((expr, i) => {
      if (typeof expr !== 'string')
        throw new Error(`${source}: field "extra[${i}]" must be a string like "avg<15"`);
      parseThresholdExpr(expr, `${source} extra[${i}]`, 'trend');
    });
  }
  const model = record['model'];
  const tokenBudgets: Pick<Budget, 'ttft_p95_ms' | 'itl_p95_ms'> = {};
  for (const field of ['ttft_p95_ms', 'itl_p95_ms'] as const)
    if (record[field] !== undefined) tokenBudgets[field] = positiveMs(source, record, field);
  return {
    p95_ms,
    p99_ms,
    error_rate,
    levels: levels as Budget['levels'],
    source: text,
    ...(extra ? { extra: extra as string[] } : {}),
    ...(typeof model === 'string' ? { model } : {}),
    ...tokenBudgets,
  };
}

/** Reads P95_MS and P99_MS from the environment (k6's __ENV or process.env). */
export function budgetOverridesFromEnv(env: Env): BudgetOverrides {
  const overrides: BudgetOverrides = {};
  const p95 = read(env, S.P95_MS);
  const p99 = read(env, S.P99_MS);
  if (p95 !== undefined) overrides.p95_ms = p95;
  if (p99 !== undefined) overrides.p99_ms = p99;
  return overrides;
}

/** Options of budgetThresholds. */
export interface BudgetThresholdOptions {
  /** Error-rate metric. @default http_req_failed for HTTP, infer_errors (custom Rate) for gRPC */
  errorMetric?: string;
  /** Add probes for the `<level>_stats` server counters (the script must create them). @default true */
  serverStats?: boolean;
  /**
   * Sub-windows per level for the stability verdict: probes on `<metric>{scenario:L,window:i}`; requests must
   * carry windowTags() (lib/load/windows.ts). @default 0 (off)
   */
  subWindows?: number;
  /**
   * Add a probe on the scheduled-start latency Trend of the request-rate levels (the script must create it,
   * lib/load/metrics.ts createScheduledLatency). @default false
   */
  scheduledLatency?: boolean;
}

/** Whether a budget applies to a level name. */
export function budgetApplies(budget: Budget, level: string): boolean {
  return budget.levels === 'all' || budget.levels.includes(bareLevelName(level));
}

/**
 * Throws one line naming the budget file and its "levels" field when the filter matches none of the run's
 * levels: such a budget would judge nothing, and a run it judged nothing in must not read as "met". bench,
 * a mix and k8s call it before anything starts; capacity and sweep judge every level by the limits alone.
 */
export function checkBudgetLevels(budget: Budget, levelNames: readonly string[], source: string): void {
  if (budget.levels === 'all' || levelNames.some((level) => budgetApplies(budget, level))) return;
  const planned = levelNames.map(bareLevelName);
  const named = budget.levels.map(parseLevelName).filter((l) => l !== undefined);
  const flag = (mode: string) => (mode === 'concurrency' ? '--concurrency' : '--request-rate');
  const run = [...new Set(named.map((l) => l.mode))]
    .map(
      (mode) =>
        `${flag(mode)} ${named
          .filter((l) => l.mode === mode)
          .map((l) => l.level)
          .join(',')}`,
    )
    .join(' or ');
  throw new Error(
    `${source}: field "levels" names ${budget.levels.join(', ')}, none of this run's levels (${planned.join(', ')}), so the budget would judge nothing; add a run level to "levels", set "levels": "all", or run the levels it names (${run})`,
  );
}

/** The budget expressions for the request duration, after overrides. */
export function budgetExprs(budget: Budget, overrides: BudgetOverrides = {}): string[] {
  const limits = effectiveBudget(budget, overrides);
  return [`p(95)<${limits.p95_ms}`, `p(99)<${limits.p99_ms}`, ...(budget.extra ?? [])];
}

/**
 * k6 `options.thresholds` for the measurement scenarios in levelNames: budgets where the budget applies,
 * probes everywhere else the report reads (see report/README.md for the key list).
 */
export function budgetThresholds(
  budget: Budget,
  levelNames: readonly string[],
  overrides: BudgetOverrides = {},
  metric: RequestMetric = 'http_req_duration',
  options: BudgetThresholdOptions = {},
): Record<string, string[]> {
  const errorMetric = options.errorMetric ?? errorMetricFor(metric);
  const errorExpr = budget.error_rate > 0 ? `rate<${budget.error_rate}` : 'rate==0';
  const thresholds: Record<string, string[]> = {};
  for (const level of levelNames) {
    const budgeted = budgetApplies(budget, level);
    thresholds[subMetricKey(metric, level)] = budgeted ? budgetExprs(budget, overrides) : ['max>=0'];
    thresholds[subMetricKey(errorMetric, level)] = [budgeted ? errorExpr : 'rate>=0'];
    // The validation counts the report gives per level (the script creates both, lib/load/metrics.ts).
    thresholds[subMetricKey(INFER_INVALID_METRIC, level)] = ['count>=0'];
    thresholds[subMetricKey(INFER_CHECKED_METRIC, level)] = ['count>=0'];
    // Iteration time minus request time is the load generator's own cost per request. Request and
    // iteration counts come from these trends' counts: k6 matches every sample against every
    // sub-metric of its metric, so a per-level http_reqs or iterations sub-metric costs per request.
    thresholds[subMetricKey('iteration_duration', level)] = ['max>=0'];
    thresholds[subMetricKey('checks', level)] = ['rate>=0'];
    thresholds[subMetricKey('dropped_iterations', level)] = ['count>=0'];
    if (metric === 'http_req_duration') {
      thresholds[subMetricKey('http_req_sending', level)] = ['max>=0'];
      thresholds[subMetricKey('http_req_receiving', level)] = ['max>=0'];
    }
    if (options.scheduledLatency && parseLevelName(level)?.mode === 'request-rate')
      thresholds[subMetricKey(SCHEDULED_LATENCY_METRIC, level)] = ['max>=0'];
    for (let i = 0; i < (options.subWindows ?? 0); i++)
      thresholds[subWindowKey(metric, level, i)] = ['max>=0'];
    if (options.serverStats ?? true) {
      for (const counter of Object.values(SERVER_COUNTERS)) {
        thresholds[subMetricKey(counter, statsName(level))] = ['count>=0'];
      }
      thresholds[subMetricKey(WINDOW_START_METRIC, statsName(level))] = ['value>=0'];
    }
  }
  return thresholds;
}
