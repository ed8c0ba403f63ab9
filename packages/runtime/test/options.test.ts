/** Option consolidation as k6 does it: shortcuts, scenario defaults, CLI overrides and validation. */
import { describe, expect, it } from 'vitest';
import { consolidateOptions } from '../src/options/index.ts';
import { setLogSink } from '../src/log.ts';
import { parseDuration_ms } from '@k6-triton/lib/duration.ts';

describe('options', () => {
  it.each([
    ['30s', 30_000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['1.5h', 5_400_000],
    ['10us', 0.01],
    [250, 250],
    ['2d', 172_800_000],
    // A bare number is milliseconds, as real k6 reads `duration: '1500'` (1.5 s).
    ['1500', 1500],
  ] as const)('parses the duration %s', (v, ms) => {
    expect(parseDuration_ms(v, 'x')).toBeCloseTo(ms);
  });

  it('rejects a malformed duration, naming the option', () => {
    expect(() => parseDuration_ms('5 minutes', 'duration')).toThrow(
      'invalid duration for duration: "5 minutes"',
    );
  });

  it('turns shortcuts into the "default" scenario with k6 defaults', () => {
    expect(consolidateOptions({}).scenarios[0]).toMatchObject({
      name: 'default',
      executor: 'per-vu-iterations',
      vus: 1,
      iterations: 1,
      gracefulStop_ms: 30_000,
      maxDuration_ms: 600_000,
    });
    expect(consolidateOptions({ vus: 5, duration: '10s' }).scenarios[0]).toMatchObject({
      executor: 'constant-vus',
      vus: 5,
    });
    expect(consolidateOptions({ stages: [{ duration: '1s', target: 3 }] }).scenarios[0]).toMatchObject({
      executor: 'ramping-vus',
      startVUs: 1,
    });
    expect(consolidateOptions({ vus: 2, iterations: 8, duration: '5s' }).scenarios[0]).toMatchObject({
      executor: 'shared-iterations',
      iterations: 8,
      maxDuration_ms: 5000,
    });
  });

  it('lets CLI shortcuts replace the script scenarios, as k6 does', () => {
    const script = { scenarios: { a: { executor: 'constant-vus', vus: 1, duration: '1m' } } };
    const o = consolidateOptions(script, { vus: 3, duration: '2s' });
    expect(o.scenarios).toHaveLength(1);
    expect(o.scenarios[0]).toMatchObject({
      name: 'default',
      executor: 'constant-vus',
      vus: 3,
      duration_ms: 2000,
    });
    expect(consolidateOptions({ vus: 4, duration: '1m' }, { iterations: 10 }).scenarios[0]).toMatchObject({
      executor: 'shared-iterations',
      vus: 4,
      iterations: 10,
    });
  });

  it('runs one iteration per VU when only vus is set, overriding scenarios with a warning, as k6 does', () => {
    const warned: string[] = [];
    const prev = setLogSink((line) => warned.push(line));
    try {
      expect(consolidateOptions({}, { vus: 3 }).scenarios[0]).toMatchObject({
        executor: 'shared-iterations',
        vus: 3,
        iterations: 3,
      });
      const script = { vus: 2, scenarios: { a: { executor: 'per-vu-iterations', iterations: 5 } } };
      expect(consolidateOptions(script).scenarios).toMatchObject([
        { name: 'default', executor: 'shared-iterations', vus: 2, iterations: 2 },
      ]);
      expect(warned.join('')).toContain('`vus=2` overrides scenarios configuration');
      expect(consolidateOptions({ vus: 2, stages: [] }).scenarios[0]).toMatchObject({
        executor: 'per-vu-iterations',
        vus: 1,
        iterations: 1,
      });
      expect(warned.join('')).toContain('`stages` was explicitly set to an empty value');
    } finally {
      setLogSink(prev);
    }
  });

  it.each([
    [
      { iterations: 2, scenarios: {} },
      'using `iterations` and `scenarios` options simultaneously is not allowed',
    ],
    [{ duration: '1s', stages: [{ duration: '1s', target: 1 }] }, 'using `duration` and `stages`'],
    [{ iterations: 2, stages: [{ duration: '1s', target: 1 }] }, 'using `iterations` and `stages`'],
    [{ stages: [{ duration: '1s', target: 1 }], scenarios: {} }, 'using `stages` and `scenarios`'],
    [{ duration: '0s' }, '`duration` option should be more than 0'],
  ])('rejects conflicting shortcuts as k6 does %#', (opts, msg) => {
    expect(() => consolidateOptions(opts)).toThrow(msg);
  });

  it('fills the defaults of arrival-rate executors', () => {
    const o = consolidateOptions({
      scenarios: { car: { executor: 'constant-arrival-rate', rate: 5, duration: '3s', preAllocatedVUs: 2 } },
    });
    expect(o.scenarios[0]).toMatchObject({ timeUnit_ms: 1000, maxVUs: 2, exec: 'default', startTime_ms: 0 });
  });

  it.each([
    [{ scenarios: { a: { executor: 'nope' } } }, 'unknown executor'],
    [{ scenarios: { a: { executor: 'constant-vus' } } }, 'a.duration: it is required'],
    [{ scenarios: { a: { executor: 'constant-vus', duration: '1s', rate: 3 } } }, '"rate" does not apply'],
    [{ scenarios: { a: { executor: 'ramping-arrival-rate', stages: [], preAllocatedVUs: 1 } } }, 'a.stages'],
    [{ scenarios: { a: { executor: 'externally-controlled' } } }, 'not supported by the Node runtime'],
    [{ vus: 5, iterations: 2 }, "can't be less than the number of VUs"],
    [{ summaryTrendStats: ['p(101)'] }, 'summaryTrendStats'],
    [{ summaryTimeUnit: 'h' }, 'summaryTimeUnit'],
  ])('rejects invalid configuration %#', (opts, msg) => {
    expect(() => consolidateOptions(opts)).toThrow(msg);
  });
});
