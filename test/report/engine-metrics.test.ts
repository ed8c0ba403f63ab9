/**
 * LLM engine metrics per level, parsed from real-looking expositions: Triton's TensorRT-LLM backend
 * (nv_trt_llm_* gauges as its README prints them) and vLLM (vllm:* gauges and prefix-cache counters as
 * prometheus_client writes them, the family named without _total), through the scraper's parser; an
 * ensemble's engine series found under another model's name; the report table.
 */
import { describe, expect, it } from 'vitest';
import { nvSamples } from '../../measure/core/metrics-scrape.ts';
import { engineMetricsFor } from '../../lib/summary/engine-metrics.ts';
import type { MetricsScrape } from '../../lib/summary/server-metrics.ts';
import type { LevelResult } from '../../lib/summary/types.ts';
import { engineMetricsTable } from '../../report/genai-tables.ts';

/** TensorRT-LLM's exposition with `active` running requests, `waiting` queued and `used` KV blocks. */
function trtllm(active: number, waiting: number, used: number): string {
  return `# HELP nv_inference_request_success Number of successful inference requests, all batch sizes
# TYPE nv_inference_request_success counter
nv_inference_request_success{model="ensemble",version="1"} 10
nv_inference_request_success{model="tensorrt_llm",version="1"} 10
# HELP nv_trt_llm_request_metrics TRT LLM request metrics
# TYPE nv_trt_llm_request_metrics gauge
nv_trt_llm_request_metrics{model="tensorrt_llm",request_type="waiting",version="1"} ${waiting}
nv_trt_llm_request_metrics{model="tensorrt_llm",request_type="context",version="1"} 1
nv_trt_llm_request_metrics{model="tensorrt_llm",request_type="scheduled",version="1"} ${active}
nv_trt_llm_request_metrics{model="tensorrt_llm",request_type="max",version="1"} 512
nv_trt_llm_request_metrics{model="tensorrt_llm",request_type="active",version="1"} ${active}
# HELP nv_trt_llm_runtime_memory_metrics TRT LLM runtime memory metrics
# TYPE nv_trt_llm_runtime_memory_metrics gauge
nv_trt_llm_runtime_memory_metrics{memory_type="gpu",model="tensorrt_llm",version="1"} 1610236
# HELP nv_trt_llm_kv_cache_block_metrics TRT LLM KV cache block metrics
# TYPE nv_trt_llm_kv_cache_block_metrics gauge
nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="tokens_per",model="tensorrt_llm",version="1"} 64
nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="used",model="tensorrt_llm",version="1"} ${used}
nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="free",model="tensorrt_llm",version="1"} ${6400 - used}
nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="max",model="tensorrt_llm",version="1"} 6400
# HELP nv_gpu_utilization GPU utilization rate [0.0 - 1.0)
# TYPE nv_gpu_utilization gauge
nv_gpu_utilization{gpu_uuid="GPU-0"} 0.5
`;
}

/** vLLM's exposition (prometheus_client: counters' families named without _total). */
function vllm(running: number, waiting: number, usage: number, queries: number, hits: number): string {
  return `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="llama"} ${running}
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="llama"} ${waiting}
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="llama"} ${usage}
# HELP vllm:prefix_cache_queries Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries counter
vllm:prefix_cache_queries_total{engine="0",model_name="llama"} ${queries}
# HELP vllm:prefix_cache_hits Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits counter
vllm:prefix_cache_hits_total{engine="0",model_name="llama"} ${hits}
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.001",model_name="llama"} 0.0
vllm:time_to_first_token_seconds_sum{engine="0",model_name="llama"} 1.5
vllm:time_to_first_token_seconds_count{engine="0",model_name="llama"} 10.0
`;
}

const at = (t_ms: number, text: string): MetricsScrape => ({ t_ms, samples: nvSamples(text) });

describe('engineMetricsFor', () => {
  it("reads TensorRT-LLM's request and KV-block gauges over the window's scrapes, behind an ensemble", () => {
    const scrapes = [
      at(0, trtllm(9, 9, 9000)), // before the window: not averaged
      at(1000, trtllm(2, 0, 1600)),
      at(1500, trtllm(4, 2, 3200)),
      at(2000, trtllm(6, 4, 4800)),
    ];
    // The bench's model is the ensemble; its engine's series are tensorrt_llm's.
    const m = engineMetricsFor(scrapes, 1000, 2000, 'ensemble');
    expect(m).toEqual({
      source: 'trtllm',
      scrapes: 3,
      running: { avg: 4, max: 6 },
      waiting: { avg: 2, max: 4 },
      scheduled: { avg: 4, max: 6 },
      kv_cache_usage_pct: { avg: 50, max: 75 },
      kv_blocks_used: { avg: 3200, max: 4800 },
      kv_blocks_max: 6400,
      kv_block_tokens: 64,
    });
  });

  it("reads vLLM's gauges as percentages and its prefix-cache hit rate from the counters' deltas", () => {
    const scrapes = [
      at(0, vllm(1, 0, 0.1, 1000, 100)),
      at(1000, vllm(3, 1, 0.2, 2000, 600)),
      at(2000, vllm(5, 3, 0.4, 3000, 1100)),
    ];
    const m = engineMetricsFor(scrapes, 500, 2000, 'llama');
    expect(m?.source).toBe('vllm');
    expect(m?.running).toEqual({ avg: 4, max: 5 });
    expect(m?.waiting).toEqual({ avg: 2, max: 3 });
    expect(m?.kv_cache_usage_pct?.avg).toBeCloseTo(30, 9);
    expect(m?.kv_cache_usage_pct?.max).toBeCloseTo(40, 9);
    // Bounded by the scrapes at 0 and 2000: 2000 tokens queried, 1000 hit.
    expect(m?.prefix_cache_queries).toBe(2000);
    expect(m?.prefix_cache_hit_pct).toBeCloseTo(50, 9);
  });

  it('is undefined for a target that serves no engine metrics', () => {
    const plain = `# TYPE nv_inference_request_success counter
nv_inference_request_success{model="mnist",version="1"} 3
`;
    expect(engineMetricsFor([at(0, plain), at(1000, plain)], 0, 1000, 'mnist')).toBeUndefined();
  });

  it('refuses a window that ends before it starts', () => {
    expect(() => engineMetricsFor([], 10, 5)).toThrow(/expected end > start/);
  });
});

describe('engineMetricsTable', () => {
  it('prints one row per level, n/a where a level had none', () => {
    const level = (name: string, engine?: LevelResult['engine_metrics']) =>
      ({ name, ...(engine ? { engine_metrics: engine } : {}) }) as LevelResult;
    const text = engineMetricsTable([
      level('c1', {
        source: 'trtllm',
        scrapes: 4,
        running: { avg: 1, max: 1 },
        waiting: { avg: 0, max: 0 },
        kv_cache_usage_pct: { avg: 25.3, max: 25.3 },
        kv_blocks_used: { avg: 19, max: 19 },
        kv_blocks_max: 75,
      }),
      level('c8'),
    ]);
    expect(text).toContain('## LLM engine metrics');
    expect(text).toContain('| c1 | nv_trt_llm_* | 1.0 / 1.0 | 0.0 / 0.0 | 25.3 / 25.3 | 19 / 75 | n/a |');
    expect(text).toContain('| c8 | n/a | n/a | n/a | n/a | n/a | n/a |');
    expect(engineMetricsTable([level('c1')])).toBe('');
  });
});
