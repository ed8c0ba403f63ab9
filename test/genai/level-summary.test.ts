/** The generative scenario's level results read back from k6 summary data, its budgets, and its report table. */
import { describe, expect, it } from 'vitest';
import { parseBudget } from '../../lib/budget.ts';
import { generativeBudgetExprs, tokenBudget } from '../../lib/genai/budget.ts';
import { generativeLevels, tokenLines } from '../../lib/genai/level-summary.ts';
import type { K6SummaryData } from '../../lib/summary/from-summary.ts';
import { generativeTable } from '../../report/markdown.ts';

const trend = (avg: number, p95: number) => ({
  values: {
    avg,
    min: avg / 2,
    med: avg,
    max: p95 * 2,
    'p(50)': avg,
    'p(90)': p95,
    'p(95)': p95,
    'p(99)': p95 * 1.5,
    count: 40,
  },
});

const SUMMARY: K6SummaryData = {
  metrics: {
    'genai_ttft{scenario:c2}': { ...trend(14, 20), thresholds: { 'p(95)<10': { ok: false } } },
    'genai_itl{scenario:c2}': { ...trend(1.9, 2.5), thresholds: { 'p(95)<5': { ok: true } } },
    'genai_latency{scenario:c2}': { ...trend(202.1, 230), thresholds: { 'max>=0': { ok: true } } },
    'genai_chunk_gap{scenario:c2}': trend(1.9, 2.6),
    'genai_output_tokens{scenario:c2}': { values: { count: 4000, rate: 400 } },
    'genai_failed{scenario:c2}': { values: { rate: 0.05, passes: 2, fails: 40 } },
    'genai_osl{scenario:c2}': trend(99.5, 100),
    'genai_requested_osl{scenario:c2}': trend(100, 100),
    'genai_osl_mismatch{scenario:c2}': { values: { count: 3, rate: 0.3 } },
  },
};

describe('generative level results', () => {
  const [level, ...rest] = generativeLevels(
    SUMMARY,
    [
      { name: 'c2', mode: 'concurrency', level: 2, start_s: 0, window_s: 10 },
      { name: 'c4', mode: 'concurrency', level: 4, start_s: 12, window_s: 10 },
    ],
    { sources: { input: 'tokenizer', output: 'estimate' } },
  );

  it('reads requests, tokens and distributions per level over the window; an unrecorded level is left out', () => {
    expect(rest).toEqual([]);
    expect(level!.requests).toBe(40);
    expect(level!.errors).toBe(2);
    expect(level!.genai).toMatchObject({ requests_per_s: 4, output_tokens: 4000, output_tokens_per_s: 400 });
    expect(level!.genai!.ttft_ms).toEqual({ avg: 14, p50: 14, p95: 20, p99: 30, min: 7, max: 40 });
    expect(level!.latency_us.p95).toBe(230_000);
  });

  it('judges only the budgets, not the probes', () => {
    expect(level!.budgets).toMatchObject([
      { metric: 'genai_ttft{scenario:c2}', expr: 'p(95)<10', measured: 20 },
      { metric: 'genai_itl{scenario:c2}', expr: 'p(95)<5', measured: 2.5 },
    ]);
  });

  it('shows TTFT, ITL, latency and token throughput in report.md', () => {
    const md = generativeTable([level!]);
    expect(md).toContain(
      '| 2 | 4.00 | 400.0 | 14.00 / 20.00 / 30.00 | 1.90 / 2.50 / 3.75 | 202.10 / 230.00 / 345.00 | 2 |',
    );
    expect(generativeTable([{ ...level!, genai: undefined }])).toBe('');
  });

  it('names where ISL and OSL came from, and warns where output lengths differ from those asked', () => {
    expect(level!.genai).toMatchObject({
      osl_mismatches: 3,
      token_sources: { input: 'tokenizer', output: 'estimate' },
    });
    expect(tokenLines([level!])).toEqual([
      'token counts: ISL from tokenizer, OSL from estimate',
      'warning: c2: 3 of 40 requests produced an output length other than asked (OSL avg 99.50, asked avg 100.00)',
    ]);
    expect(generativeTable([level!])).toContain('\nwarning: c2: 3 of 40 requests');
    const exact = { ...level!, genai: { ...level!.genai!, osl_mismatches: 0 } };
    expect(tokenLines([exact])).toEqual(['token counts: ISL from tokenizer, OSL from estimate']);
  });
});

describe('generative budgets', () => {
  const budget = parseBudget(
    { p95_ms: 1000, p99_ms: 2000, error_rate: 0.01, source: 'test', ttft_p95_ms: 100, itl_p95_ms: 10 },
    'gpt2.json',
  );

  it('bounds TTFT and ITL p95, end-to-end latency and errors; TTFT_P95_MS overrides the file', () => {
    expect(generativeBudgetExprs(budget, {}, tokenBudget(budget, { TTFT_P95_MS: '50' }), 'c1')).toEqual({
      genai_latency: ['p(95)<1000', 'p(99)<2000'],
      genai_failed: ['rate<0.01'],
      genai_ttft: ['p(95)<50'],
      genai_itl: ['p(95)<10'],
    });
  });

  it('rejects a token budget that is not a positive number of ms', () => {
    expect(() =>
      parseBudget({ p95_ms: 1, p99_ms: 2, error_rate: 0, source: 's', itl_p95_ms: -1 }, 'gpt2.json'),
    ).toThrow('gpt2.json: field "itl_p95_ms" must be a positive number of milliseconds, got -1');
  });
});
