/**
 * Per-level server metrics from Prometheus scrapes taken during a run (Triton's nv_* families): counter
 * deltas between the scrapes that bound a level's window, gauge averages over the scrapes inside it.
 * Pure: the bench scrapes (measure/core/metrics-scrape.ts), this only computes, the writers only read.
 */
import type { ServerMetricsPoint, ServerMetricsStats, ServerTimeline } from './types.ts';

/** One series' value at one scrape: family name, labels, numeric value. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One scrape: when it was taken (epoch ms) and the nv_* samples it returned. */
export interface MetricsScrape {
  t_ms: number;
  samples: PromSample[];
}

/** Triton's counters we difference, by the field they fill (durations in microseconds, as Triton counts). */
const COUNTERS = {
  request_success: 'nv_inference_request_success',
  request_failure: 'nv_inference_request_failure',
  inference_count: 'nv_inference_count',
  exec_count: 'nv_inference_exec_count',
  request_duration_us: 'nv_inference_request_duration_us',
  queue_duration_us: 'nv_inference_queue_duration_us',
  compute_input_duration_us: 'nv_inference_compute_input_duration_us',
  compute_infer_duration_us: 'nv_inference_compute_infer_duration_us',
  compute_output_duration_us: 'nv_inference_compute_output_duration_us',
} as const;

type CounterField = keyof typeof COUNTERS;

/** Sum of a family's series in one scrape, restricted to one model when its samples carry a model label. */
function familySum(scrape: MetricsScrape, name: string, model?: string): number | undefined {
  let sum: number | undefined;
  for (const sample of scrape.samples) {
    if (sample.name !== name) continue;
    if (model !== undefined && sample.labels.model !== undefined && sample.labels.model !== model) continue;
    sum = (sum ?? 0) + sample.value;
  }
  return sum;
}

/** Per-scrape aggregate of a gauge family (GPUs summed or averaged), undefined when absent. */
function gaugeOf(scrape: MetricsScrape, name: string, combine: 'sum' | 'mean'): number | undefined {
  const values = scrape.samples.filter((s) => s.name === name).map((s) => s.value);
  if (values.length === 0) return undefined;
  const total = values.reduce((a, b) => a + b, 0);
  return combine === 'sum' ? total : total / values.length;
}

/** Mean and max of a gauge over the scrapes; undefined when no scrape had it. */
function gaugeStats(
  scrapes: readonly MetricsScrape[],
  name: string,
  combine: 'sum' | 'mean',
): { mean: number; max: number } | undefined {
  const values = scrapes.flatMap((s) => {
    const v = gaugeOf(s, name, combine);
    return v === undefined || !Number.isFinite(v) ? [] : [v];
  });
  if (values.length === 0) return undefined;
  return { mean: values.reduce((a, b) => a + b, 0) / values.length, max: Math.max(...values) };
}

/** Throws one line when a window ends before it starts. */
export function checkWindow(from_ms: number, to_ms: number): void {
  if (!(to_ms > from_ms))
    throw new Error(`invalid window; reason: expected end > start, got ${from_ms}..${to_ms}`);
}

/**
 * The scrapes bounding [from_ms, to_ms]: the last one at or before the start (else the first inside) and
 * the first one at or after the end (else the last inside), so the delta covers the whole window.
 */
export function bounds(
  scrapes: readonly MetricsScrape[],
  from_ms: number,
  to_ms: number,
): [MetricsScrape, MetricsScrape] | undefined {
  const sorted = [...scrapes].sort((a, b) => a.t_ms - b.t_ms);
  const before = sorted.filter((s) => s.t_ms <= from_ms).at(-1);
  const after = sorted.find((s) => s.t_ms >= to_ms);
  const inside = sorted.filter((s) => s.t_ms > from_ms && s.t_ms < to_ms);
  const first = before ?? inside[0];
  const last = after ?? inside.at(-1);
  if (!first || !last || last.t_ms <= first.t_ms) return undefined;
  return [first, last];
}

/**
 * A level's server metrics from the run's scrapes, or undefined when fewer than two scrapes bound its
 * window or the target served no nv_inference_* counter. `model` keeps only that model's series.
 */
