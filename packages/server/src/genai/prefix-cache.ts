/**
 * The simulated generative model's prefix cache, as vLLM's automatic prefix caching keeps one: a prompt is
 * cut into blocks of PREFIX_BLOCK_TOKENS tokens, each full block named by a hash of itself and every block
 * before it, and a bounded LRU of those names remembers what was computed. A prompt's cached tokens are its
 * leading blocks found in the cache; its prefill computes the rest (at least its last token, as vLLM does). The
 * counts are tokens, as vLLM's prefix_cache_queries and prefix_cache_hits are. Pure: no clock, no timers.
 */
import { createHash } from 'node:crypto';

/** Tokens per cache block (vLLM's default block size). */
export const PREFIX_BLOCK_TOKENS = 16;

/** What the cache has been asked and found, in tokens, since the model loaded. */
export interface PrefixCacheCounts {
  /** Prompt tokens looked up. */
  queries: number;
  /** Of them, tokens found cached. */
  hits: number;
}

/** A bounded LRU of prompt blocks. */
export class PrefixCache {
  readonly capacity_blocks: number;
  /** Block names, least recently used first (a Map keeps insertion order). */
  readonly #blocks = new Map<string, true>();
  readonly counts: PrefixCacheCounts = { queries: 0, hits: 0 };

  constructor(capacity_blocks: number) {
    this.capacity_blocks = capacity_blocks;
  }

  /** Blocks held now. */
  get size(): number {
    return this.#blocks.size;
  }

  /**
   * Looks a prompt's tokens up and remembers its full blocks; returns its cached tokens (at most all but one,
   * so a fully cached prompt still computes its last token).
   */
  lookup(tokens: readonly string[]): number {
    let name = '';
    let cached = 0;
    let missed = false;
    for (let start = 0; start + PREFIX_BLOCK_TOKENS <= tokens.length; start += PREFIX_BLOCK_TOKENS) {
      name = createHash('sha1')
        .update(name)
        .update('\u0000')
        .update(tokens.slice(start, start + PREFIX_BLOCK_TOKENS).join(' '))
        .digest('base64');
      const hit = !missed && this.#blocks.has(name);
      if (hit) cached += PREFIX_BLOCK_TOKENS;
      else missed = true;
      this.#touch(name);
    }
    cached = Math.min(cached, Math.max(0, tokens.length - 1));
    this.counts.queries += tokens.length;
    this.counts.hits += cached;
    return cached;
  }

  /** Marks a block most recently used, evicting the least recently used past the capacity. */
  #touch(name: string): void {
    this.#blocks.delete(name);
    this.#blocks.set(name, true);
    while (this.#blocks.size > this.capacity_blocks) {
      const oldest = this.#blocks.keys().next().value as string;
      this.#blocks.delete(oldest);
    }
  }
}
