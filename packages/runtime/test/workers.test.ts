/** Several workers' pieces: the segment plan, the test-wide indexes, and the exact merge of their metrics. */
import { describe, expect, it } from 'vitest';
import { newRootGroup } from '../src/groups.ts';
import { TrendHistogram } from '../src/metrics/histogram.ts';
import { type CounterSink, type GaugeSink, MetricRegistry, type RateSink } from '../src/metrics/registry.ts';
import { ExecutionTuple, parseSegment, parseSequence } from '../src/options/segment.ts';
import { Coordinator } from '../src/workers/coordinator.ts';
import { absorbSnapshot, mergeSnapshots, type RunSnapshot, snapshotOf } from '../src/workers/merge.ts';
import { mergeLive, type WorkerPart } from '../src/workers/live.ts';
import type { PeerCommand } from '../src/workers/messages.ts';
import { defaultWorkers, effectiveWorkers, requestedWorkers, workerSegment } from '../src/workers/plan.ts';

/** A registry with `values` recorded, as one worker's snapshot. */
function worker(fill: (r: MetricRegistry) => void): RunSnapshot {
  const registry = new MetricRegistry();
  const rootGroup = newRootGroup();
  fill(registry);
  return snapshotOf({ registry, rootGroup, sections: null, markedFailed: false });
}

/** Deterministic pseudo-random latencies (ms) over several orders of magnitude. */
function latencies(seed: number, n: number): number[] {
  let x = seed;
  return Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return (x / 2 ** 31) ** 3 * 5000 + 0.001;
  });
}

/** p(95) of the values as one trend records them. */
function expectedSub(values: number[]): number {
  const h = new TrendHistogram();
  for (const v of values) h.add(v);
  return h.percentile(95);
}

describe('worker plan', () => {
  it('gives N workers the segments of one sequence 0,1/N,...,1', () => {
    expect(workerSegment(0, 2)).toEqual({ executionSegment: '0:1/2', executionSegmentSequence: '0,1/2,1' });
    expect(workerSegment(2, 3)).toEqual({
      executionSegment: '2/3:1',
      executionSegmentSequence: '0,1/3,2/3,1',
    });
  });

  it('defaults to the cores less the reserved ones, 1 under vitest, never more than the peak VUs', () => {
    expect(defaultWorkers({}, 16)).toBe(16);
    expect(defaultWorkers({ K6_TRITON_RESERVED_CORES: '1' }, 16)).toBe(15);
    expect(defaultWorkers({ K6_TRITON_RESERVED_CORES: '4' }, 2)).toBe(1);
    expect(defaultWorkers({ K6_TRITON_RESERVED_CORES: '0' }, 2)).toBe(2);
    expect(() => defaultWorkers({ K6_TRITON_RESERVED_CORES: 'one' }, 2)).toThrow(
      'K6_TRITON_RESERVED_CORES: expected a whole number of cores >= 0, got "one"',
    );
    expect(defaultWorkers({ VITEST: 'true' }, 16)).toBe(1);
    expect(requestedWorkers(undefined, { K6_TRITON_WORKERS: '3', VITEST: 'true' })).toBe(3);
    expect(requestedWorkers(2, { K6_TRITON_WORKERS: '3' })).toBe(2);
    expect(() => requestedWorkers(undefined, { K6_TRITON_WORKERS: 'many' })).toThrow(
      'K6_TRITON_WORKERS: expected a whole number of worker threads >= 1, got "many"',
    );
    expect(effectiveWorkers(8, 3)).toBe(3);
    expect(effectiveWorkers(8, 0)).toBe(1);
  });

  it("maps each segment's local indexes onto disjoint test-wide ones that cover the test (k6's SegmentedIndex)", () => {
    for (const seq of ['0,1/2,1', '0,1/3,2/3,1', '0,1/4,3/4,1']) {
      const segments = parseSequence(seq);
      const seen: number[] = [];
      for (const s of segments) {
        const t = ExecutionTuple.of(
          parseSegment(`${s.from.num}/${s.from.den}:${s.to.num}/${s.to.den}`),
          segments,
        );
        const share = t.scale(12);
        for (let k = 0; k < share; k++) {
          const g = t.globalIndex(k);
          expect(t.owns(g)).toBe(true);
          seen.push(g);
        }
      }
      expect(seen.sort((a, b) => a - b)).toEqual([...Array(12).keys()]);
    }
  });
});

