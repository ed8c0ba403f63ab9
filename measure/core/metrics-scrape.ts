/**
 * Scrapes the target's Prometheus metrics while a run goes on (host side, as cpu.ts samples the generator),
 * keeping only Triton's nv_* and the vLLM backend's vllm:* counter and gauge series, so
 * lib/summary/server-metrics.ts and engine-metrics.ts can read them per level. A failed scrape is skipped, not fatal: the run's own figures do not depend on it.
 */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { ENGINE_FAMILY_PREFIXES } from '../../lib/summary/engine-metrics.ts';
import type { MetricsScrape, PromSample } from '../../lib/summary/server-metrics.ts';

/** How often the bench scrapes: a 1 s window still gets scrapes inside it. */
export const SCRAPE_INTERVAL_MS = 500;

/** A scrape must not hang the run's end: Triton answers /metrics in milliseconds. */
const SCRAPE_TIMEOUT_MS = 2_000;

/** Families kept: Triton's (TensorRT-LLM's nv_trt_llm_* among them) and the LLM engines' own. */
const KEPT_PREFIXES = ['nv_', ...ENGINE_FAMILY_PREFIXES];

/** The nv_* and vllm:* counter, gauge and untyped samples of a Prometheus text exposition (histograms skipped). */
export function nvSamples(text: string): PromSample[] {
  const samples: PromSample[] = [];
  for (const family of parsePrometheusTextFormat(text)) {
    if (!KEPT_PREFIXES.some((prefix) => family.name.startsWith(prefix))) continue;
    if (family.type === 'HISTOGRAM' || family.type === 'SUMMARY') continue;
    for (const series of family.metrics) {
      const value = Number(series.value);
      if (series.value === undefined || Number.isNaN(value)) continue;
      samples.push({ name: family.name, labels: series.labels ?? {}, value });
    }
  }
  return samples;
}

/** Checks a --metrics-url value; throws a one-line error naming it. */
export function checkMetricsUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`invalid --metrics-url; reason: expected an http(s) URL, got "${url}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error(`invalid --metrics-url; reason: expected http or https, got "${parsed.protocol}"`);
  return url;
}

/** One scrape of `url`: its nv_* and vllm:* samples, or an Error saying why there are none. */
export async function scrapeOnce(url: string): Promise<MetricsScrape | Error> {
  const t_ms = Date.now();
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) });
    if (!response.ok) return new Error(`${url} answered ${response.status}`);
    return { t_ms, samples: nvSamples(await response.text()) };
  } catch (error) {
    return new Error(`${url}: ${(error as Error).message}`);
  }
}

/**
 * Scrapes `url` now and every `interval_ms` until stop(), which takes one last scrape (so the last level's
 * window end is bounded) and returns them all. The first failure is reported once through `warn`.
 */
export function scrapeMetrics(
  url: string,
  warn: (line: string) => void,
  interval_ms = SCRAPE_INTERVAL_MS,
): { scrapes(): readonly MetricsScrape[]; stop(): Promise<MetricsScrape[]> } {
  const scrapes: MetricsScrape[] = [];
  let warned = false;
  let inFlight: Promise<void> = Promise.resolve();
  const take = () => {
    // One scrape at a time: a slow target must not pile requests up on itself.
    inFlight = inFlight.then(async () => {
      const scrape = await scrapeOnce(url);
      if (!(scrape instanceof Error)) scrapes.push(scrape);
      else if (!warned) {
        warned = true;
        warn(`server metrics: scrape failed (${scrape.message}); levels without two scrapes get none`);
      }
    });
  };
  take();
  const timer = setInterval(take, interval_ms);
  timer.unref();
  return {
    scrapes: () => scrapes,
    async stop() {
      clearInterval(timer);
      take();
      await inFlight;
      return scrapes;
    },
  };
}
