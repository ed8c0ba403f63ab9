/** The mix summary's line on its tightest model: within its budget it is the closest, past it over it. */
import { describe, expect, it } from 'vitest';
import { tightestWords } from '../../measure/mix/mix-summary.ts';

describe('mix summary: the tightest model', () => {
  it('names a model within its budget the closest to it', () => {
    expect(tightestWords({ id: 'dlrm', p95_ms: 18.456, budget_p95_ms: 20 })).toBe(
      'Closest to its budget: dlrm, p95 18.46 ms of 20 ms.',
    );
  });

  it('names a model at or past its budget as over it (a budget holds below its bound, as k6 judges)', () => {
    expect(tightestWords({ id: 'bert-base', p95_ms: 212.3, budget_p95_ms: 200 })).toBe(
      'Over its budget: bert-base, p95 212.3 ms against 200 ms.',
    );
    expect(tightestWords({ id: 'mnist', p95_ms: 20, budget_p95_ms: 20 })).toMatch(/^Over its budget: mnist/);
  });
});
