/**
 * Prompt workloads (payloads/prompts.ts) with the simulated gpt2's own tokenizer.json: synthetic prompts are
 * exactly the asked number of tokens when the tokenizer counts them, lengths follow the asked distribution and
 * seed, a shared prefix is the same N tokens in every prompt, datasets and traces read line by line.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseWorkload } from '../../lib/genai/workload.ts';
import { createRandom } from '../../lib/random/random.ts';
import {
  datasetRequests,
  makePromptWorkload,
  type PromptWorkloadOptions,
  saltAlphabet,
  syntheticPrompt,
} from '../../payloads/prompts.ts';
import { SALT_BASE, saltedPrompt } from '../../lib/genai/salt.ts';
import { loadTokenizer } from '../../payloads/tokenizer.ts';
import { countInputTokens, GPT2_TOKENIZER_FILE, gpt2TokenizerText } from '@k6-triton/server';

const tokenizer = loadTokenizer(GPT2_TOKENIZER_FILE);
const base = (o: Partial<PromptWorkloadOptions> = {}): PromptWorkloadOptions => ({
  model: 'gpt2',
  tokenizer,
  inputTokens: { mean: 50, stddev: 0 },
  outputTokens: { mean: 10, stddev: 0 },
  ...o,
});

describe("gpt2's tokenizer.json", () => {
  it('is the one its generator writes (a WordLevel over the model vocabulary)', () => {
    expect(readFileSync(GPT2_TOKENIZER_FILE, 'utf8')).toBe(gpt2TokenizerText());
    expect(tokenizer.words).toHaveLength(16 ** 2 + 16 ** 3);
  });

  it('counts what the simulated server counts, unknown words and odd whitespace included', () => {
    const rng = createRandom(9);
    for (let i = 0; i < 50; i++) {
      const words = Array.from({ length: 1 + rng.int(40) }, () =>
        rng.int(4) === 0 ? `x${rng.int(1000)}` : tokenizer.words[rng.int(tokenizer.words.length)]!,
      );
      const text = words.join([' ', '  ', '\n', '\t '][rng.int(4)]!);
      expect(tokenizer.count(text)).toBe(countInputTokens(text));
    }
  });

  it('a folder or a missing file: the folder is read, a missing one named with the fix', () => {
    expect(loadTokenizer(GPT2_TOKENIZER_FILE.replace(/tokenizer\.json$/, '')).path).toBe(GPT2_TOKENIZER_FILE);
    expect(() => loadTokenizer('/nonexistent/model')).toThrow(
      "tokenizer /nonexistent/model does not exist; give --tokenizer a model's tokenizer.json or the folder holding it",
    );
  });
});

describe('synthetic prompts', () => {
  it('tokenise to exactly the asked length', () => {
    const rng = createRandom(3);
    for (const n of [1, 2, 17, 200, 1000])
      expect(tokenizer.count(syntheticPrompt(tokenizer, n, rng))).toBe(n);
  });

  it('tokenise exactly with a byte-level BPE whose words are one or two tokens (words added and dropped)', () => {
    const bpe = loadTokenizer(new URL('./fixtures/tiny-bpe-tokenizer.json', import.meta.url).pathname);
    expect(bpe.words).toEqual(['ab', 'abc']);
    expect([bpe.count('ab ab'), bpe.count('abc abc')]).toEqual([2, 3]);
    const rng = createRandom(2);
    for (let n = 1; n <= 60; n++) expect(bpe.count(syntheticPrompt(bpe, n, rng))).toBe(n);
  });

  it('follow the asked mean/stddev or range, each prompt exactly its drawn length, seeded', () => {
    const normal = makePromptWorkload(
      base({ count: 200, seed: 5, inputTokens: { mean: 100, stddev: 10 }, outputTokens: { min: 3, max: 7 } }),
      {},
    );
    const isl = normal.requests.map((r) => r.inputTokens);
    const mean = isl.reduce((a, b) => a + b, 0) / isl.length;
    expect(mean).toBeGreaterThan(97);
    expect(mean).toBeLessThan(103);
    expect(new Set(isl).size).toBeGreaterThan(10);
    for (const r of normal.requests) expect(tokenizer.count(r.prompt)).toBe(r.inputTokens);
    const osl = normal.requests.map((r) => r.outputTokens);
    expect(Math.min(...osl)).toBe(3);
    expect(Math.max(...osl)).toBe(7);
    const again = makePromptWorkload(
      base({ count: 200, seed: 5, inputTokens: { mean: 100, stddev: 10 }, outputTokens: { min: 3, max: 7 } }),
      {},
    );
    expect(again).toEqual(normal);
    const other = makePromptWorkload(
      base({ count: 200, seed: 6, inputTokens: { mean: 100, stddev: 10 } }),
      {},
    );
    expect(other.requests[0]!.prompt).not.toBe(normal.requests[0]!.prompt);
  });

  it('share a prefix of exactly N tokens', () => {
    const w = makePromptWorkload(
      base({ count: 20, prefixTokens: 30, inputTokens: { min: 40, max: 60 } }),
      {},
    );
    const first = w.requests[0]!.prompt.split(' ').slice(0, 30).join(' ');
    expect(tokenizer.count(first)).toBe(30);
    for (const r of w.requests) {
      expect(r.prompt.startsWith(`${first} `)).toBe(true);
      expect(tokenizer.count(r.prompt)).toBe(r.inputTokens);
    }
    expect(new Set(w.requests.map((r) => r.prompt)).size).toBe(20);
    expect(() => makePromptWorkload(base({ prefixTokens: 50 }), {})).toThrow(
      'an input length of 50 tokens does not exceed the shared prefix of 50; raise INPUT_TOKENS or lower PREFIX_TOKENS',
    );
  });
});

describe('salted prompts and prefix pools (cache-honest workloads)', () => {
  const key = (run: number, vu: number, send: number) => ({ run, vu, send });

  it('salt slots: any salt keeps the exact count; different senders and runs never make the same prompt', () => {
    const w = makePromptWorkload(base({ count: 10, salt: true, inputTokens: { min: 20, max: 60 } }), {});
    const alphabet = w.saltAlphabet!;
    expect(alphabet).toHaveLength(SALT_BASE);
    expect(new Set(alphabet).size).toBe(SALT_BASE);
    const seen = new Set<string>();
    for (const r of w.requests) {
      expect(tokenizer.count(r.prompt)).toBe(r.inputTokens);
      for (const k of [key(0, 1, 0), key(0, 1, 1), key(0, 2, 0), key(1, 1, 0), key(999_999, 300, 70_000)]) {
        const p = saltedPrompt(r.prompt, r.salt!, alphabet, k);
        expect(tokenizer.count(p)).toBe(r.inputTokens);
        seen.add(p);
      }
    }
    expect(seen.size).toBe(10 * 5);
    // The workload file carries the slots and the alphabet through its parser.
    expect(parseWorkload(JSON.stringify(w), 'w.json').requests[0]!.salt).toEqual(w.requests[0]!.salt);
  });

  it('the salt leads the prompt and follows the shared prefix, which stays shared within a run', () => {
    const w = makePromptWorkload(
      base({ count: 6, salt: true, prefixTokens: 30, inputTokens: { mean: 60, stddev: 0 } }),
      {},
    );
    const prompts = w.requests.map((r, i) => saltedPrompt(r.prompt, r.salt!, w.saltAlphabet!, key(7, 1, i)));
    const words = prompts.map((p) => p.split(' '));
    // Head: 3 words of the run's salt, then 30 prefix words the same in all, then 5 words unique per send.
    for (const ws of words) expect(ws.slice(0, 33)).toEqual(words[0]!.slice(0, 33));
    expect(new Set(words.map((ws) => ws.slice(33, 38).join(' '))).size).toBe(6);
    const otherRun = saltedPrompt(w.requests[0]!.prompt, w.requests[0]!.salt!, w.saltAlphabet!, key(8, 1, 0));
    expect(otherRun.split(' ')[0]).not.toBe(words[0]![0]);
    expect(() => makePromptWorkload(base({ salt: true, prefixTokens: 45 }), {})).toThrow(
      'an input length of 50 tokens leaves no room past the 45-token prefix and the 8-token salt; raise INPUT_TOKENS, lower PREFIX_TOKENS or set PROMPT_SALT=off',
    );
  });

  it('a prefix pool: N distinct prefixes of exactly L tokens, every prompt starting with one of them', () => {
    const w = makePromptWorkload(
      base({ count: 40, prefixTokens: 20, prefixPool: 4, inputTokens: { mean: 50, stddev: 0 } }),
      {},
    );
    const prefixes = w.requests.map((r) => r.prompt.split(' ').slice(0, 20).join(' '));
    expect(new Set(prefixes).size).toBe(4);
    for (const p of prefixes) expect(tokenizer.count(p)).toBe(20);
    for (const r of w.requests) expect(tokenizer.count(r.prompt)).toBe(50);
    // One prefix: the workload is the one made before pools existed.
    const one = makePromptWorkload(base({ count: 5, prefixTokens: 20 }), {});
    expect(makePromptWorkload(base({ count: 5, prefixTokens: 20, prefixPool: 1 }), {})).toEqual(one);
  });

  it('the salt alphabet of a BPE without enough one-token words: one line naming PROMPT_SALT=off', () => {
    const bpe = loadTokenizer(new URL('./fixtures/tiny-bpe-tokenizer.json', import.meta.url).pathname);
    expect(() => saltAlphabet(bpe)).toThrow(
      /one-token words, fewer than the 256 a prompt salt is spelled in; set PROMPT_SALT=off$/,
    );
  });
});

describe('datasets and traces (JSON lines)', () => {
  const read = (text: string, o: Partial<PromptWorkloadOptions> = {}) =>
    datasetRequests(base({ dataset: { path: 'd.jsonl', text }, ...o }), createRandom(1));

  it('a given prompt is counted by the tokenizer; an input_length is made exactly; output_length kept', () => {
    const [given, made, drawn] = read(
      '{"text": "kalo mi  kaka zzz", "output_length": 4}\n\n{"input_length": 64, "output_length": 9}\n{"prompt": "kaka"}\n',
    );
    expect(given).toEqual({ prompt: 'kalo mi  kaka zzz', inputTokens: 4, outputTokens: 4 });
    expect([made!.inputTokens, tokenizer.count(made!.prompt), made!.outputTokens]).toEqual([64, 64, 9]);
    expect([drawn!.inputTokens, drawn!.outputTokens]).toEqual([1, 10]);
  });

  it('a trace: send times from its first request, which every line must have, in order', () => {
    const trace = read(
      '{"timestamp": 1000, "input_length": 5}\n{"timestamp": 1000, "input_length": 6}\n{"timestamp": 1250.5, "input_length": 7}\n',
    );
    expect(trace.map((r) => [r.at_ms, r.inputTokens])).toEqual([
      [0, 5],
      [0, 6],
      [250.5, 7],
    ]);
    expect(() => read('{"timestamp": 5, "input_length": 5}\n{"input_length": 6}')).toThrow(
      /^dataset d.jsonl line 2: a trace needs a "timestamp" on every line; each line is/,
    );
    expect(() => read('{"timestamp": 5, "input_length": 5}\n{"timestamp": 4, "input_length": 6}')).toThrow(
      /^dataset d.jsonl line 2: timestamp 4 is not a number of ms at or after the line before's/,
    );
  });

  it('bad lines: one line naming the file, line and fix', () => {
    expect(() => read('{"text": "kaka"}\nnope')).toThrow(/^dataset d.jsonl line 2: not JSON; each line is/);
    expect(() => read('{"output_length": 3}')).toThrow(/line 1: no "text" and no "input_length"/);
    expect(() => read('{"input_length": 0}')).toThrow(/line 1: input_length 0 is not a whole number >= 1/);
    expect(() => read('\n')).toThrow(/^dataset d.jsonl has no requests/);
  });
});

describe('the workload file', () => {
  it('round-trips through the parser the scenario uses, and a broken one is named', () => {
    const w = makePromptWorkload(base({ count: 3 }), { note: 'x' });
    expect(parseWorkload(JSON.stringify(w), 'w.json')).toEqual(w);
    expect(w.inputTokenSource).toBe('tokenizer');
    expect(() => parseWorkload(JSON.stringify({ ...w, requests: [] }), 'w.json')).toThrow(
      'prompt workload w.json: no requests; regenerate it (k6-triton bench <model> makes one)',
    );
  });
});
