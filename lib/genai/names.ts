/**
 * k6 metric names of the generative scenario (docs/generative-metrics.md lists them with their units), spelled
 * once for the scenario that records them, its thresholds and the summary that reads them back. Pure.
 */

/** Trends in ms, Counter in tokens, Rate of failed requests. */
export const GENAI_METRICS = {
  /** Time to first token per request, ms. */
  ttft: 'genai_ttft',
  /** Inter-token latency per request, (latency - TTFT)/(OSL - 1), ms; only requests with OSL > 1. */
  itl: 'genai_itl',
  /** Send to last token per request, ms. */
  latency: 'genai_latency',
  /** Arrival gaps between consecutive tokens, pooled over requests (vLLM's ITL), ms. */
  chunkGap: 'genai_chunk_gap',
  /** Output sequence length per successful request, tokens (Trend, for its distribution). */
  osl: 'genai_osl',
  /** Input sequence length per successful request, tokens (Trend). */
  isl: 'genai_isl',
  /** Output tokens of successful requests (Counter: its count is the sum). */
  outputTokens: 'genai_output_tokens',
  /** Failed requests (Rate: true = failed). */
  failed: 'genai_failed',
  /** Requests meeting every SLO of the budget: TTFT, ITL, latency (Rate: true = good; failed ones are not). */
  good: 'genai_good',
  /** Open loop: send time - scheduled send time per request, ms (how far the generator lagged its schedule). */
  sendLag: 'genai_send_lag',
  /** Open loop: sends that left more than LATE_SEND_MS (open-loop.ts) after their scheduled time (Counter). */
  lateSends: 'genai_late_sends',
} as const;

/**
 * Each measured request's raw record (metrics.ts GenerationRecord), for re-scoring offline: a Counter sample
 * whose metadata key `record` holds the record as JSON (k6's exec.vu.metrics.metadata, which --out json
 * writes and no summary indexes). Its `scenario` tag names the level.
 */
export const GENAI_RECORD = { metric: 'genai_record', metadata: 'record' } as const;
