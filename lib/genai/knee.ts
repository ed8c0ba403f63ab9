/**
 * Where a generative model's knee is among a run's levels: the last level before a step up in load (concurrency
 * or request rate) that buys little more output token throughput. A step from level a to b is "flat" when
 * (tokens/s gain - 1) / (load gain - 1) < FLAT_EFFICIENCY, i.e. the extra load adds under a quarter of the
 * throughput it would if it scaled; past the knee, more load mostly queues (TTFT grows), it does not generate.
 * Pure.
 */
import type { LevelResult } from '../summary/types.ts';

/** Below this share of proportional scaling a step counts as flat. */
export const FLAT_EFFICIENCY = 0.25;

/** The knee found, with the step that shows it. */
export interface Knee {
  /** The last level that still scaled. */
  at: LevelResult;
  /** The next level, whose extra load bought little. */
  next: LevelResult;
  /** (tokens/s gain - 1) / (load gain - 1) over the step. */
  efficiency: number;
}

/** The knee of the generative levels (ordered by load), or undefined when every step still scales. */
export function findKnee(results: readonly LevelResult[]): Knee | undefined {
  const levels = results.filter((r) => r.genai && r.level > 0).sort((a, b) => a.level - b.level);
  for (let i = 0; i + 1 < levels.length; i++) {
    const at = levels[i]!;
    const next = levels[i + 1]!;
    const load = next.level / at.level;
    const before = at.genai!.output_tokens_per_s;
    if (load <= 1 || before <= 0) continue;
    const efficiency = (next.genai!.output_tokens_per_s / before - 1) / (load - 1);
    if (efficiency < FLAT_EFFICIENCY) return { at, next, efficiency };
  }
  return undefined;
}

/** The report's sentence about the knee, naming the levels and the figures that show it. */
export function kneeLine(results: readonly LevelResult[]): string {
  const levels = results.filter((r) => r.genai);
  if (levels.length < 2) return '';
  const knee = findKnee(levels);
  const name = (r: LevelResult) => r.name;
  if (!knee) {
    const last = levels.reduce((a, b) => (b.level > a.level ? b : a));
    return `No knee within the levels measured: output tokens/s still grows with the load up to ${name(last)}.`;
  }
  const a = knee.at.genai!;
  const b = knee.next.genai!;
  const tokensPct = (b.output_tokens_per_s / a.output_tokens_per_s - 1) * 100;
  const ttft = a.ttft_ms.p50 > 0 ? `${(b.ttft_ms.p50 / a.ttft_ms.p50).toFixed(1)}x` : 'from 0';
  return (
    `Knee: ${name(knee.at)}. From ${name(knee.at)} to ${name(knee.next)} output tokens/s changes ` +
    `${tokensPct >= 0 ? '+' : ''}${tokensPct.toFixed(0)}% (${a.output_tokens_per_s.toFixed(1)} to ` +
    `${b.output_tokens_per_s.toFixed(1)}) while TTFT p50 grows ${ttft} (${a.ttft_ms.p50.toFixed(2)} to ` +
    `${b.ttft_ms.p50.toFixed(2)} ms): load past ${name(knee.at)} mostly waits rather than generates.`
  );
}
