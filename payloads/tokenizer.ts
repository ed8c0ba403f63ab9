/**
 * Token counts with a model's own tokenizer: its Hugging Face tokenizer.json (and tokenizer_config.json beside
 * it when there is one) read by @huggingface/tokenizers, pure JS, nothing fetched. Runs on Node where the
 * prompts are made (payloads/prompts.ts), not inside k6. Counts leave special tokens out (genai-perf's
 * add_special_tokens=False), so a count is the text's own tokens.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';

/** A loaded tokenizer: where it came from and how it counts. */
export interface TokenCounter {
  /** The tokenizer.json read. */
  path: string;
  /** sha256 of that file (first 16 hex digits), for cache keys. */
  sha256: string;
  /** Tokens of `text`, special tokens left out. */
  count(text: string): number;
  /** Plain words of the vocabulary (letters only, word-start markers stripped), in id order: prompt material. */
  words: string[];
}

/** The tokenizer.json of a path: the file itself, or the one inside a model folder. */
export function tokenizerFile(path: string): string {
  const full = resolve(path);
  const file = existsSync(full) && statSync(full).isDirectory() ? join(full, 'tokenizer.json') : full;
  if (!existsSync(file))
    throw new Error(
      `tokenizer ${file} does not exist; give --tokenizer a model's tokenizer.json or the folder holding it`,
    );
  return file;
}

function readJson(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new Error(
      `tokenizer ${file} is not readable JSON (${err instanceof Error ? err.message : String(err)}); give a Hugging Face tokenizer.json`,
    );
  }
}

/** The vocabulary's tokens in id order (WordLevel, WordPiece and BPE keep an object, Unigram an array). */
function vocabTokens(model: Record<string, unknown> | undefined): string[] {
  const vocab = model?.['vocab'];
  if (Array.isArray(vocab)) return vocab.map((entry) => String((entry as unknown[])[0]));
  if (vocab && typeof vocab === 'object')
    return Object.entries(vocab as Record<string, number>)
      .sort((a, b) => a[1] - b[1])
      .map(([token]) => token);
  return [];
}

/** Loads the tokenizer at `path` (a tokenizer.json or a model folder); one line naming the file when it cannot. */
export function loadTokenizer(path: string): TokenCounter {
  const file = tokenizerFile(path);
  const json = readJson(file);
  const configFile = join(dirname(file), 'tokenizer_config.json');
  const config = existsSync(configFile) ? readJson(configFile) : {};
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(json, config);
  } catch (err) {
    throw new Error(
      `tokenizer ${file} cannot be read (${err instanceof Error ? err.message : String(err)}); give a Hugging Face tokenizer.json`,
    );
  }
  const special = new Set(
    ((json['added_tokens'] as { content: string }[] | undefined) ?? []).map((t) => t.content),
  );
  // Byte-level BPE marks a word start with "Ġ", SentencePiece with "▁"; a prompt joins words with spaces.
  const words = vocabTokens(json['model'] as Record<string, unknown> | undefined)
    .filter((t) => !special.has(t))
    .map((t) => t.replace(/^[Ġ▁]/, ''))
    .filter((t) => /^[A-Za-z]{2,}$/.test(t));
  return {
    path: file,
    sha256: createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16),
    count: (text) => tokenizer.encode(text, { add_special_tokens: false }).tokens.length,
    words: [...new Set(words)],
  };
}
