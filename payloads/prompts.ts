/**
 * Prompt workloads for generative models (lib/genai/workload.ts), made on Node where the tokenizer runs:
 * synthetic prompts of an exact input length (normal with mean/stddev, or uniform over a range; genai-perf's
 * --synthetic-input-tokens-mean/-stddev), an optional prefix of N tokens shared by every prompt or a pool of
 * such prefixes each prompt draws one of (KV-cache reuse), salt slots the scenario fills so no prompt repeats
 * (lib/genai/salt.ts), output lengths drawn the same way, or a JSONL dataset/trace. Seeded: one seed, one
 * workload. Every input length is counted with the model's tokenizer.json, so the scenario only sends and records.
 */
import { readFileSync } from 'node:fs';
import { createRandom, type Random } from '../lib/random/random.ts';
import { type PromptRequest, type PromptWorkload, WORKLOAD_FORMAT } from '../lib/genai/workload.ts';
import {
  SALT_BASE,
  SALT_BODY_WORDS,
  SALT_HEAD_WORDS,
  SALT_WORDS,
  saltedPrompt,
  slotsAt,
} from '../lib/genai/salt.ts';
import type { TokenCounter } from './tokenizer.ts';
import { eachJsonLine } from './jsonl.ts';
import { drawLength } from '../lib/genai/settings.ts';
import type { LengthSpec } from '../lib/settings/kinds.ts';

/** What a workload is made of. */
export interface PromptWorkloadOptions {
  /** Catalog id, recorded in the file. */
  model: string;
  tokenizer: TokenCounter;
  /** Distinct requests (synthetic); a dataset has one per line. @default 100 */
  count?: number;
  /** @default 1 */
  seed?: number;
  inputTokens: LengthSpec;
  outputTokens: LengthSpec;
  /** Tokens at the start of every prompt, the same in all. @default 0 */
  prefixTokens?: number;
  /** Distinct prefixes of prefixTokens, each prompt drawing one. @default 1 */
  prefixPool?: number;
  /** Synthetic prompts get salt slots (lib/genai/salt.ts). @default false */
  salt?: boolean;
  /** A JSONL dataset or trace (datasetRequests), instead of synthetic prompts. */
  dataset?: { path: string; text: string };
}

/** Tries to correct a prompt's length before giving up (a BPE merge can move a count by more than one word). */
const MAX_ADJUSTMENTS = 200;

/**
 * A prompt of exactly `tokens` tokens (counted by the tokenizer on the whole text), `prefix` first: random
 * vocabulary words joined by spaces, then words added or dropped until the count is right.
 */
export function syntheticPrompt(tk: TokenCounter, tokens: number, rng: Random, prefix = ''): string {
  if (tk.words.length === 0)
    throw new Error(`tokenizer ${tk.path} has no plain words in its vocabulary to make prompts from`);
  const word = () => tk.words[rng.int(tk.words.length)]!;
  const lead = prefix === '' ? 0 : tk.count(prefix);
  const words: string[] = Array.from({ length: Math.max(0, tokens - lead) }, word);
  const text = () => [prefix, ...words].filter((s) => s !== '').join(' ');
  for (let i = 0; i < MAX_ADJUSTMENTS; i++) {
    const got = tk.count(text());
    if (got === tokens) return text();
    if (got < tokens) for (let k = got; k < tokens; k++) words.push(word());
    else if (words.length > 0) {
      // Drop as many words as tokens are over (at least one), then swap the last so a stuck count moves.
      words.splice(Math.max(0, words.length - Math.max(1, Math.floor((got - tokens) / 2))));
      if (words.length > 0) words[words.length - 1] = word();
    } else break;
  }
  throw new Error(
    `cannot make a prompt of exactly ${tokens} tokens with tokenizer ${tk.path}${prefix ? ` after a ${lead}-token prefix` : ''}; use a longer input length or another tokenizer`,
  );
}

/** Words the alphabet is searched for before giving up (a tokenizer with few one-token words). */
const MAX_ALPHABET_CANDIDATES = 20_000;

