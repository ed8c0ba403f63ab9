import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILTIN_QA } from '../../payloads/bert-examples.ts';
import { docSpans, featurize, readSquad } from '../../payloads/squad.ts';
import { loadVocab, tokenize, toIds } from '../../payloads/wordpiece.ts';

const vocab = loadVocab();

describe('SQuAD features', () => {
  it('lays out [CLS] question [SEP] context [SEP] with segments, mask and padding', () => {
    const pair = { id: 'x', question: 'Who ran?', context: 'The quick brown fox ran.', answer: 'fox' };
    const [f, ...rest] = featurize(pair, vocab, { seqLength: 16, docStride: 128, maxQueryLength: 64 });
    expect(rest).toHaveLength(0);
    const q = toIds(tokenize('Who ran?', vocab), vocab);
    const c = toIds(tokenize('The quick brown fox ran.', vocab), vocab);
    const real = [101, ...q, 102, ...c, 102];
    expect(f!.inputIds).toEqual([...real, ...Array(16 - real.length).fill(0)]);
    expect(f!.segmentIds).toEqual([
      ...Array(q.length + 2).fill(0),
      ...Array(c.length + 1).fill(1),
      ...Array(16 - real.length).fill(0),
    ]);
    expect(f!.inputMask).toEqual([...Array(real.length).fill(1), ...Array(16 - real.length).fill(0)]);
  });

  it('places windows doc_stride apart, each at most the room left after the question', () => {
    expect(docSpans(10, 4, 2)).toEqual([
      { start: 0, length: 4 },
      { start: 2, length: 4 },
      { start: 4, length: 4 },
      { start: 6, length: 4 },
    ]);
    // A stride above the window length never skips tokens: the step is min(length, stride).
    expect(docSpans(10, 4, 128)).toEqual([
      { start: 0, length: 4 },
      { start: 4, length: 4 },
      { start: 8, length: 2 },
    ]);
    expect(docSpans(0, 4, 2)).toEqual([{ start: 0, length: 0 }]);
  });

  it('covers a long built-in context with overlapping windows for a 384-token model', () => {
    const pair = BUILTIN_QA.find((p) => p.id === 'builtin-05')!;
    const settings = { seqLength: 384, docStride: 128, maxQueryLength: 64 };
    const features = featurize(pair, vocab, settings);
    const docTokens = pair.context.split(/\s+/).flatMap((w) => tokenize(w, vocab)).length;
    const qTokens = tokenize(pair.question, vocab).length;
    expect(docTokens).toBeGreaterThan(384 - qTokens - 3);
    expect(features.length).toBe(docSpans(docTokens, 384 - qTokens - 3, 128).length);
    expect(features.length).toBeGreaterThan(1);
    for (const f of features) {
      expect(f.inputIds).toHaveLength(384);
      expect(f.inputIds[0]).toBe(101);
      expect(f.inputIds.filter((id) => id === 102)).toHaveLength(2);
    }
    // The first window is full, the last is padded.
    expect(features[0]!.inputMask.every((m) => m === 1)).toBe(true);
    expect(features.at(-1)!.inputMask.at(-1)).toBe(0);
  });

  it('cuts questions to max_query_length', () => {
    const pair = { id: 'q', question: 'one two three four five six', context: 'seven eight', answer: '' };
    const [f] = featurize(pair, vocab, { seqLength: 12, docStride: 4, maxQueryLength: 2 });
    expect(f!.inputIds.slice(0, 4)).toEqual([101, ...toIds(['one', 'two'], vocab), 102]);
  });

  it('finds every answer text of the built-in pairs in its context', () => {
    expect(BUILTIN_QA.length).toBeGreaterThanOrEqual(10);
    for (const p of BUILTIN_QA) expect(p.context).toContain(p.answer);
  });

  describe('SQuAD files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'k6t-squad-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reads questions and contexts from the SQuAD JSON layout', () => {
      const file = join(dir, 'dev.json');
      const context = 'Paris is the capital of France.';
      writeFileSync(
        file,
        JSON.stringify({
          version: '1.1',
          data: [
            {
              title: 't',
              paragraphs: [
                {
                  context,
                  qas: [
                    {
                      id: 'a1',
                      question: 'What is the capital?',
                      answers: [{ text: 'Paris', answer_start: 0 }],
                    },
                  ],
                },
              ],
            },
          ],
        }),
      );
      expect(readSquad(file)).toEqual([
        { id: 'a1', question: 'What is the capital?', context, answer: 'Paris' },
      ]);
    });

    it('rejects a file with no questions, naming it', () => {
      const file = join(dir, 'empty.json');
      writeFileSync(file, '{"data": []}');
      expect(() => readSquad(file)).toThrow(`SQuAD file ${file} has no questions`);
    });
  });
});
