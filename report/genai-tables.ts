/**
 * report.md's (and report.html's) generative tables beyond the tokens table: input tokens/s and prefill
 * throughput, time slices, and the LLM engine's metrics per level. Each is empty when no level has its figures.
 * Pure; docs/generative-metrics.md defines the figures.
 */
import { errorBarLine } from '../lib/genai/error-bar.ts';
import type { GaugeSummary, LevelResult, RunReport } from '../lib/summary/types.ts';
import { table } from './md-table.ts';

const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);

/** avg / max of a gauge, or n/a. */
function gaugeCell(g: GaugeSummary | undefined, digits = 1): string {
  return g ? `${g.avg.toFixed(digits)} / ${g.max.toFixed(digits)}` : 'n/a';
}

/** The pre-flight's error bar: what the generator itself adds to TTFT and token gaps here (empty without one). */
export function errorBarSection(report: RunReport): string {
  const bar = report.error_bar;
  if (!bar) return '';
  return [
    '## Generator error bar (pre-flight)',
    '',
    `${errorBarLine(bar)}.`,
    '',
    `The known-delay server's own timers sent tokens ${bar.server_late_ms.p50.toFixed(2)} ms off their planned times p50 (p99 ${bar.server_late_ms.p99.toFixed(2)}; negative: early); measured in the server, not counted above.`,
    '',
  ].join('\n');
}

/** Input tokens/s and AIPerf's prefill throughput per user, per level. */
export function prefillTable(results: readonly LevelResult[]): string {
  const levels = results.filter((r) => r.genai?.input_tokens_per_s !== undefined);
  if (levels.length === 0) return '';
  const rows = levels.map((r) => {
    const g = r.genai!;
    const p = g.prefill_tokens_per_s;
    return [
      r.name,
      f1(g.input_tokens_per_s!),
      p ? `${f1(p.p50)} / ${f1(p.p95)} / ${f1(p.p99)}` : 'n/a',
      p ? f1(p.avg) : 'n/a',
    ];
  });
  return [
    '## Input tokens and prefill',
    '',
    table(['Level', 'Input tokens/s', 'Prefill tokens/s per user p50 / p95 / p99', 'avg'], rows),
    '',
    "Input tokens/s: successful requests' input tokens over the window. Prefill tokens/s per user: each request's input tokens over its TTFT (AIPerf's prefill throughput per user).",
    '',
  ].join('\n');
}

/** Each level's time slices (--slice-duration). */
export function slicesTable(results: readonly LevelResult[]): string {
  const rows = results.flatMap((r) =>
    (r.genai?.slices ?? []).map((s) => [
      r.name,
      `${formatSeconds(s.start_s)}-${formatSeconds(s.end_s)}`,
      String(s.requests),
      f2(s.requests_per_s),
      f1(s.input_tokens_per_s),
      f1(s.output_tokens_per_s),
      s.ttft_ms ? `${f2(s.ttft_ms.p50)} / ${f2(s.ttft_ms.p99)}` : 'n/a',
      s.itl_ms ? `${f2(s.itl_ms.p50)} / ${f2(s.itl_ms.p99)}` : 'n/a',
      String(s.errors),
    ]),
  );
  if (rows.length === 0) return '';
  const header = [
    'Level',
    'Slice (s)',
    'Requests',
    'Requests/s',
    'Input tokens/s',
    'Output tokens/s',
    'TTFT p50 / p99 (ms)',
    'ITL p50 / p99 (ms)',
    'Errors',
  ];
  return [
    '## Time slices',
    '',
    "Seconds from each level's first measured send; a request counts in the slice its last response came in.",
    '',
    table(header, rows),
    '',
  ].join('\n');
}

/** A slice bound in seconds, without trailing zeros. */
function formatSeconds(s: number): string {
  return String(Number(s.toFixed(3)));
}

/** The LLM engine's scheduler and KV cache per level (TensorRT-LLM or vLLM backend metrics). */
export function engineMetricsTable(results: readonly LevelResult[]): string {
  if (!results.some((r) => r.engine_metrics)) return '';
  const header = [
    'Level',
    'Source',
    'Running avg / max',
    'Waiting avg / max',
    'KV cache used avg / max (%)',
    'KV blocks used max / pool',
    'Prefix-cache hits (%)',
  ];
  const rows = results.map((r) => {
    const e = r.engine_metrics;
    if (!e) return [r.name, ...header.slice(1).map(() => 'n/a')];
    return [
      r.name,
      e.source === 'trtllm' ? 'nv_trt_llm_*' : 'vllm:*',
      gaugeCell(e.running),
      gaugeCell(e.waiting),
      gaugeCell(e.kv_cache_usage_pct),
      e.kv_blocks_used ? `${e.kv_blocks_used.max.toFixed(0)} / ${e.kv_blocks_max ?? 'n/a'}` : 'n/a',
      e.prefix_cache_hit_pct === undefined ? 'n/a' : f1(e.prefix_cache_hit_pct),
    ];
  });
  return [
    '## LLM engine metrics (per level)',
    '',
    "Gauges averaged (and their highest) over the scrapes inside each window; prefix-cache hits from the counters' deltas.",
    '',
    table(header, rows),
    '',
  ].join('\n');
}