/**
 * SALT_BASE vocabulary words that are one token each after a space, so a salt word can replace another without
 * changing a prompt's count; one line naming the fix when the tokenizer has too few.
 */
export function saltAlphabet(tk: TokenCounter): string[] {
  const ref = tk.words[0] ?? '';
  const base = tk.count(ref);
  const out: string[] = [];
  for (const w of tk.words.slice(0, MAX_ALPHABET_CANDIDATES)) {
    if (tk.count(w) === 1 && tk.count(`${ref} ${w}`) === base + 1) out.push(w);
    if (out.length === SALT_BASE) return out;
  }
  throw new Error(
    `tokenizer ${tk.path} has ${out.length} one-token words, fewer than the ${SALT_BASE} a prompt salt is spelled in; set PROMPT_SALT=off`,
  );
}

/** `words` placeholder salt words (the alphabet's first, repeated): what a slot holds until a send spells it. */
export function saltPlaceholder(alphabet: readonly string[], words: number): string {
  return Array.from({ length: words }, () => alphabet[0]).join(' ');
}

/** Checks a salted prompt keeps its count with other salts spelled in; throws naming the fix if not. */
export function checkSalted(tk: TokenCounter, request: PromptRequest, alphabet: readonly string[]): void {
  const keys = [
    { run: SALT_BASE ** SALT_HEAD_WORDS - 1, vu: SALT_BASE ** 2 - 1, send: SALT_BASE ** 3 - 1 },
    { run: 0x12345, vu: 0x1234, send: 0x56789 },
  ];
  for (const key of keys) {
    const got = tk.count(saltedPrompt(request.prompt, request.salt!, alphabet, key));
    if (got !== request.inputTokens)
      throw new Error(
        `a salted prompt counts ${got} tokens, not ${request.inputTokens}, with tokenizer ${tk.path}; set PROMPT_SALT=off`,
      );
  }
}

/** The synthetic requests of a workload, with the salt alphabet when they are salted. */
function syntheticRequests(
  o: PromptWorkloadOptions,
  rng: Random,
): { requests: PromptRequest[]; alphabet?: string[] } {
  const prefixTokens = o.prefixTokens ?? 0;
  const pool = prefixTokens > 0 ? Math.max(1, o.prefixPool ?? 1) : 1;
  // The first prefix is drawn as it was before pools, so a one-prefix workload's prompts stay the same.
  const prefixes = Array.from({ length: pool }, (_, i) =>
    prefixTokens > 0
      ? syntheticPrompt(o.tokenizer, prefixTokens, rng.fork(i === 0 ? 'prefix' : `prefix${i}`))
      : '',
  );
  const alphabet = o.salt ? saltAlphabet(o.tokenizer) : undefined;
  const head = alphabet ? saltPlaceholder(alphabet, SALT_HEAD_WORDS) : '';
  const body = alphabet ? saltPlaceholder(alphabet, SALT_BODY_WORDS) : '';
  const reserved = prefixTokens + (alphabet ? SALT_WORDS : 0);
  const lengths = rng.fork('lengths');
  const words = rng.fork('words');
  const draws = rng.fork('pool');
  const requests = Array.from({ length: o.count ?? 100 }, (): PromptRequest => {
    const inputTokens = drawLength(o.inputTokens, lengths);
    const outputTokens = drawLength(o.outputTokens, lengths);
    if (inputTokens <= reserved)
      throw new Error(
        alphabet
          ? `an input length of ${inputTokens} tokens leaves no room past the ${prefixTokens}-token prefix and the ${SALT_WORDS}-token salt; raise INPUT_TOKENS, lower PREFIX_TOKENS or set PROMPT_SALT=off`
          : `an input length of ${inputTokens} tokens does not exceed the shared prefix of ${prefixTokens}; raise INPUT_TOKENS or lower PREFIX_TOKENS`,
      );
    const prefix = prefixes[pool > 1 ? draws.int(pool) : 0]!;
    const lead = [head, prefix, body].filter((s) => s !== '').join(' ');
    const prompt = syntheticPrompt(o.tokenizer, inputTokens, words, lead);
    if (!alphabet) return { prompt, inputTokens, outputTokens };
    const prefixWords = prefix === '' ? 0 : prefix.split(/\s+/).filter((w) => w !== '').length;
    const request = {
      prompt,
      inputTokens,
      outputTokens,
      salt: slotsAt(prompt, 0, SALT_HEAD_WORDS + prefixWords),
    };
    checkSalted(o.tokenizer, request, alphabet);
    return request;
  });
  return alphabet ? { requests, alphabet } : { requests };
}

