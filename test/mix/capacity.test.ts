/** capacity --mix on synthetic mixes: the tightest model's share of its budget drives the search; one sentence answers. */
import { describe, expect, it } from 'vitest';
import type { LevelResult } from '../../lib/summary/types.ts';
import { misses, nextStep, type SearchConfig, type Trial } from '../../measure/capacity/search.ts';
import { MIX_BUDGET, MIX_CAPACITY_DEFAULTS, mixMeasurement } from '../../measure/mix/mix-capacity.ts';
import { mixCapacitySentence, mixLimitWords, missWords } from '../../measure/mix/capacity-words.ts';
import { parseMix } from '../../measure/mix/file.ts';
import { type MixResult, mixResult } from '../../measure/mix/mix-summary.ts';
import { level, report } from '../report/fixture.ts';

const MIX = parseMix(
  JSON.stringify({
    total_rate: 400,
    models: [
      { model: 'bert-base', share: 70 },
      { model: 'resnext101-32x4d', share: 30 },
    ],
  }),
  '/mixes/pair.json',
);
const LIMITS = {
  'bert-base': { p95_ms: 100, p99_ms: 150, error_rate: 0.01 },
  'resnext101-32x4d': { p95_ms: 150, p99_ms: 200, error_rate: 0.01 },
};

/** A model's level at `rate` req/s over a 5 s window with these p95 and p99 (ms) and errors. */
function measured(rate: number, p95_ms: number, p99_ms: number, errors = 0): LevelResult {
  const requests = Math.round(rate * 5);
  return level({
    mode: 'request-rate',
    level: rate,
    name: `r${rate}`,
    requests,
    errors,
    throughput_infer_s: (requests - errors) / 5,
    latency_us: { avg: 1, p50: 1, p90: 1, p95: p95_ms * 1000, p99: p99_ms * 1000, min: 1, max: 1 },
    budgets: [{ metric: 'http_req_duration', expr: 'p(95)<1', ok: true, measured: p95_ms }],
  });
}

/**
 * The mix at a scale on a server where bert-base's p95 is 40 ms + 0.15 ms per total req/s and resnext's
 * 60 ms + 0.2 ms: resnext reaches its 150 ms at 450 req/s in all (112.5%), bert-base its 100 ms at 400.
 */
function mixAt(percent: number): MixResult {
  const total = 4 * percent;
  const [bert, resnext] = [0.7 * total, 0.3 * total];
  const bertP95 = 40 + 0.15 * total;
  const resnextP95 = 60 + 0.2 * total;
  return mixResult(MIX, percent, [
    {
      id: 'bert-base',
      load: { mode: 'request-rate', level: bert },
      limits: LIMITS['bert-base'],
      report: report([measured(bert, bertP95, bertP95 + 10)]),
    },
    {
      id: 'resnext101-32x4d',
      load: { mode: 'request-rate', level: resnext },
      limits: LIMITS['resnext101-32x4d'],
      report: report([measured(resnext, resnextP95, resnextP95 + 10)]),
    },
  ]);
}

describe('mixMeasurement', () => {
  it("is the tightest model's p95, p99 and error rate as a share of its own budget", () => {
    const m = mixMeasurement(mixAt(50));
    // bert-base: 70/100 = 70%; resnext: 100/150 = 66.7%.
    expect(m.p95_ms).toBeCloseTo(70, 6);
    // p99: bert 80/150 = 53.3%, resnext 110/200 = 55%.
    expect(m.p99_ms).toBeCloseTo(55, 6);
    expect(m.error_rate).toBe(0);
    expect(m.level).toBe(50);
    expect(misses(m, MIX_BUDGET)).toEqual([]);
    expect(misses(mixMeasurement(mixAt(150)), MIX_BUDGET)).toEqual(['p95']);
    expect(misses(mixMeasurement(mixAt(200)), MIX_BUDGET)).toEqual(['p95', 'p99']);
  });

  it('counts errors against each budget, and a model with no result as a miss', () => {
    const result = mixAt(10);
    const withErrors: MixResult = {
      ...result,
      models: result.models.map((m, i) =>
        i === 0 ? { ...m, result: { ...m.result!, requests: 100, errors: 2 } } : m,
      ),
    };
    expect(mixMeasurement(withErrors).error_rate).toBeCloseTo(2, 6);
    expect(misses(mixMeasurement(withErrors), MIX_BUDGET)).toEqual(['errors']);
    const missing: MixResult = {
      ...result,
      models: [result.models[0]!, { ...result.models[1]!, result: undefined }],
    };
    expect(misses(mixMeasurement(missing), MIX_BUDGET)).toEqual(['p95', 'p99', 'errors']);
  });
});

