/** The sample pipeline records deferred samples after the current turn, and all of them before the summary. */
import { describe, expect, it } from 'vitest';
import { SamplePipeline, type SampleOutput } from '../src/metrics/pipeline.ts';
import { type CounterSink, type Metric, MetricRegistry } from '../src/metrics/registry.ts';
import type { Sample, Tags } from '../src/vu-context.ts';

const TAGS = { scenario: 'default', group: '' };

function count(registry: MetricRegistry, name: string): number {
  return (registry.get(name)!.sink as CounterSink).sum;
}

/** Samples of `n` requests, made when the pipeline gets to them; `made` counts the calls. */
function requestsOf(made: { calls: number }) {
  return (n: number): Sample[] => {
    made.calls++;
    return Array.from({ length: n }, () => ({ metric: 'http_reqs', value: 1, tags: TAGS }));
  };
}

describe('SamplePipeline.defer', () => {
  it('makes and records the samples after the current turn, in one pass', async () => {
    const registry = new MetricRegistry();
    const pipeline = new SamplePipeline(registry);
    const made = { calls: 0 };
    pipeline.defer(requestsOf(made), 2);
    pipeline.defer(requestsOf(made), 3);
    expect(made.calls).toBe(0);
    expect(count(registry, 'http_reqs')).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(made.calls).toBe(2);
    expect(count(registry, 'http_reqs')).toBe(5);
  });

  it('records what is still deferred when it closes, and nothing after', async () => {
    const registry = new MetricRegistry();
    const pipeline = new SamplePipeline(registry);
    pipeline.defer(requestsOf({ calls: 0 }), 4);
    await pipeline.close();
    expect(count(registry, 'http_reqs')).toBe(4);
    pipeline.defer(requestsOf({ calls: 0 }), 1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(count(registry, 'http_reqs')).toBe(4);
  });

  it('gives outputs the time a sample was deferred, not the time it was made', async () => {
    const times: number[] = [];
    const output: SampleOutput = {
      sample: (_m: Metric, _v: number, _t: Tags, time_ms: number) => void times.push(time_ms),
      close: async () => {},
    };
    const pipeline = new SamplePipeline(new MetricRegistry(), [output]);
    // The pipeline's own clock (timeOrigin + performance.now()): Date.now() drifts from it by a few ms.
    const now = () => performance.timeOrigin + performance.now();
    const before = now();
    pipeline.defer(requestsOf({ calls: 0 }), 1);
    const after = now();
    // The samples are made 30 ms later, before the event loop turns.
    while (now() < after + 30) {}
    pipeline.flush();
    expect(times).toHaveLength(1);
    expect(times[0]).toBeGreaterThanOrEqual(before);
    expect(times[0]).toBeLessThanOrEqual(after);
  });
});