/**
 * A JSONL dataset's requests, one per line: `text` (or `prompt`) for a given prompt, else `input_length` for a
 * synthetic one of that many tokens; `output_length` (else drawn from the output spec); `timestamp` (ms) makes
 * it a trace replayed at those times (then every line needs one, in order). Errors name the file and line.
 */
export function datasetRequests(o: PromptWorkloadOptions, rng: Random): PromptRequest[] {
  const { path, text } = o.dataset!;
  const fix =
    'each line is {"text": "..."} or {"input_length": N}, with "output_length" and "timestamp" (ms) optional';
  const requests: PromptRequest[] = [];
  const words = rng.fork('words');
  const lengths = rng.fork('lengths');
  let timed: boolean | undefined;
  let first_ms = 0;
  let previous_ms = -Infinity;
  eachJsonLine(text, `dataset ${path}`, fix, (row, fail) => {
    const given = row['text'] ?? row['prompt'];
    const whole = (key: string) => {
      const v = row[key];
      if (v === undefined) return undefined;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
        throw fail(`${key} ${JSON.stringify(v)} is not a whole number >= 1`);
      return v;
    };
    const inputLength = whole('input_length');
    const outputTokens = whole('output_length') ?? drawLength(o.outputTokens, lengths);
    let prompt: string;
    if (typeof given === 'string' && given.trim() !== '') prompt = given;
    else if (inputLength !== undefined) prompt = syntheticPrompt(o.tokenizer, inputLength, words);
    else throw fail('no "text" and no "input_length"');
    const inputTokens = o.tokenizer.count(prompt);
    if (inputTokens < 1) throw fail('the prompt has no tokens');
    const request: PromptRequest = { prompt, inputTokens, outputTokens };
    const stamp = row['timestamp'];
    if (timed === undefined) timed = stamp !== undefined;
    if (timed !== (stamp !== undefined)) throw fail('a trace needs a "timestamp" on every line');
    if (timed) {
      if (typeof stamp !== 'number' || !Number.isFinite(stamp) || stamp < previous_ms)
        throw fail(`timestamp ${JSON.stringify(stamp)} is not a number of ms at or after the line before's`);
      if (requests.length === 0) first_ms = stamp;
      previous_ms = stamp;
      request.at_ms = stamp - first_ms;
    }
    requests.push(request);
  });
  if (requests.length === 0) throw new Error(`dataset ${path} has no requests; ${fix}`);
  return requests;
}

/** Makes the workload (synthetic, or from the dataset when given). */
export function makePromptWorkload(
  o: PromptWorkloadOptions,
  recipe: Record<string, unknown>,
): PromptWorkload {
  const seed = o.seed ?? 1;
  const rng = createRandom(seed);
  const synthetic = o.dataset ? undefined : syntheticRequests(o, rng);
  // Dataset prompts are sent as written: a salt would change their text and count.
  const made = synthetic
    ? { ...(synthetic.alphabet ? { saltAlphabet: synthetic.alphabet } : {}), requests: synthetic.requests }
    : { requests: datasetRequests(o, rng) };
  return {
    format: WORKLOAD_FORMAT,
    model: o.model,
    inputTokenSource: 'tokenizer',
    tokenizer: o.tokenizer.path,
    seed,
    recipe,
    ...made,
  };
}

/** Reads a dataset file; one line naming it when it cannot be read. */
export function readDataset(path: string): { path: string; text: string } {
  try {
    return { path, text: readFileSync(path, 'utf8') };
  } catch (err) {
    throw new Error(
      `cannot read dataset ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)}); check the path`,
    );
  }
}
