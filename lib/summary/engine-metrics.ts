/**
 * Per-level LLM engine metrics from the Prometheus scrapes of a run: what Triton's TensorRT-LLM backend
 * (nv_trt_llm_*) or vLLM backend (vllm:*) says of its scheduler and KV cache. Gauges are averaged (and their
 * highest value kept) over the scrapes inside a level's window; prefix-cache counters are differenced between
 * the scrapes bounding it (server-metrics.ts's rule). Pure: measure/core/metrics-scrape.ts scrapes.
 * docs/generative-metrics.md#engine-metrics names each source series.
 */
import { bounds, checkWindow, type MetricsScrape, type PromSample } from './server-metrics.ts';
import type { EngineMetricsStats, GaugeSummary } from './types.ts';

/** One engine series: a family and, where the family multiplexes, the label that picks the series. */
interface Series {
  name: string;
  label?: [string, string];
}

/** Where each figure comes from, per backend; the first series present wins. */
const TRTLLM = {
  running: [{ name: 'nv_trt_llm_request_metrics', label: ['request_type', 'active'] }],
  waiting: [{ name: 'nv_trt_llm_request_metrics', label: ['request_type', 'waiting'] }],
  scheduled: [{ name: 'nv_trt_llm_request_metrics', label: ['request_type', 'scheduled'] }],
  kvUsed: [{ name: 'nv_trt_llm_kv_cache_block_metrics', label: ['kv_cache_block_type', 'used'] }],
  kvMax: [{ name: 'nv_trt_llm_kv_cache_block_metrics', label: ['kv_cache_block_type', 'max'] }],
  kvBlockTokens: [
    { name: 'nv_trt_llm_kv_cache_block_metrics', label: ['kv_cache_block_type', 'tokens_per'] },
  ],
} satisfies Record<string, Series[]>;

const VLLM = {
  running: [{ name: 'vllm:num_requests_running' }],
  waiting: [{ name: 'vllm:num_requests_waiting' }],
  // vLLM V1 renamed gpu_cache_usage_perc to kv_cache_usage_perc; both are fractions [0, 1].
  kvUsage: [{ name: 'vllm:kv_cache_usage_perc' }, { name: 'vllm:gpu_cache_usage_perc' }],
  // Prefix-cache counters (tokens): V1's names, then V0's; a text exposition may name a counter's family with
  // or without its _total suffix, so both spellings are looked for.
  prefixQueries: [
    { name: 'vllm:prefix_cache_queries_total' },
    { name: 'vllm:prefix_cache_queries' },
    { name: 'vllm:gpu_prefix_cache_queries_total' },
    { name: 'vllm:gpu_prefix_cache_queries' },
  ],
  prefixHits: [
    { name: 'vllm:prefix_cache_hits_total' },
    { name: 'vllm:prefix_cache_hits' },
    { name: 'vllm:gpu_prefix_cache_hits_total' },
    { name: 'vllm:gpu_prefix_cache_hits' },
  ],
} satisfies Record<string, Series[]>;

/** The families the scraper keeps besides Triton's nv_*: vLLM's (TensorRT-LLM's are nv_* already). */
export const ENGINE_FAMILY_PREFIXES = ['vllm:'] as const;

/** Whether a sample belongs to `series`. */
function matches(sample: PromSample, series: Series): boolean {
  if (sample.name !== series.name) return false;
  return !series.label || sample.labels[series.label[0]] === series.label[1];
}

/**
 * The samples of `series` in one scrape for `model`: the series labelled with the model (Triton's `model`,
 * vLLM's own `model_name`) when any is, else every series of the family (an ensemble's engine is another model,
 * e.g. tensorrt_llm behind ensemble).
 */
function seriesSamples(scrape: MetricsScrape, series: Series, model?: string): PromSample[] {
  const all = scrape.samples.filter((s) => matches(s, series));
  if (model === undefined) return all;
  const own = all.filter((s) => s.labels.model === model || s.labels.model_name === model);
  return own.length > 0 ? own : all;
}

/** The first of `candidates` a scrape has, summed over its series (instances, GPUs); undefined when none. */
function valueIn(scrape: MetricsScrape, candidates: readonly Series[], model?: string): number | undefined {
  for (const series of candidates) {
    const samples = seriesSamples(scrape, series, model);
    if (samples.length > 0) return samples.reduce((sum, s) => sum + s.value, 0);
  }
  return undefined;
}

