/**
 * Triton's nv_inference_* counters are plain numbers folded into prom-client when /metrics is read: what a scrape
 * shows must equal what per-request increments of each rounded duration gave.
 */
import { describe, expect, it } from 'vitest';
import { type FailureReason, ServerMetrics } from '../src/metrics.ts';
import type { RequestTimes } from '../src/stats.ts';

/** The value of one series in the exposition text, or undefined when it is absent. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Request times with odd sub-microsecond parts, so that rounding per request matters. */
function times(i: number): RequestTimes {
  const start = 1_000_000 + i * 7919;
  return {
    request_start_ns: start,
    queue_start_ns: start + 501 + (i % 3) * 333,
    compute_start_ns: start + 2_499 + i * 17,
    compute_input_end_ns: start + 3_750 + i * 29,
    compute_output_start_ns: start + 41_501 + i * 131,
    compute_end_ns: start + 42_499 + i * 137,
    request_end_ns: start + 45_500 + i * 149,
  };
}

describe('ServerMetrics counters', () => {
  it('show the sums of the per-request rounded figures, failures kept past an unload', async () => {
    const metrics = new ServerMetrics(() => []);
    const m = metrics.forModel('mnist', '1');
    const us = (ns: number) => Math.round(ns / 1000);
    const expected = { success: 0, count: 0, exec: 0, request: 0, queue: 0, input: 0, infer: 0, output: 0 };
    for (let i = 0; i < 250; i++) {
      const t = times(i);
      const batch = 1 + (i % 4);
      m.success(batch, t);
      m.execution();
      expected.success += 1;
      expected.count += batch;
      expected.exec += 1;
      expected.request += us(t.request_end_ns - t.request_start_ns);
      expected.queue += us(t.compute_start_ns - t.queue_start_ns);
      expected.input += us(t.compute_input_end_ns - t.compute_start_ns);
      expected.infer += us(t.compute_output_start_ns - t.compute_input_end_ns);
      expected.output += us(t.compute_end_ns - t.compute_output_start_ns);
    }
    const reasons: FailureReason[] = [
      'REJECTED',
      'CANCELED',
      'CANCELED',
      'BACKEND',
      'OTHER',
      'OTHER',
      'OTHER',
    ];
    for (const [i, reason] of reasons.entries()) {
      m.failure(1_499 + i * 1_001, reason);
      expected.request += us(1_499 + i * 1_001);
    }
    const labels = 'model="mnist",version="1"';
    const text = await metrics.registry.metrics();
    expect(sample(text, 'nv_inference_request_success', labels)).toBe(expected.success);
    expect(sample(text, 'nv_inference_count', labels)).toBe(expected.count);
    expect(sample(text, 'nv_inference_exec_count', labels)).toBe(expected.exec);
    expect(sample(text, 'nv_inference_request_duration_us', labels)).toBe(expected.request);
    expect(sample(text, 'nv_inference_queue_duration_us', labels)).toBe(expected.queue);
    expect(sample(text, 'nv_inference_compute_input_duration_us', labels)).toBe(expected.input);
    expect(sample(text, 'nv_inference_compute_infer_duration_us', labels)).toBe(expected.infer);
    expect(sample(text, 'nv_inference_compute_output_duration_us', labels)).toBe(expected.output);
    const failed = (reason: string) =>
      sample(text, 'nv_inference_request_failure', `model="mnist",reason="${reason}",version="1"`);
    expect([failed('REJECTED'), failed('CANCELED'), failed('BACKEND'), failed('OTHER')]).toEqual([
      1, 2, 1, 3,
    ]);
    // A second read shows the same figures (the fold replaces, never adds).
    const counters = (t: string) => t.split('\n').filter((l) => l.startsWith('nv_inference_'));
    expect(counters(await metrics.registry.metrics())).toEqual(counters(text));

    metrics.removeModel('mnist', '1');
    const unloaded = await metrics.registry.metrics();
    expect(sample(unloaded, 'nv_inference_request_success', labels)).toBeUndefined();
    expect(sample(unloaded, 'nv_inference_request_failure', 'model="mnist",reason="OTHER",version="1"')).toBe(
      3,
    );

    // Loaded again: its counters start at zero, its failures go on.
    const again = metrics.forModel('mnist', '1');
    again.failure(2_000, 'OTHER');
    const reloaded = await metrics.registry.metrics();
    expect(sample(reloaded, 'nv_inference_request_success', labels)).toBe(0);
    expect(sample(reloaded, 'nv_inference_request_duration_us', labels)).toBe(2);
    expect(sample(reloaded, 'nv_inference_request_failure', 'model="mnist",reason="OTHER",version="1"')).toBe(
      4,
    );
  });
});
