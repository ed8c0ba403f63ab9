import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  basicTokenize,
  bundledVocabPath,
  loadVocab,
  tokenize,
  toIds,
  wordpiece,
} from '../../payloads/wordpiece.ts';

const vocab = loadVocab();
// The raw package file, to check ids independently of loadVocab's conversion.
const raw = JSON.parse(readFileSync(bundledVocabPath(), 'utf8')) as string[];
const start = (w: string) => raw.indexOf(`\u2581${w}`);
const cont = (w: string) => raw.indexOf(w);

describe('BERT uncased WordPiece', () => {
  it('loads all 30522 tokens with BERT special ids', () => {
    expect(vocab.tokens).toHaveLength(30522);
    expect(toIds(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'], vocab)).toEqual([0, 100, 101, 102, 103]);
  });

  it('splits "unaffable" greedily, longest piece first, as the real uncased vocab allows', () => {
    const pieces = tokenize('unaffable', vocab);
    expect(pieces).toEqual(['una', '##ffa', '##ble']);
    expect(toIds(pieces, vocab)).toEqual([start('una'), cont('ffa'), cont('ble')]);
    expect(toIds(pieces, vocab)).toEqual([14477, 20961, 3468]);
  });

  it('tokenizes a sentence to the standard bert-base-uncased ids', () => {
    const pieces = tokenize('The quick brown fox jumped.', vocab);
    expect(pieces).toEqual(['the', 'quick', 'brown', 'fox', 'jumped', '.']);
    expect(toIds(pieces, vocab)).toEqual([1996, 4248, 2829, 4419, 5598, 1012]);
    expect(toIds(pieces, vocab)).toEqual(['the', 'quick', 'brown', 'fox', 'jumped', '.'].map(start));
  });

  it('lower-cases, strips accents and splits punctuation and apostrophes', () => {
    expect(basicTokenize("Héllo, NAÏVE café-owner's   world!")).toEqual([
      'hello',
      ',',
      'naive',
      'cafe',
      '-',
      'owner',
      "'",
      's',
      'world',
      '!',
    ]);
    expect(tokenize("Triton's batcher", vocab)).toEqual(['tri', '##ton', "'", 's', 'batch', '##er']);
  });

  it('splits CJK characters and drops control characters', () => {
    expect(basicTokenize('中文\u0000ok\u200b')).toEqual(['中', '文', 'ok']);
  });

  it('gives [UNK] for a word with no vocabulary piece and for over-long words', () => {
    expect(wordpiece('\u2603\u2603', vocab)).toEqual(['[UNK]']);
    expect(wordpiece('a'.repeat(101), vocab)).toEqual(['[UNK]']);
  });

  describe('with a vocab.txt', () => {
    const dir = mkdtempSync(join(tmpdir(), 'k6t-vocab-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reads one token per line, id = line number', () => {
      const file = join(dir, 'vocab.txt');
      writeFileSync(
        file,
        ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'un', '##aff', '##able', 'fox'].join('\n') + '\n',
      );
      const small = loadVocab(file);
      expect(tokenize('Unaffable fox', small)).toEqual(['un', '##aff', '##able', 'fox']);
      expect(toIds(tokenize('Unaffable fox cat', small), small)).toEqual([4, 5, 6, 7, 1]);
    });

    it('rejects a file without BERT special tokens', () => {
      const file = join(dir, 'bad.txt');
      writeFileSync(file, 'a\nb\n');
      expect(() => loadVocab(file)).toThrow(/has no \[PAD\] token/);
    });
  });
});
