/**
 * The simulated model's prefix cache (blocks named by their whole prefix, a bounded LRU, token counts as vLLM's)
 * and what it changes in the scheduler (cached tokens are not prefilled); the engine leaves a cancelled request's
 * slot free. Virtual clock and counts, no timing.
 */
import { describe, expect, it } from 'vitest';
import { GenerationEngine } from '../src/genai/engine.ts';
import { PREFIX_BLOCK_TOKENS, PrefixCache } from '../src/genai/prefix-cache.ts';
import { ContinuousBatcher, type GenerativeTiming } from '../src/genai/scheduler.ts';

const words = (n: number, tag = 'w') => Array.from({ length: n }, (_, i) => `${tag}${i}`);

describe('the prefix cache', () => {
  it('a repeated prompt is found cached but its last token; a new one is not; counts are tokens', () => {
    const cache = new PrefixCache(100);
    const prompt = words(40);
    expect(cache.lookup(prompt)).toBe(0);
    // 40 tokens: two full blocks (32 tokens) are cached, the last 8 are not a full block.
    expect(cache.lookup(prompt)).toBe(2 * PREFIX_BLOCK_TOKENS);
    expect(cache.lookup(words(40, 'x'))).toBe(0);
    expect(cache.counts).toEqual({ queries: 120, hits: 32 });
    // A prompt of exactly whole blocks, cached whole, still computes its last token.
    expect(cache.lookup(words(32))).toBe(31);
  });

  it('a block is named by everything before it: one word changed at the start misses the whole prompt', () => {
    const cache = new PrefixCache(100);
    const prompt = words(64);
    cache.lookup(prompt);
    const salted = ['salt', ...prompt.slice(1)];
    expect(cache.lookup(salted)).toBe(0);
    // A shared 32-token prefix is found whatever follows it.
    expect(cache.lookup([...prompt.slice(0, 32), ...words(32, 'y')])).toBe(32);
  });

  it('holds at most its capacity, least recently used out first', () => {
    const cache = new PrefixCache(4);
    const a = words(32, 'a');
    const b = words(32, 'b');
    const c = words(32, 'c');
    cache.lookup(a);
    cache.lookup(b);
    expect(cache.size).toBe(4);
    cache.lookup(a); // a is now the most recently used
    cache.lookup(c); // evicts b's blocks
    expect(cache.size).toBe(4);
    expect(cache.lookup(a)).toBe(31);
    expect(cache.lookup(b)).toBe(0);
  });
});

const TIMING: GenerativeTiming = {
  prefillPerToken_ms: 0.5,
  decodeBase_ms: 2,
  decodePerSequence_ms: 1,
  kvCache_tokens: 1000,
};

describe('the scheduler with cached tokens', () => {
  it('prefills only the input tokens not cached; the KV cache still holds the whole prompt', () => {
    const batcher = new ContinuousBatcher(TIMING);
    batcher.submit({ id: 1, inputTokens: 100, outputTokens: 10, cachedTokens: 96 });
    const step = batcher.next()!;
    expect(step.duration_ms).toBe(4 * TIMING.prefillPerToken_ms);
    expect(batcher.kvUsed_tokens).toBe(110);
  });
});

describe('the engine on cancel', () => {
  it('a cancelled request leaves the batch at once and frees its slot; one cancelled before it arrived never runs', async () => {
    const engine = new GenerationEngine({ ...TIMING, decodeBase_ms: 50 });
    try {
      const abort = new AbortController();
      let tokens = 0;
      const running = engine.generate(10, 500, () => (tokens += 1), abort.signal);
      // Admitted at once: the first step is planned when the engine is idle.
      expect(engine.running).toBe(1);
      abort.abort();
      await running;
      expect(engine.running).toBe(0);
      expect(tokens).toBeLessThan(500);
      const gone = new AbortController();
      gone.abort();
      await engine.generate(10, 5, () => (tokens += 1), gone.signal);
      expect(engine.running).toBe(0);
    } finally {
      engine.close();
    }
  });
});
