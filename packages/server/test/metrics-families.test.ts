/** The metrics endpoint drops TensorRT-LLM's and vLLM's families while no loaded model has a series of them. */
import { describe, expect, it } from 'vitest';
import { withoutEmptyBackendFamilies } from '../src/metrics.ts';

const text = [
  '# HELP nv_inference_count Number of inferences',
  '# TYPE nv_inference_count counter',
  '',
  '# HELP nv_trt_llm_request_metrics TRT LLM request metrics',
  '# TYPE nv_trt_llm_request_metrics gauge',
  '',
  '# HELP vllm:prefix_cache_hits_total Prefix cache hits',
  '# TYPE vllm:prefix_cache_hits_total counter',
  'vllm:prefix_cache_hits_total{model="gpt2",version="1"} 12',
  '',
].join('\n');

describe('withoutEmptyBackendFamilies', () => {
  it("drops a backend's family without series, keeps Triton's own and those with series", () => {
    const out = withoutEmptyBackendFamilies(text);
    expect(out).not.toContain('nv_trt_llm_request_metrics');
    expect(out).toContain('# TYPE nv_inference_count counter');
    expect(out).toContain('vllm:prefix_cache_hits_total{model="gpt2",version="1"} 12');
  });
});
