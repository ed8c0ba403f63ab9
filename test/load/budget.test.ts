import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type Budget,
  budgetOverridesFromEnv,
  checkBudgetLevels,
  budgetThresholds,
  isProbeExpr,
  parseBudget,
} from '../../lib/budget.ts';
import { parseThresholdExpr } from '../../lib/load/threshold-expr.ts';
import { CATALOG } from '../../models/catalog.ts';

const dir = join(import.meta.dirname, '../../thresholds');
const budget: Budget = { p95_ms: 20, p99_ms: 30, error_rate: 0.01, levels: 'all', source: 'seed 001' };

describe('thresholds/*.json', () => {
  it('has a valid budget for every catalog model and for generic', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    for (const id of [...Object.keys(CATALOG), 'generic']) expect(files).toContain(`${id}.json`);
    for (const file of files) {
      const parsed = parseBudget(readFileSync(join(dir, file), 'utf8'), `thresholds/${file}`);
      expect(parsed.source.length).toBeGreaterThan(20);
    }
  });

  it('keeps the seeds budgets: DLRM p95 < 20 ms, BERT p95 < 100 ms', () => {
    const read = (id: string) => parseBudget(readFileSync(join(dir, `${id}.json`), 'utf8'), id);
    expect(read('dlrm').p95_ms).toBe(20);
    expect(read('bert-base').p95_ms).toBe(100);
    expect(read('bert-large').p95_ms).toBe(100);
    for (const id of Object.keys(CATALOG)) expect(read(id).error_rate).toBe(0.01);
  });
});

describe('parseBudget', () => {
  const valid = { p95_ms: 20, p99_ms: 30, error_rate: 0.01, levels: ['c1', 'c8'], source: 'seed' };

  it('accepts a valid budget, as text or object', () => {
    expect(parseBudget(JSON.stringify(valid), 'f.json')).toEqual(valid);
    expect(parseBudget({ ...valid, levels: 'all', extra: ['avg<15'] }, 'f.json').extra).toEqual(['avg<15']);
  });

  it.each([
    ['{not json', /^f\.json: not valid JSON/],
    [[], /expected a JSON object/],
    [{ ...valid, p95_ms: '20' }, /field "p95_ms" must be a positive number of milliseconds, got "20"/],
    [{ ...valid, p99_ms: -1 }, /field "p99_ms" must be a positive/],
    [{ ...valid, p99_ms: 10 }, /field "p99_ms" \(10\) must not be below p95_ms \(20\)/],
    [{ ...valid, error_rate: 5 }, /field "error_rate" must be a number from 0 to 1/],
    [{ ...valid, levels: [] }, /field "levels" must be "all" or a non-empty list/],
    [{ ...valid, levels: ['eight'] }, /field "levels" has "eight"; use level names like "c8"/],
    [{ ...valid, source: '' }, /field "source" must say where/],
    [{ ...valid, p59_ms: 1 }, /unknown field "p59_ms"/],
    [{ ...valid, extra: ['p(95)<<20'] }, /f\.json extra\[0\]: threshold "p\(95\)<<20" is invalid/],
    [
      { ...valid, extra: ['rate<0.1'] },
      /f\.json extra\[0\]: threshold "rate<0.1" uses rate, which a trend metric lacks/,
    ],
  ])('rejects %j with one line naming the file and field', (input, message) => {
    const text = typeof input === 'string' ? input : JSON.stringify(input);
    expect(() => parseBudget(typeof input === 'string' ? input : JSON.parse(text), 'f.json')).toThrow(
      message,
    );
    try {
      parseBudget(typeof input === 'string' ? input : JSON.parse(text), 'f.json');
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
    }
  });
});

describe('budgetOverridesFromEnv', () => {
  it('reads P95_MS and P99_MS and rejects junk', () => {
    expect(budgetOverridesFromEnv({ P95_MS: '15', P99_MS: '25' })).toEqual({ p95_ms: 15, p99_ms: 25 });
    expect(budgetOverridesFromEnv({ P95_MS: '' })).toEqual({});
    expect(() => budgetOverridesFromEnv({ P95_MS: '20ms' })).toThrow('P95_MS="20ms" is invalid');
  });
});

