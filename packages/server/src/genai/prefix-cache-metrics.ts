/**
 * The simulated generative models' prefix-cache counters on the metrics port, under vLLM's names
 * (`vllm:prefix_cache_queries_total`, `vllm:prefix_cache_hits_total`: prompt tokens looked up and found
 * cached) with Triton's `model` and `version` labels, read from each model's cache at every scrape. Kept apart
 * from the other engine metrics so each family has one owner.
 */
import { Counter, type Registry } from 'prom-client';
import type { PrefixCacheCounts } from './prefix-cache.ts';

/** One model version's counts. */
export interface ModelPrefixCache {
  model: string;
  version: string;
  counts: PrefixCacheCounts;
}

/** The exposed names (prom-client prints a Counter's name as given). */
export const PREFIX_CACHE_METRICS = {
  queries: 'vllm:prefix_cache_queries_total',
  hits: 'vllm:prefix_cache_hits_total',
} as const;

/** Registers the two counters on `registry`; `source` lists the models that keep a prefix cache. */
export function registerPrefixCacheMetrics(registry: Registry, source: () => ModelPrefixCache[]): void {
  const family = (name: string, help: string, field: keyof PrefixCacheCounts) =>
    new Counter({
      name,
      help,
      labelNames: ['model', 'version'],
      registers: [registry],
      collect() {
        this.reset();
        for (const m of source()) this.inc({ model: m.model, version: m.version }, m.counts[field]);
      },
    });
  family(PREFIX_CACHE_METRICS.queries, 'Prefix cache queries, in prompt tokens looked up', 'queries');
  family(PREFIX_CACHE_METRICS.hits, 'Prefix cache hits, in prompt tokens found cached', 'hits');
}
