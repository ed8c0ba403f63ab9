/**
 * Per-level server metrics from synthetic Prometheus scrapes: counter deltas between the scrapes that
 * bound the window, one model's series only, gauges averaged, counter resets, and the text parser's output.
 */
import { describe, expect, it } from 'vitest';
import { nvSamples } from '../../measure/core/metrics-scrape.ts';
import { type MetricsScrape, serverMetricsFor } from '../../lib/summary/server-metrics.ts';
import { countsNote, failuresNote, serverMetricsTable } from '../../report/markdown.ts';
import { level } from './fixture.ts';

/** A scrape at t_ms with mnist's counters at n requests (10 µs queue, 100 µs infer each) and a CPU gauge. */
function scrape(t_ms: number, n: number, cpu: number, other = 0): MetricsScrape {
  const m = { model: 'mnist', version: '1' };
  const o = { model: 'other', version: '1' };
  return {
    t_ms,
    samples: [
      { name: 'nv_inference_request_success', labels: m, value: n },
      { name: 'nv_inference_request_success', labels: o, value: other },
      { name: 'nv_inference_request_failure', labels: { ...m, reason: 'BACKEND' }, value: 1 },
      { name: 'nv_inference_count', labels: m, value: n * 4 },
      { name: 'nv_inference_queue_duration_us', labels: m, value: n * 10 },
      { name: 'nv_inference_compute_infer_duration_us', labels: m, value: n * 100 },
      { name: 'nv_cpu_utilization', labels: {}, value: cpu },
      { name: 'nv_cpu_memory_used_bytes', labels: {}, value: 2 ** 30 + t_ms },
    ],
  };
}

describe('serverMetricsFor', () => {
  const scrapes = [
    scrape(900, 5, 0.1),
    scrape(1500, 50, 0.3),
    scrape(2100, 105, 0.5, 7),
    scrape(3200, 200, 0.9),
  ];

  it('differences counters between the scrapes bounding the window, for the named model', () => {
    const m = serverMetricsFor(scrapes, 1000, 2000, 'mnist')!;
    // Bounded by 900 (last before the start) and 2100 (first after the end).
    expect(m.interval_s).toBeCloseTo(1.2);
    expect(m.request_success).toBe(100);
    expect(m.request_failure).toBe(0);
    expect(m.inference_count).toBe(400);
    expect(m.avg_queue_us).toBeCloseTo(10);
    expect(m.avg_compute_infer_us).toBeCloseTo(100);
    expect(m.scrapes).toBe(3);
    expect(m.cpu_utilization_avg_pct).toBeCloseTo(30);
    expect(m.cpu_memory_used_max_bytes).toBe(2 ** 30 + 2100);
    expect(m.gpu_utilization_avg_pct).toBeUndefined();
  });

  it('sums every model without a model name', () => {
    expect(serverMetricsFor(scrapes, 1000, 2000)!.request_success).toBe(107);
  });

  it('takes a counter that went down as reset', () => {
    const reset = [scrape(0, 500, 0), scrape(1000, 30, 0)];
    expect(serverMetricsFor(reset, 0, 1000, 'mnist')!.request_success).toBe(30);
  });

  it('gives nothing without two scrapes around the window or without Triton counters', () => {
    expect(serverMetricsFor([scrape(900, 5, 0)], 1000, 2000)).toBeUndefined();
    const gaugesOnly = scrapes.map((s) => ({
      ...s,
      samples: s.samples.filter((x) => x.name.startsWith('nv_cpu')),
    }));
    expect(serverMetricsFor(gaugesOnly, 1000, 2000)).toBeUndefined();
  });

  it('rejects an empty window with a one-line error', () => {
    expect(() => serverMetricsFor(scrapes, 2000, 2000)).toThrow(/^invalid window; reason/);
  });
});

