/**
 * A generative model's budget (thresholds/<model>.json, read by lib/budget.ts like every model's): p95 bounds
 * on TTFT and ITL, the p95/p99 latency budget on end-to-end latency, and the error rate, as k6 threshold
 * expressions on the generative metrics. Pure; runs inside k6 and on Node.
 */
import { type Budget, type BudgetOverrides, budgetApplies, effectiveBudget } from '../budget.ts';
import { type Env, read } from '../settings/read.ts';
import { S } from '../settings/schema.ts';
import type { Slo } from './metrics.ts';
import { GENAI_METRICS } from './names.ts';

/**
 * Goodput holds at a level when at least this share of its requests met every SLO (TTFT, ITL and latency,
 * each per request): the budgets are p95s, so a level within them has 95% of its requests good on each.
 */
export const GOODPUT_FRACTION = 0.95;

/** The TTFT and ITL bounds in force: TTFT_P95_MS and ITL_P95_MS over the file's. */
export interface TokenBudget {
  ttft_p95_ms?: number;
  itl_p95_ms?: number;
}

/** Reads TTFT_P95_MS and ITL_P95_MS over the budget file's bounds. */
export function tokenBudget(budget: Budget, env: Env): TokenBudget {
  const out: TokenBudget = {};
  const ttft = read(env, S.TTFT_P95_MS) ?? budget.ttft_p95_ms;
  const itl = read(env, S.ITL_P95_MS) ?? budget.itl_p95_ms;
  if (ttft !== undefined) out.ttft_p95_ms = ttft;
  if (itl !== undefined) out.itl_p95_ms = itl;
  return out;
}

/** Budget expressions per generative metric at one level (none where the budget does not apply). */
export function generativeBudgetExprs(
  budget: Budget,
  overrides: BudgetOverrides,
  tokens: TokenBudget,
  level: string,
): Record<string, string[]> {
  if (!budgetApplies(budget, level)) return {};
  const limits = effectiveBudget(budget, overrides);
  const out: Record<string, string[]> = {
    [GENAI_METRICS.latency]: [`p(95)<${limits.p95_ms}`, `p(99)<${limits.p99_ms}`],
    [GENAI_METRICS.failed]: [budget.error_rate > 0 ? `rate<${budget.error_rate}` : 'rate==0'],
  };
  if (tokens.ttft_p95_ms !== undefined) out[GENAI_METRICS.ttft] = [`p(95)<${tokens.ttft_p95_ms}`];
  if (tokens.itl_p95_ms !== undefined) out[GENAI_METRICS.itl] = [`p(95)<${tokens.itl_p95_ms}`];
  return out;
}

/** The per-request SLOs goodput counts against: the budget's TTFT and ITL p95 bounds and its latency p95. */
export function budgetSlo(tokens: TokenBudget, latencyP95_ms: number): Slo {
  return {
    ...(tokens.ttft_p95_ms !== undefined ? { ttft_ms: tokens.ttft_p95_ms } : {}),
    ...(tokens.itl_p95_ms !== undefined ? { itl_ms: tokens.itl_p95_ms } : {}),
    latency_ms: latencyP95_ms,
  };
}
