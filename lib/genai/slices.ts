/**
 * What a level's raw records (records.jsonl) give beyond k6's summary: AIPerf's prefill throughput per user
 * (ISL / TTFT of each successful request) and AIPerf's time slices (--slice-duration): the level cut into
 * consecutive slices from its first measured send, each request counted in the slice its last response (or
 * failure) fell in. docs/generative-metrics.md gives the same definitions. Pure; runs on Node.
 */
import type { GenerativeSlice, RateStats } from '../summary/types.ts';
import { type GenerationRecord, type RequestMetrics, requestMetrics } from './metrics.ts';
import { type Stats, summarize } from './stats.ts';

/** The fields a report keeps of a distribution. */
function rateStats(s: Stats): RateStats {
  return { avg: s.avg, p50: s.p50, p95: s.p95, p99: s.p99, min: s.min, max: s.max };
}

/** ISL / TTFT per successful request with a TTFT above 0, tokens/s; undefined when no request had one. */
export function prefillThroughput(records: readonly GenerationRecord[]): RateStats | undefined {
  const rates = records.flatMap((r) => {
    const m = requestMetrics(r);
    return m.ok && m.ttft_ms! > 0 ? [m.inputTokens / (m.ttft_ms! / 1000)] : [];
  });
  const s = summarize(rates);
  return s && rateStats(s);
}

/** When a request ended: its last response, else its failure; undefined when neither was recorded. */
function endOf(r: GenerationRecord): number | undefined {
  const last = r.chunks.at(-1)?.at_ms;
  if (r.done_ms !== undefined) return last === undefined ? r.done_ms : Math.max(last, r.done_ms);
  return last;
}

/** p50 and p99 of values, undefined when none. */
function p50p99(values: number[]): { p50: number; p99: number } | undefined {
  const s = summarize(values);
  return s && { p50: s.p50, p99: s.p99 };
}

/**
 * The level's slices of `slice_s` seconds over `window_s` (the last one shorter when the window is not a
 * whole number of slices), each from the requests that ended in it; a request ending past the window goes in
 * the last slice. Empty without records.
 */
export function levelSlices(
  records: readonly GenerationRecord[],
  window_s: number,
  slice_s: number,
): GenerativeSlice[] {
  if (!(slice_s > 0)) throw new Error(`invalid slice duration; reason: expected > 0 s, got ${slice_s}`);
  if (records.length === 0 || !(window_s > 0)) return [];
  const t0 = Math.min(...records.map((r) => r.sent_ms));
  const count = Math.max(1, Math.ceil(window_s / slice_s - 1e-9));
  const buckets: RequestMetrics[][] = Array.from({ length: count }, () => []);
  for (const r of records) {
    const end = endOf(r);
    if (end === undefined) continue;
    const index = Math.min(count - 1, Math.max(0, Math.floor((end - t0) / 1000 / slice_s)));
    buckets[index]!.push(requestMetrics(r));
  }
  return buckets.map((metrics, i) => {
    const start_s = i * slice_s;
    const end_s = Math.min(window_s, (i + 1) * slice_s);
    const span = end_s - start_s;
    const ok = metrics.filter((m) => m.ok);
    const sum = (f: (m: RequestMetrics) => number) => ok.reduce((total, m) => total + f(m), 0);
    const ttft = p50p99(ok.map((m) => m.ttft_ms!));
    const itl = p50p99(ok.flatMap((m) => (m.itl_ms === undefined ? [] : [m.itl_ms])));
    return {
      start_s,
      end_s,
      requests: ok.length,
      errors: metrics.length - ok.length,
      requests_per_s: ok.length / span,
      input_tokens_per_s: sum((m) => m.inputTokens) / span,
      output_tokens_per_s: sum((m) => m.outputTokens) / span,
      ...(ttft ? { ttft_ms: ttft } : {}),
      ...(itl ? { itl_ms: itl } : {}),
    };
  });
}
