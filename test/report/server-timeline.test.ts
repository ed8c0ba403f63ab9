/**
 * The server metrics over time (report.html's server-metrics chart): one point per interval between
 * consecutive scrapes, per-request averages within it, the level whose window holds it, and the windows on
 * the same clock; the chart spec carries them.
 */
import { describe, expect, it } from 'vitest';
import type { MetricsScrape } from '../../lib/summary/server-metrics.ts';
import { serverTimeline } from '../../lib/summary/server-metrics.ts';
import { serverMetricsSpec } from '../../report/charts.ts';

/** mnist at n requests so far, each with `queue_us` queue and 100 µs infer; a CPU gauge; another model. */
function scrape(t_ms: number, n: number, queue_total_us: number, cpu: number): MetricsScrape {
  const m = { model: 'mnist', version: '1' };
  return {
    t_ms,
    samples: [
      { name: 'nv_inference_request_success', labels: m, value: n },
      { name: 'nv_inference_request_success', labels: { model: 'other', version: '1' }, value: 1000 + t_ms },
      { name: 'nv_inference_queue_duration_us', labels: m, value: queue_total_us },
      { name: 'nv_inference_compute_infer_duration_us', labels: m, value: n * 100 },
      { name: 'nv_cpu_utilization', labels: {}, value: cpu },
    ],
  };
}

describe('serverTimeline', () => {
  const scrapes = [
    scrape(10_000, 0, 0, 0.05),
    scrape(10_500, 50, 500, 0.4),
    scrape(11_000, 150, 2500, 0.8),
    scrape(11_500, 150, 2500, 0.1),
  ];
  const windows = [{ level: 'c1', from_ms: 10_000, to_ms: 11_000 }];

  it('gives one point per scrape interval, with rates, per-request averages and the level it belongs to', () => {
    const timeline = serverTimeline(scrapes, windows, 'mnist');
    expect(timeline.points.map((p) => p.t_s)).toEqual([0.5, 1, 1.5]);
    expect(timeline.points.map((p) => p.level)).toEqual(['c1', 'c1', undefined]);
    // 50 then 100 requests in 0.5 s, mnist only.
    expect(timeline.points.map((p) => p.requests_s)).toEqual([100, 200, 0]);
    expect(timeline.points.map((p) => p.avg_queue_us)).toEqual([10, 20, undefined]);
    expect(timeline.points[0]!.avg_compute_infer_us).toBe(100);
    expect(timeline.points.map((p) => p.cpu_utilization_pct)).toEqual([40, 80, 10]);
    expect(timeline.points[0]!.gpu_utilization_pct).toBeUndefined();
    expect(timeline.windows).toEqual([{ level: 'c1', from_s: 0, to_s: 1 }]);
  });

  it('is empty with fewer than two scrapes', () => {
    expect(serverTimeline(scrapes.slice(0, 1), windows)).toEqual({ points: [], windows: [] });
  });

  it('feeds the chart spec: queue and compute in ms, utilisation in %, the windows shaded', () => {
    const spec = JSON.stringify(
      serverMetricsSpec(serverTimeline(scrapes, windows, 'mnist'), { title: 'mnist' }),
    );
    expect(spec).toContain('"series":"Queue","value":0.02');
    expect(spec).toContain('"series":"CPU","value":80');
    expect(spec).toContain('"level":"c1","from_s":0,"to_s":1');
    expect(spec).toContain('mnist: server metrics over the run');
  });
});
