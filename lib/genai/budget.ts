/**
 * A generative model's budget file (thresholds/<model>.json): p95 bounds on TTFT and ITL and an error rate,
 * turned into k6 threshold expressions. Pure; runs inside k6 and on Node.
 */

/** The budget a generative run is gated on. */
export interface GenerativeBudget {
  ttft_p95_ms: number;
  itl_p95_ms: number;
  /** Largest fraction of failed requests. */
  error_rate: number;
}

/** Parses the budget file's text; throws one line naming the file and the field. */
export function parseGenerativeBudget(json: string, path: string): GenerativeBudget {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(json) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`budget file ${path} is not JSON (${err instanceof Error ? err.message : err})`);
  }
  const field = (name: keyof GenerativeBudget): number => {
    const v = raw[name];
    if (typeof v !== 'number' || !(v >= 0))
      throw new Error(`budget file ${path}: "${name}" must be a number >= 0, got ${JSON.stringify(v)}`);
    return v;
  };
  return {
    ttft_p95_ms: field('ttft_p95_ms'),
    itl_p95_ms: field('itl_p95_ms'),
    error_rate: field('error_rate'),
  };
}

/** Reads TTFT_P95_MS / ITL_P95_MS over the file's bounds (a CI job tightening one budget). */
export function budgetFromEnv(
  budget: GenerativeBudget,
  env: Record<string, string | undefined>,
): GenerativeBudget {
  const read = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const n = Number(raw);
    if (!(n > 0)) throw new Error(`invalid ${name}="${raw}"; expected milliseconds > 0`);
    return n;
  };
  return {
    ...budget,
    ttft_p95_ms: read('TTFT_P95_MS', budget.ttft_p95_ms),
    itl_p95_ms: read('ITL_P95_MS', budget.itl_p95_ms),
  };
}
