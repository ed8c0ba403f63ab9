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
  syntheticPrompt,
} from '../../payloads/prompts.ts';
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