export function serverMetricsFor(
  scrapes: readonly MetricsScrape[],
  from_ms: number,
  to_ms: number,
  model?: string,
): ServerMetricsStats | undefined {
  checkWindow(from_ms, to_ms);
  const bounded = bounds(scrapes, from_ms, to_ms);
  if (!bounded) return undefined;
  const [first, last] = bounded;
  const counters: Partial<Record<CounterField, number>> = {};
  for (const [field, name] of Object.entries(COUNTERS) as [CounterField, string][]) {
    const end = familySum(last, name, model);
    if (end === undefined) continue;
    const start = familySum(first, name, model) ?? 0;
    // A counter that went down was reset (the server restarted): what it counted since is the delta.
    counters[field] = end >= start ? end - start : end;
  }
  if (counters.request_success === undefined) return undefined;
  const success = counters.request_success;
  const failure = counters.request_failure ?? 0;
  // Triton's request and queue durations count failed requests too; compute durations only successes.
  const perRequest = (total: number | undefined, n: number) =>
    total === undefined || n === 0 ? undefined : total / n;
  const window = scrapes.filter((s) => s.t_ms >= first.t_ms && s.t_ms <= last.t_ms);
  const gpuUtil = gaugeStats(window, 'nv_gpu_utilization', 'mean');
  const gpuMem = gaugeStats(window, 'nv_gpu_memory_used_bytes', 'sum');
  const gpuTotal = gaugeStats(window, 'nv_gpu_memory_total_bytes', 'sum');
  const gpuPower = gaugeStats(window, 'nv_gpu_power_usage', 'sum');
  const cpuUtil = gaugeStats(window, 'nv_cpu_utilization', 'mean');
  const cpuMem = gaugeStats(window, 'nv_cpu_memory_used_bytes', 'sum');
  const stats: ServerMetricsStats = {
    interval_s: (last.t_ms - first.t_ms) / 1000,
    scrapes: window.length,
    request_success: success,
    request_failure: failure,
    ...(counters.inference_count !== undefined ? { inference_count: counters.inference_count } : {}),
    ...(counters.exec_count !== undefined ? { exec_count: counters.exec_count } : {}),
  };
  const avg = {
    avg_request_us: perRequest(counters.request_duration_us, success + failure),
    avg_queue_us: perRequest(counters.queue_duration_us, success + failure),
    avg_compute_input_us: perRequest(counters.compute_input_duration_us, success),
    avg_compute_infer_us: perRequest(counters.compute_infer_duration_us, success),
    avg_compute_output_us: perRequest(counters.compute_output_duration_us, success),
    // Triton's utilisations are fractions [0, 1]; reports read percentages.
    gpu_utilization_avg_pct: gpuUtil && gpuUtil.mean * 100,
    gpu_memory_used_max_bytes: gpuMem?.max,
    gpu_memory_total_bytes: gpuTotal?.max,
    gpu_power_usage_avg_w: gpuPower?.mean,
    cpu_utilization_avg_pct: cpuUtil && cpuUtil.mean * 100,
    cpu_memory_used_max_bytes: cpuMem?.max,
  };
  for (const [key, value] of Object.entries(avg)) {
    if (value !== undefined) (stats as unknown as Record<string, number>)[key] = value;
  }
  return stats;
}

/** A level's measurement window in epoch milliseconds, as the bench knows it from the stats probe. */
export interface WindowSpan {
  level: string;
  from_ms: number;
  to_ms: number;
}

/** A counter's delta between two scrapes (a reset counts from zero), undefined when the later lacks it. */
function counterDelta(a: MetricsScrape, b: MetricsScrape, name: string, model?: string): number | undefined {
  const end = familySum(b, name, model);
  if (end === undefined) return undefined;
  const start = familySum(a, name, model) ?? 0;
  return end >= start ? end - start : end;
}

/**
 * The run's server metrics over time: per interval between consecutive scrapes, successful requests per
 * second, average queue and compute-infer time per request, and the utilisation gauges at its end; plus
 * each level's window on the same clock (seconds since the first scrape). Empty with fewer than 2 scrapes.
 */
export function serverTimeline(
  scrapes: readonly MetricsScrape[],
  windows: readonly WindowSpan[],
  model?: string,
): ServerTimeline {
  const sorted = [...scrapes].sort((a, b) => a.t_ms - b.t_ms);
  const t0 = sorted[0]?.t_ms ?? 0;
  const seconds = (t_ms: number) => (t_ms - t0) / 1000;
  const points: ServerMetricsPoint[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    const span_s = (b.t_ms - a.t_ms) / 1000;
    const success = counterDelta(a, b, COUNTERS.request_success, model);
    if (!(span_s > 0) || success === undefined) continue;
    const failure = counterDelta(a, b, COUNTERS.request_failure, model) ?? 0;
    const queue = counterDelta(a, b, COUNTERS.queue_duration_us, model);
    const infer = counterDelta(a, b, COUNTERS.compute_infer_duration_us, model);
    const mid_ms = (a.t_ms + b.t_ms) / 2;
    const level = windows.find((w) => mid_ms >= w.from_ms && mid_ms <= w.to_ms)?.level;
    const cpu = gaugeOf(b, 'nv_cpu_utilization', 'mean');
    const gpu = gaugeOf(b, 'nv_gpu_utilization', 'mean');
    points.push({
      t_s: seconds(b.t_ms),
      ...(level !== undefined ? { level } : {}),
      requests_s: success / span_s,
      ...(queue !== undefined && success + failure > 0 ? { avg_queue_us: queue / (success + failure) } : {}),
      ...(infer !== undefined && success > 0 ? { avg_compute_infer_us: infer / success } : {}),
      // Triton's utilisations are fractions [0, 1]; reports read percentages.
      ...(cpu !== undefined && Number.isFinite(cpu) ? { cpu_utilization_pct: cpu * 100 } : {}),
      ...(gpu !== undefined && Number.isFinite(gpu) ? { gpu_utilization_pct: gpu * 100 } : {}),
    });
  }
  return {
    points,
    windows:
      points.length === 0
        ? []
        : windows.map((w) => ({ level: w.level, from_s: seconds(w.from_ms), to_s: seconds(w.to_ms) })),
  };
}