/** Mean and highest of a gauge over the scrapes that have it. */
function gauge(
  scrapes: readonly MetricsScrape[],
  candidates: readonly Series[],
  model?: string,
  scale = 1,
): GaugeSummary | undefined {
  const values = scrapes.flatMap((s) => {
    const v = valueIn(s, candidates, model);
    return v === undefined || !Number.isFinite(v) ? [] : [v * scale];
  });
  if (values.length === 0) return undefined;
  return { avg: values.reduce((a, b) => a + b, 0) / values.length, max: Math.max(...values) };
}

/** A counter's increase between two scrapes (a reset counts from zero); undefined when the later lacks it. */
function increase(
  first: MetricsScrape,
  last: MetricsScrape,
  candidates: readonly Series[],
  model?: string,
): number | undefined {
  const end = valueIn(last, candidates, model);
  if (end === undefined) return undefined;
  const start = valueIn(first, candidates, model) ?? 0;
  return end >= start ? end - start : end;
}

/** Sets the fields whose value is defined (summary.json carries no null for a figure not served). */
function defined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * A level's engine metrics over [from_ms, to_ms], or undefined when no scrape inside the window carried a
 * TensorRT-LLM or vLLM engine series. `model` prefers that model's series (see seriesSamples).
 */
export function engineMetricsFor(
  scrapes: readonly MetricsScrape[],
  from_ms: number,
  to_ms: number,
  model?: string,
): EngineMetricsStats | undefined {
  checkWindow(from_ms, to_ms);
  const inside = scrapes.filter((s) => s.t_ms >= from_ms && s.t_ms <= to_ms);
  if (inside.length === 0) return undefined;
  const prefix = prefixCache(scrapes, from_ms, to_ms, model);
  const trt = gauge(inside, TRTLLM.running, model) ?? gauge(inside, TRTLLM.kvUsed, model);
  if (trt) {
    const used = gauge(inside, TRTLLM.kvUsed, model);
    const max = gauge(inside, TRTLLM.kvMax, model)?.max;
    const usage = inside.flatMap((s) => {
      const u = valueIn(s, TRTLLM.kvUsed, model);
      const m = valueIn(s, TRTLLM.kvMax, model);
      return u === undefined || !m ? [] : [(u / m) * 100];
    });
    return {
      source: 'trtllm',
      scrapes: inside.length,
      ...defined({
        running: gauge(inside, TRTLLM.running, model),
        waiting: gauge(inside, TRTLLM.waiting, model),
        scheduled: gauge(inside, TRTLLM.scheduled, model),
        kv_cache_usage_pct:
          usage.length > 0
            ? { avg: usage.reduce((a, b) => a + b, 0) / usage.length, max: Math.max(...usage) }
            : undefined,
        kv_blocks_used: used,
        kv_blocks_max: max,
        kv_block_tokens: gauge(inside, TRTLLM.kvBlockTokens, model)?.max,
      }),
      ...prefix,
    };
  }
  const running = gauge(inside, VLLM.running, model);
  const kvUsage = gauge(inside, VLLM.kvUsage, model, 100);
  if (!running && !kvUsage) return undefined;
  return {
    source: 'vllm',
    scrapes: inside.length,
    ...defined({ running, waiting: gauge(inside, VLLM.waiting, model), kv_cache_usage_pct: kvUsage }),
    ...prefix,
  };
}

/**
 * Prefix-cache queries and hit rate over the window from the prefix-cache counters (vLLM's names, which the
 * embedded simulated LLM also serves when it models a prefix cache), whatever the engine; {} when absent.
 */
function prefixCache(
  scrapes: readonly MetricsScrape[],
  from_ms: number,
  to_ms: number,
  model?: string,
): Pick<EngineMetricsStats, 'prefix_cache_queries' | 'prefix_cache_hit_pct'> {
  const bounded = bounds(scrapes, from_ms, to_ms);
  if (!bounded) return {};
  const queries = increase(bounded[0], bounded[1], VLLM.prefixQueries, model);
  const hits = increase(bounded[0], bounded[1], VLLM.prefixHits, model);
  return defined({
    prefix_cache_queries: queries,
    prefix_cache_hit_pct:
      queries !== undefined && hits !== undefined && queries > 0 ? (hits / queries) * 100 : undefined,
  });
}
