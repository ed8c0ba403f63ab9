/** The continuous-batching scheduler on a virtual clock: prefill, decode and KV-cache arithmetic. */
import { describe, expect, it } from 'vitest';
import { ContinuousBatcher, type GenerativeTiming, stepDuration_ms } from '../src/genai/scheduler.ts';
import { countInputTokens, outputToken } from '../src/genai/tokens.ts';
import { GPT2 } from '../../../models/generative.ts';
import { simulatedLlmTiming } from '../../../measure/repository/generative-config.ts';

const TIMING: GenerativeTiming = {
  prefillPerToken_ms: 0.5,
  decodeBase_ms: 2,
  decodePerSequence_ms: 1,
  kvCache_tokens: 100,
};

interface Arrival {
  at_ms: number;
  inputTokens: number;
  outputTokens: number;
}

/** Runs arrivals through the scheduler on a virtual clock; each request's token times. */
function simulate(timing: GenerativeTiming, arrivals: Arrival[]): number[][] {
  const batcher = new ContinuousBatcher(timing);
  const tokens = arrivals.map(() => [] as number[]);
  let now = 0;
  let next = 0;
  const admitUpTo = (t: number) => {
    while (next < arrivals.length && arrivals[next]!.at_ms <= t) {
      batcher.submit({ id: next, ...arrivals[next]! });
      next += 1;
    }
  };
  while (next < arrivals.length || batcher.active > 0 || batcher.waiting > 0) {
    admitUpTo(now);
    const step = batcher.next();
    if (!step) {
      now = arrivals[next]!.at_ms;
      continue;
    }
    now += step.duration_ms;
    for (const e of batcher.finish(step)) tokens[e.id]!.push(now);
  }
  return tokens;
}

describe('continuous batching scheduler', () => {
  it('one request: TTFT is the prefill, each further token one single-sequence decode step', () => {
    const [times] = simulate(TIMING, [{ at_ms: 0, inputTokens: 10, outputTokens: 4 }]);
    // prefill 10 x 0.5 = 5; decode 2 + 1 x 1 = 3 per token
    expect(times).toEqual([5, 8, 11, 14]);
  });

  it('a step grows with the sequences decoding in it', () => {
    expect([1, 2, 4, 8].map((n) => stepDuration_ms(TIMING, 0, n))).toEqual([3, 4, 6, 10]);
    expect(stepDuration_ms(TIMING, 10, 0)).toBe(5);
    expect(stepDuration_ms(TIMING, 10, 2)).toBe(9);
  });

  it('two requests together: prefilled in one step, then decoded side by side at the two-sequence step', () => {
    const times = simulate(TIMING, [
      { at_ms: 0, inputTokens: 10, outputTokens: 3 },
      { at_ms: 0, inputTokens: 20, outputTokens: 3 },
    ]);
    // prefill (10 + 20) x 0.5 = 15; decode 2 + 2 x 1 = 4
    expect(times).toEqual([
      [15, 19, 23],
      [15, 19, 23],
    ]);
  });

  it('a late arrival joins at the next step: its prefill shares the step with the running decode', () => {
    const times = simulate(TIMING, [
      { at_ms: 0, inputTokens: 10, outputTokens: 4 },
      { at_ms: 6, inputTokens: 4, outputTokens: 2 },
    ]);
    // a: 5 (prefill), 8 (decode alone; b arrived at 6, mid-step), then b's prefill 2 + a's decode 3 = 5 -> 13,
    // then both decode (4) -> 17; a has its 4 tokens, b its 2.
    expect(times).toEqual([
      [5, 8, 13, 17],
      [13, 17],
    ]);
  });

  it('the KV cache queues a request until a running one frees its reservation', () => {
    const times = simulate(TIMING, [
      { at_ms: 0, inputTokens: 40, outputTokens: 20 },
      { at_ms: 0, inputTokens: 30, outputTokens: 20 },
    ]);
    // 60 + 50 > 100: b waits. a: prefill 20, then 19 decode steps of 3 -> last at 77; b prefills after: 77 + 15.
    expect(times[0]).toHaveLength(20);
    expect(times[0]![19]).toBe(20 + 19 * 3);
    expect(times[1]![0]).toBe(77 + 15);
  });

  it('first come first served: a request that does not fit holds back a smaller one behind it', () => {
    const batcher = new ContinuousBatcher(TIMING);
    batcher.submit({ id: 1, inputTokens: 50, outputTokens: 10 });
    batcher.submit({ id: 2, inputTokens: 40, outputTokens: 10 });
    batcher.submit({ id: 3, inputTokens: 5, outputTokens: 5 });
    expect(batcher.next()!.prefill).toEqual([1]);
    expect([batcher.waiting, batcher.kvUsed_tokens]).toEqual([2, 60]);
  });

  it('a cancelled sequence frees its KV cache and emits nothing more', () => {
    const batcher = new ContinuousBatcher(TIMING);
    batcher.submit({ id: 1, inputTokens: 10, outputTokens: 5 });
    batcher.submit({ id: 2, inputTokens: 10, outputTokens: 5 });
    const step = batcher.next()!;
    expect(batcher.cancel(1)).toBe(true);
    expect(batcher.finish(step).map((e) => e.id)).toEqual([2]);
    expect(batcher.kvUsed_tokens).toBe(15);
    expect(batcher.cancel(7)).toBe(false);
  });

  it('refuses a request that could never fit the KV cache, naming the fix', () => {
    const batcher = new ContinuousBatcher(TIMING);
    expect(() => batcher.submit({ id: 1, inputTokens: 90, outputTokens: 20 })).toThrow(
      /needs 110 KV cache tokens .* more than the model's 100; send fewer input tokens or a smaller max_tokens/,
    );
  });

  it("gpt2's timing gives the published table's TTFT and ITL at concurrency 1 (200 in, 100 out)", () => {
    const c = GPT2.calibration;
    const [times] = simulate(simulatedLlmTiming(GPT2), [
      { at_ms: 0, inputTokens: c.inputTokens, outputTokens: c.outputTokens },
    ]);
    const ttft = times![0]!;
    const latency = times![c.outputTokens - 1]!;
    expect(ttft).toBeCloseTo(c.ttft_ms, 9);
    expect((latency - ttft) / (c.outputTokens - 1)).toBeCloseTo(c.itl_ms, 9);
    // The table's latency implies ~103.5 tokens a request (504 tokens/s / 4.87 requests/s); at exactly 100 the
    // simulated latency is under it, within 10%.
    expect(Math.abs(latency - c.latency_ms) / c.latency_ms).toBeLessThan(0.1);
  });
});

describe('pseudo-tokens', () => {
  it('counts whitespace-separated words as input tokens', () => {
    expect(countInputTokens('  a bb\tccc\n d ')).toBe(4);
    expect(countInputTokens('')).toBe(0);
  });

  it('makes whitespace-free output tokens, the same for the same seed and position', () => {
    const words = Array.from({ length: 50 }, (_, i) => outputToken(42, i));
    expect(words.every((w) => /^\S+$/.test(w))).toBe(true);
    expect(words).toEqual(Array.from({ length: 50 }, (_, i) => outputToken(42, i)));
    expect(new Set(words).size).toBeGreaterThan(10);
  });
});