describe('merging workers metrics', () => {
  it('merges two HDR trends into the histogram one trend fed every value gives, min/max/sum/count exact', () => {
    const a = latencies(1, 5000);
    const b = latencies(2, 3000);
    const merged = new MetricRegistry();
    for (const snap of [
      worker((r) => {
        for (const v of a) r.get('http_req_duration')!.add(v, { expected_response: 'true' });
      }),
      worker((r) => {
        for (const v of b) r.get('http_req_duration')!.add(v, {});
      }),
    ])
      absorbSnapshot({ registry: merged, rootGroup: newRootGroup() }, snap);
    const one = new TrendHistogram();
    for (const v of [...a, ...b]) one.add(v);
    const m = merged.get('http_req_duration')!.sink as TrendHistogram;
    expect(m.count).toBe(one.count);
    expect(m.min).toBe(one.min);
    expect(m.max).toBe(one.max);
    expect(m.sum).toBeCloseTo(one.sum, 6);
    for (const p of [0, 1, 50, 90, 95, 99, 99.9, 100]) expect(m.percentile(p)).toBe(one.percentile(p));
    // The sub-metric k6 always has came along too.
    const sub = merged.submetric('http_req_duration{expected_response:true}').sink as TrendHistogram;
    expect(sub.count).toBe(a.length);
    expect(sub.percentile(95)).toBe(expectedSub(a));
  });

  it('sums counters and rates (numerator and denominator), checks per group; sums vus, keeps the latest other gauge', () => {
    const a = worker((r) => {
      r.get('iterations')!.add(3, {});
      r.get('checks')!.add(1, {});
      r.get('checks')!.add(0, {});
      r.get('vus')!.add(2, {});
      r.define('level', 'gauge').add(7, {});
    });
    a.checks.push({ group: '::g', name: 'ok', passes: 1, fails: 1 });
    a.groups.push('::g');
    const b = worker((r) => {
      r.get('iterations')!.add(4, {});
      r.get('checks')!.add(1, {});
      r.get('vus')!.add(3, {});
    });
    // The second worker's gauge value is the later one.
    const later = worker((r) => r.define('level', 'gauge').add(5, {}));
    later.metrics.find((m) => m.name === 'level')!.sink = {
      kind: 'gauge',
      value: 5,
      min: 5,
      max: 5,
      time_ms: Date.now() + 1000,
    };
    b.metrics.push(later.metrics.find((m) => m.name === 'level')!);
    b.checks.push({ group: '::g', name: 'ok', passes: 2, fails: 0 });
    b.groups.push('::g');
    b.markedFailed = true;
    const merged = mergeSnapshots([a, b]);
    const registry = new MetricRegistry();
    const rootGroup = newRootGroup();
    expect(absorbSnapshot({ registry, rootGroup }, merged)).toBe(true);
    expect((registry.get('iterations')!.sink as CounterSink).sum).toBe(7);
    const checks = registry.get('checks')!.sink as RateSink;
    expect([checks.passes, checks.total]).toEqual([2, 3]);
    const vus = registry.get('vus')!.sink as GaugeSink;
    expect([vus.value, vus.min, vus.max]).toEqual([5, 5, 5]);
    const level = registry.get('level')!.sink as GaugeSink;
    expect([level.value, level.min, level.max]).toEqual([5, 5, 7]);
    const ok = rootGroup.groups.get('g')!.checks.get('ok')!;
    expect([ok.passes, ok.fails]).toEqual([3, 1]);
  });
});