describe('capacity of a mix', () => {
  it('scales the whole mix to the highest total within every budget and says it in one sentence', () => {
    const config: SearchConfig = {
      mode: 'request-rate',
      budget: MIX_BUDGET,
      start: MIX_CAPACITY_DEFAULTS.start,
      max: MIX_CAPACITY_DEFAULTS.max,
      resolution: MIX_CAPACITY_DEFAULTS.resolution,
    };
    const trials: Trial[] = [];
    const seen = new Map<number, MixResult>();
    for (;;) {
      const step = nextStep(config, trials);
      if (step.kind === 'done') {
        const { answer } = step;
        // bert-base's p95 reaches 100 ms at 400 req/s in all: 100%, within the 5% resolution.
        expect(answer.level).not.toBeNull();
        expect(answer.level!).toBeGreaterThan(90);
        expect(answer.level!).toBeLessThan(100);
        const best = seen.get(answer.level!);
        const above = answer.above ? seen.get(answer.above.level) : undefined;
        const sentence = mixCapacitySentence('pair', best, above, answer.limit_detail);
        expect(sentence).toMatch(
          /^The mix pair holds [\d.,]+ requests\/s in total \(bert-base [\d.,]+, resnext101-32x4d [\d.,]+\) within every model's budget, at [\d.]+% of its file's loads; at [\d.]+% \([\d.,]+ requests\/s\) bert-base's p95 [\d.]+ ms \(budget 100 ms\)/,
        );
        expect(sentence.split('\n')).toHaveLength(1);
        return;
      }
      const result = mixAt(step.level);
      seen.set(step.level, result);
      trials.push({ purpose: step.purpose, reason: step.reason, measurement: mixMeasurement(result) });
      expect(trials.length).toBeLessThan(40);
    }
  });

  it('says so when no scale is within every budget', () => {
    const above = mixAt(200);
    expect(mixCapacitySentence('pair', undefined, above, 'x')).toMatch(
      /^The mix pair holds no load within every model's budget: at 200% \(800 requests\/s\) bert-base's p95 160 ms \(budget 100 ms\) and bert-base's p99 170 ms \(budget 150 ms\) and resnext101-32x4d's p95 220 ms/,
    );
    expect(missWords(mixAt(10).models[0]!)).toEqual([]);
  });

  it("words the search's limit in the mix's percent", () => {
    const config = { max: 400, maxTrials: 6 };
    const detail = { limit_detail: 'the search detail' };
    expect(mixLimitWords({ ...detail, limit: 'ceiling' }, config, [])).toBe(
      "the search's ceiling, 400% (raise --max to search higher)",
    );
    expect(mixLimitWords({ ...detail, limit: 'trials' }, config, [])).toBe(
      'the number of measurements: all 6 were used (raise --max-levels to search on)',
    );
    expect(mixLimitWords({ ...detail, limit: 'generator' }, config, [mixAt(50), mixAt(100)])).toMatch(
      /^the load generator \(bound at 50% and 100%\); the server may hold more/,
    );
    expect(mixLimitWords({ ...detail, limit: 'budget' }, config, [])).toBe('the search detail');
  });
});