describe('budgetThresholds', () => {
  it('puts budgets on every level sub-metric, with overrides', () => {
    const t = budgetThresholds(budget, ['c1', 'c8'], { p95_ms: 15 });
    expect(t['http_req_duration{scenario:c1}']).toEqual(['p(95)<15', 'p(99)<30']);
    expect(t['http_req_duration{scenario:c8}']).toEqual(['p(95)<15', 'p(99)<30']);
    // HTTP's error budget is on k6's http_req_failed (free per request); invalid answers are counted apart.
    expect(t['http_req_failed{scenario:c8}']).toEqual(['rate<0.01']);
    expect(t).not.toHaveProperty('infer_errors{scenario:c8}');
  });

  it('leaves out per-level counters whose counts the trends already carry (each costs k6 per request)', () => {
    const t = budgetThresholds(budget, ['c1', 'c8'], {});
    expect(Object.keys(t).filter((k) => /^(http_reqs|iterations)\{/.test(k))).toEqual([]);
  });

  it('adds probes for every sub-metric the report reads', () => {
    const t = budgetThresholds(budget, ['c8'], {});
    expect(t['iteration_duration{scenario:c8}']).toEqual(['max>=0']);
    expect(t['http_req_sending{scenario:c8}']).toEqual(['max>=0']);
    expect(t['http_req_receiving{scenario:c8}']).toEqual(['max>=0']);
    expect(t['dropped_iterations{scenario:c8}']).toEqual(['count>=0']);
    expect(t['checks{scenario:c8}']).toEqual(['rate>=0']);
    expect(t['infer_invalid{scenario:c8}']).toEqual(['count>=0']);
    expect(t['infer_checked{scenario:c8}']).toEqual(['count>=0']);
    expect(t['triton_queue_us{scenario:c8_stats}']).toEqual(['count>=0']);
    expect(t['triton_request_count{scenario:c8_stats}']).toEqual(['count>=0']);
    expect(
      Object.keys(budgetThresholds(budget, ['c8'], {}, 'http_req_duration', { serverStats: false })),
    ).not.toContain('triton_queue_us{scenario:c8_stats}');
  });

  it('probes per-sub-window latency when asked, for the stability verdict', () => {
    const t = budgetThresholds(budget, ['c8'], {}, 'http_req_duration', { subWindows: 3 });
    expect(t['http_req_duration{scenario:c8,window:0}']).toEqual(['max>=0']);
    expect(t['http_req_duration{scenario:c8,window:2}']).toEqual(['max>=0']);
    expect(t).not.toHaveProperty('http_req_duration{scenario:c8,window:3}');
    expect(Object.keys(budgetThresholds(budget, ['c8'], {})).some((k) => k.includes('window:'))).toBe(false);
  });

  it('judges only the named levels and probes the others', () => {
    const t = budgetThresholds({ ...budget, levels: ['c8'] }, ['c1', 'c8'], {});
    expect(t['http_req_duration{scenario:c1}']).toEqual(['max>=0']);
    expect(t['http_req_failed{scenario:c1}']).toEqual(['rate>=0']);
    expect(t['http_req_duration{scenario:c8}']).toEqual(['p(95)<20', 'p(99)<30']);
  });

  it('uses grpc_req_duration and the infer_errors Rate for gRPC', () => {
    const t = budgetThresholds({ ...budget, extra: ['avg<10'] }, ['r100'], {}, 'grpc_req_duration');
    expect(t['grpc_req_duration{scenario:r100}']).toEqual(['p(95)<20', 'p(99)<30', 'avg<10']);
    expect(t['infer_errors{scenario:r100}']).toEqual(['rate<0.01']);
    expect(t).not.toHaveProperty('http_req_sending{scenario:r100}');
  });

  it('emits only expressions k6 accepts, and tells probes from budgets', () => {
    const t = budgetThresholds(budget, ['c1', 'r2_5'], {});
    for (const [key, exprs] of Object.entries(t)) for (const expr of exprs) parseThresholdExpr(expr, key);
    expect(isProbeExpr('count >= 0')).toBe(true);
    expect(isProbeExpr('p(95)<20')).toBe(false);
  });
});

describe('checkBudgetLevels: a level filter must judge one of the run levels', () => {
  const only = (levels: string[]): Budget => ({ ...budget, levels });

  it('refuses a filter naming none of the planned levels, naming the file, the field and the levels to run', () => {
    expect(() => checkBudgetLevels(only(['c3']), ['c1'], 'b.json')).toThrow(
      'b.json: field "levels" names c3, none of this run\'s levels (c1), so the budget would judge nothing; add a run level to "levels", set "levels": "all", or run the levels it names (--concurrency 3)',
    );
    expect(() => checkBudgetLevels(only(['r100', 'c2']), ['c1', 'c4'], 'b.json')).toThrow(
      '(--request-rate 100 or --concurrency 2)',
    );
  });

  it('accepts "all", one matching level, and a mix model\'s prefixed level names', () => {
    expect(() => checkBudgetLevels(budget, ['c1'], 'b.json')).not.toThrow();
    expect(() => checkBudgetLevels(only(['c3', 'c1']), ['c1', 'c2'], 'b.json')).not.toThrow();
    expect(() => checkBudgetLevels(only(['c2']), ['mnist__c2'], 'b.json')).not.toThrow();
    expect(() => checkBudgetLevels(only(['c3']), ['mnist__c2'], 'b.json')).toThrow('(c2)');
  });
});