describe('the supervisor routing several workers', () => {
  /** A coordinator over fake workers: what it starts and what each worker is sent. */
  function fake(requested: number) {
    const started: number[] = [];
    const sent = new Map<number, PeerCommand[]>();
    const c = new Coordinator(requested, {
      start: (i) => {
        started.push(i);
        sent.set(i, []);
      },
      send: (i, m) => sent.get(i)!.push(m),
      indexes: () => [...sent.keys()],
    });
    sent.set(0, []);
    return { c, started, sent };
  }

  it('starts no more workers than the peak VUs and routes setup, outputs, aborts and metrics', async () => {
    const { c, started, sent } = fake(4);
    c.route(0, { type: 'plan', maxVus: 3 });
    expect(started).toEqual([1, 2]);
    expect(sent.get(0)).toEqual([{ type: 'workers', count: 3 }]);
    c.route(1, { type: 'ready' });
    expect(sent.get(0)).toHaveLength(1);
    c.route(2, { type: 'ready' });
    expect(sent.get(0)![1]).toEqual({ type: 'peers-ready' });
    c.route(0, { type: 'setup-done', ok: true, json: '{"a":1}' });
    expect(sent.get(1)).toEqual([{ type: 'setup-done', ok: true, json: '{"a":1}' }]);
    expect(sent.get(2)).toEqual([{ type: 'setup-done', ok: true, json: '{"a":1}' }]);
    c.route(2, { type: 'output', index: 0, chunk: ['line\n'] });
    expect(sent.get(0)![2]).toEqual({ type: 'peer-output', index: 0, chunk: ['line\n'] });
    c.route(1, { type: 'abort', code: 108, reason: 'enough' });
    expect(sent.get(0)![3]).toEqual({ type: 'abort', code: 108, reason: 'enough' });
    expect(sent.get(2)!.at(-1)).toEqual({ type: 'abort', code: 108, reason: 'enough' });
    expect(sent.get(1)!.some((m) => m.type === 'abort')).toBe(false);

    const counted = (n: number) => worker((r) => r.get('iterations')!.add(n, {}));
    c.route(1, { type: 'snapshot', snapshot: counted(2), final: true });
    expect(c.finished(1)).toBe(true);
    expect(sent.get(0)![4]).toMatchObject({ type: 'peer-snapshot', from: 1, final: true });
    c.route(2, { type: 'snapshot', snapshot: counted(3), final: false });
    // A finished worker's final metrics stand for it in the REST API's merged view (workers/live.ts).
    expect(c.final(1)?.metrics.find((m) => m.name === 'iterations')?.sink).toEqual({
      kind: 'counter',
      sum: 2,
    });
    expect(c.final(2)).toBeUndefined();
  });
});

describe("the REST API's merged view (workers/live.ts)", () => {
  const counted = (n: number) => worker((r) => r.get('iterations')!.add(n, {}));
  const part = (n: number, vus: number, peersMerged = false): WorkerPart => ({
    snapshot: {
      status: {
        status: 7,
        paused: false,
        vus,
        'vus-max': vus,
        stopped: false,
        running: true,
        tainted: false,
      },
      metrics: [],
      groups: [],
      setupJson: '{"a":1}',
    },
    share: {
      run: counted(n),
      thresholds: { iterations: ['count<5'] },
      elapsed_ms: 1000,
      peersMerged,
    },
  });
  const iterations = (s: ReturnType<typeof mergeLive>) => s.metrics.find((m) => m.id === 'iterations');

  it('sums the workers, counts an ended one by its final metrics, and judges thresholds on the sum', () => {
    const live = mergeLive([part(3, 2), part(1, 1)], () => undefined);
    expect(live.status).toMatchObject({ vus: 3, 'vus-max': 3, tainted: false, status: 7 });
    expect(iterations(live)).toMatchObject({ tainted: false, sample: { count: 4, rate: 4 } });
    expect(live.setupJson).toBe('{"a":1}');
    const ended = mergeLive([part(3, 2), part(1, 1)], (i) => (i === 1 ? counted(4) : undefined));
    expect(iterations(ended)).toMatchObject({ tainted: true, sample: { count: 7 } });
    expect(ended.status.tainted).toBe(true);
  });

  it("takes the first worker's metrics alone once it absorbed the others' (no double count)", () => {
    const live = mergeLive([part(4, 0, true), part(1, 0)], () => counted(1));
    expect(iterations(live)?.sample).toMatchObject({ count: 4 });
  });
});
