/**
 * SQuAD preprocessing for BERT question answering, as Google's run_squad.py does it:
 * [CLS] question [SEP] context-window [SEP], segment ids 0 then 1, input mask 1 on real tokens,
 * padding to the sequence length, questions cut to max_query_length, and long contexts covered
 * by windows that start doc_stride tokens apart.
 */
import { readFileSync } from 'node:fs';
import type { QaPair } from './bert-examples.ts';
import { tokenize, toIds, type Vocab } from './wordpiece.ts';

/** Sequence settings (the catalog's bert recipe). */
export interface SquadSettings {
  seqLength: number;
  docStride: number;
  maxQueryLength: number;
}

/** One model input row: three int arrays of seqLength. */
export interface BertFeature {
  exampleId: string;
  /** Window index within the example (0 for the first). */
  window: number;
  inputIds: number[];
  segmentIds: number[];
  inputMask: number[];
}

/** Start and length (in word pieces) of each window over a context of `total` pieces. */
export function docSpans(
  total: number,
  maxTokensForDoc: number,
  docStride: number,
): { start: number; length: number }[] {
  const spans: { start: number; length: number }[] = [];
  let start = 0;
  while (start < total || spans.length === 0) {
    const length = Math.min(total - start, maxTokensForDoc);
    spans.push({ start, length });
    if (start + length >= total) break;
    start += Math.min(length, docStride);
  }
  return spans;
}

/** Turns one question/context pair into one feature per doc_stride window. */
export function featurize(pair: QaPair, vocab: Vocab, settings: SquadSettings): BertFeature[] {
  const { seqLength, docStride, maxQueryLength } = settings;
  const query = tokenize(pair.question, vocab).slice(0, maxQueryLength);
  // Contexts split on whitespace first, then each word into pieces, as run_squad.py does.
  const docPieces = pair.context
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((w) => tokenize(w, vocab));
  const maxTokensForDoc = seqLength - query.length - 3;
  if (maxTokensForDoc < 1) {
    throw new Error(
      `sequence length ${seqLength} leaves no room for the context after a ${query.length}-token question`,
    );
  }
  return docSpans(docPieces.length, maxTokensForDoc, docStride).map((span, window) => {
    const tokens = [
      '[CLS]',
      ...query,
      '[SEP]',
      ...docPieces.slice(span.start, span.start + span.length),
      '[SEP]',
    ];
    const firstSegmentLength = query.length + 2;
    const inputIds = toIds(tokens, vocab);
    const segmentIds = tokens.map((_, i) => (i < firstSegmentLength ? 0 : 1));
    const inputMask = tokens.map(() => 1);
    while (inputIds.length < seqLength) {
      inputIds.push(0);
      segmentIds.push(0);
      inputMask.push(0);
    }
    return { exampleId: pair.id, window, inputIds, segmentIds, inputMask };
  });
}

interface SquadFile {
  data?: Array<{
    paragraphs?: Array<{
      context?: string;
      qas?: Array<{ id?: string; question?: string; answers?: Array<{ text?: string }> }>;
    }>;
  }>;
}

/** Reads question/context pairs from a SQuAD-format JSON file (v1.1 or v2.0). */
export function readSquad(path: string): QaPair[] {
  let doc: SquadFile;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8')) as SquadFile;
  } catch (err) {
    throw new Error(`cannot read SQuAD file ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const pairs: QaPair[] = [];
  for (const article of doc.data ?? []) {
    for (const para of article.paragraphs ?? []) {
      for (const qa of para.qas ?? []) {
        if (typeof para.context !== 'string' || typeof qa.question !== 'string') continue;
        pairs.push({
          id: qa.id ?? `q${pairs.length}`,
          question: qa.question,
          context: para.context,
          answer: qa.answers?.[0]?.text ?? '',
        });
      }
    }
  }
  if (pairs.length === 0) {
    throw new Error(
      `SQuAD file ${path} has no questions; expected {"data":[{"paragraphs":[{"context":…,"qas":[…]}]}]}`,
    );
  }
  return pairs;
}
