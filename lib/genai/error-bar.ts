/**
 * The generator's timing error from a pre-flight against a known-delay stream: the client's records set
 * against the times the server really sent each token (measured in the server, so its own timer lateness is
 * not counted as the client's). At concurrency 1 requests run one after another, so the measured requests'
 * successes (by send time) are the last streams the server finished, in order (the warm-up's came before; a
 * request cut at the window's end failed and the server, cancelled, logged none); above concurrency 1 the
 * percentiles are set side by side.
 * Pure; docs/generative-metrics.md#the-error-bar says how to read it.
 */
import type { GeneratorErrorBar } from '../summary/types.ts';
import { type GenerationRecord, requestMetrics } from './metrics.ts';
import { summarize } from './stats.ts';

/** One stream as the server sent it: each token's send time from the request's start, ms. */
export interface SentStream {
  sends_ms: number[];
}

/** The error figures of GeneratorErrorBar; undefined when no request succeeded. */
export type ErrorFigures = Pick<
  GeneratorErrorBar,
  'requests' | 'paired' | 'ttft_error_ms' | 'gap_error_ms' | 'server_late_ms'
>;

function p50p99(values: number[]): { p50: number; p99: number } {
  const s = summarize(values);
  return s ? { p50: s.p50, p99: s.p99 } : { p50: Number.NaN, p99: Number.NaN };
}

/** Consecutive differences. */
function gaps(times: readonly number[]): number[] {
  return times.slice(1).map((t, i) => t - times[i]!);
}

/**
 * Compares the client's records with the server's streams; `known` is the stream the server aimed at.
 * `oneAtATime` (concurrency 1, the default) allows pairing them in order; above it they never are.
 */
export function errorFigures(
  records: readonly GenerationRecord[],
  sent: readonly SentStream[],
  known: { first_ms: number; gap_ms: number },
  oneAtATime = true,
): ErrorFigures | undefined {
  const ok = records
    .map((r) => ({ r, m: requestMetrics(r, { firstToken: 'non-empty' }) }))
    .filter(({ m }) => m.ok)
    .sort((a, b) => a.r.sent_ms - b.r.sent_ms);
  if (ok.length === 0 || sent.length === 0) return undefined;
  const late = sent.flatMap((s) => s.sends_ms.map((t, i) => t - (known.first_ms + i * known.gap_ms)));
  const paired = oneAtATime && sent.length >= ok.length;
  let ttftErrors: number[];
  let gapErrors: number[];
  if (paired) {
    const tail = sent.slice(sent.length - ok.length);
    ttftErrors = ok.map(({ m }, i) => m.ttft_ms! - tail[i]!.sends_ms[0]!);
    gapErrors = ok.flatMap(({ m }, i) => {
      const server = gaps(tail[i]!.sends_ms);
      return m.gaps_ms.slice(0, server.length).map((g, j) => Math.abs(g - server[j]!));
    });
  } else {
    const firstSends = summarize(sent.map((s) => s.sends_ms[0]!))!;
    const serverGap = summarize(sent.flatMap((s) => gaps(s.sends_ms)))!;
    ttftErrors = ok.map(({ m }) => m.ttft_ms! - firstSends.p50);
    gapErrors = ok.flatMap(({ m }) => m.gaps_ms.map((g) => Math.abs(g - serverGap.p50)));
  }
  return {
    requests: ok.length,
    paired,
    ttft_error_ms: p50p99(ttftErrors),
    gap_error_ms: p50p99(gapErrors),
    server_late_ms: p50p99(late),
  };
}

/** The one line a run prints of its error bar. */
export function errorBarLine(bar: GeneratorErrorBar): string {
  const f = (n: number) => n.toFixed(2);
  return (
    `generator error bar (pre-flight, ${bar.protocol}, ${bar.runtime}, ${bar.requests} requests at c1, ` +
    `load ${bar.load_avg_1m.toFixed(1)} on ${bar.cores} cores): TTFT +${f(bar.ttft_error_ms.p50)} ms p50 ` +
    `(p99 +${f(bar.ttft_error_ms.p99)}), token gaps ±${f(bar.gap_error_ms.p50)} ms p50 (p99 ±${f(bar.gap_error_ms.p99)}) ` +
    `over the server's real send times; the figures below carry it`
  );
}