describe('nvSamples', () => {
  it("keeps Triton's counters and gauges from a text exposition, labels included", () => {
    const text = [
      '# HELP nv_inference_request_success Number of successful inference requests',
      '# TYPE nv_inference_request_success counter',
      'nv_inference_request_success{model="mnist",version="1"} 42',
      '# TYPE nv_gpu_utilization gauge',
      'nv_gpu_utilization{gpu_uuid="GPU-1"} 0.25',
      '# TYPE process_cpu_seconds_total counter',
      'process_cpu_seconds_total 3',
      '',
    ].join('\n');
    expect(nvSamples(text)).toEqual([
      { name: 'nv_inference_request_success', labels: { model: 'mnist', version: '1' }, value: 42 },
      { name: 'nv_gpu_utilization', labels: { gpu_uuid: 'GPU-1' }, value: 0.25 },
    ]);
  });
});

describe('serverMetricsTable', () => {
  it('is empty without metrics and names each level with them', () => {
    expect(serverMetricsTable([])).toBe('');
    const m = serverMetricsFor([scrape(0, 0, 0.5), scrape(1000, 20, 0.5)], 0, 1000, 'mnist')!;
    const md = serverMetricsTable([{ name: 'c1', server_metrics: m } as never]);
    expect(md).toContain('## Server metrics');
    expect(md).toMatch(/\| c1 \| 20 \| 0 \| 80 \| n\/a \| 0\.010 \| 0\.100 \| n\/a \| n\/a \| 50\.0 \|/);
  });
});

describe('Prometheus against the server statistics', () => {
  // 1,000 requests a second; the scrapes (every 0.5 s) bound the 5 s window from 0.3 s before to 0.2 s after.
  const scrapes = [-500, 0, 500, 1000, 4500, 5000, 5500].map((t) => scrape(t - 300, t + 300, 0.5));
  const m = serverMetricsFor(scrapes, 0, 5000, 'mnist')!;

  it('explains in one line why the counts differ: the scrapes around the window add its edges', () => {
    const result = level({
      level: 1,
      throughput_infer_s: 1000,
      window_s: 5,
      server_metrics: m,
      server: { ...level({ level: 1, throughput_infer_s: 1 }).server!, request_count: 5000 },
    });
    const note = countsNote(result)!;
    expect(note).toBe(
      "c1: Prometheus counted 5,500 requests over 5.5 s (the scrapes around the 5 s window add its edges), the server's statistics 5,000 over the window itself: 1,000/s against 1,000/s",
    );
    expect(serverMetricsTable([result])).toContain(`- ${note}`);
  });

  it('says nothing when they agree', () => {
    const same = level({
      level: 1,
      throughput_infer_s: 1000,
      server_metrics: { ...m, request_success: 4999, request_failure: 1 },
      server: { ...level({ level: 1, throughput_infer_s: 1 }).server!, request_count: 5000 },
    });
    expect(countsNote(same)).toBeUndefined();
    expect(serverMetricsTable([same])).not.toContain('Prometheus counted');
  });
});

describe('failed requests the level did not see', () => {
  const m = serverMetricsFor([scrape(0, 0, 0.5), scrape(1000, 20, 0.5)], 0, 1000, 'mnist')!;

  it('says in one line where they come from when the level saw no error', () => {
    const result = level({
      level: 1,
      throughput_infer_s: 8,
      window_s: 1,
      server_metrics: { ...m, request_failure: 1 },
    });
    const note = failuresNote(result)!;
    expect(note).toMatch(
      /^c1: the server counted 1 failed request the level did not see: .*reason CANCELED\)$/,
    );
    expect(serverMetricsTable([result])).toContain(`- ${note}`);
  });

  it('says nothing when the server counted none, or the level saw errors of its own', () => {
    expect(failuresNote(level({ level: 1, throughput_infer_s: 8, server_metrics: m }))).toBeUndefined();
    const failing = level({ level: 1, throughput_infer_s: 8, server_metrics: { ...m, request_failure: 3 } });
    expect(failuresNote({ ...failing, errors: 2 })).toBeUndefined();
  });
});
