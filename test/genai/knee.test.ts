/** The knee of a generative run's levels, and the line report.md prints for it. */
import { describe, expect, it } from 'vitest';
import { findKnee, kneeLine } from '../../lib/genai/knee.ts';
import type { LevelResult, TimeStats_ms } from '../../lib/summary/types.ts';

const stats = (p50: number): TimeStats_ms => ({ avg: p50, p50, p95: p50, p99: p50, min: p50, max: p50 });

/** A level with its output tokens/s and TTFT p50 (the figures the knee reads). */
function level(c: number, tokens_per_s: number, ttft_p50: number): LevelResult {
  return {
    mode: 'concurrency',
    level: c,
    name: `c${c}`,
    genai: {
      requests_per_s: tokens_per_s / 100,
      output_tokens: tokens_per_s * 10,
      output_tokens_per_s: tokens_per_s,
      ttft_ms: stats(ttft_p50),
      itl_ms: stats(2),
      latency_ms: stats(200),
      chunk_gap_ms: stats(2),
    },
  } as LevelResult;
}

// bench/genai/RESULTS.md's Node runtime sitting of make bench-llm (17:16 UTC).
const RUN = [
  level(1, 460, 18.5),
  level(2, 860, 26.82),
  level(4, 1340, 35.95),
  level(8, 1480, 314.31),
  level(16, 1440, 867.7),
];

describe('the knee', () => {
  it('is the last level before a step that adds under a quarter of proportional throughput', () => {
    const knee = findKnee(RUN);
    expect(knee?.at.name).toBe('c4');
    expect(knee?.next.name).toBe('c8');
    expect(knee?.efficiency).toBeCloseTo((1480 / 1340 - 1) / (8 / 4 - 1), 12);
  });

  it('orders levels by load, whatever the run order', () => {
    expect(findKnee([...RUN].reverse())?.at.name).toBe('c4');
  });

  it('names the knee with its throughput and TTFT figures', () => {
    expect(kneeLine(RUN)).toBe(
      'Knee: c4. From c4 to c8 output tokens/s changes +10% (1340.0 to 1480.0) while TTFT p50 grows 8.7x ' +
        '(35.95 to 314.31 ms): load past c4 mostly waits rather than generates.',
    );
  });

  it('says when every step still scales, and says nothing for one level', () => {
    expect(kneeLine(RUN.slice(0, 3))).toBe(
      'No knee within the levels measured: output tokens/s still grows with the load up to c4.',
    );
    expect(findKnee(RUN.slice(0, 3))).toBeUndefined();
    expect(kneeLine(RUN.slice(0, 1))).toBe('');
  });
});
