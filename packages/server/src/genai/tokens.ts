/**
 * Pseudo-tokens of the simulated generative model, so token counts are exact on both sides: an input token is
 * a whitespace-separated word of `text_input`; an output token is one whitespace-free pseudo-word, one per
 * streamed response, chosen deterministically from the prompt and the token's position.
 */

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'nu',
  're',
  'sa',
  'ti',
  'vo',
  'de',
  'fu',
  'ga',
  'ho',
  'ji',
  'pe',
  'qu',
  'zo',
];

/**
 * The model's vocabulary: every word an output token can be (two or three syllables), in a fixed order. The
 * model's tokenizer.json (server/models/gpt2) is a WordLevel tokenizer over it, so a tokenizer and the server
 * count the same tokens.
 */
export function vocabulary(): string[] {
  const words: string[] = [];
  for (const a of SYLLABLES) for (const b of SYLLABLES) words.push(a + b);
  for (const a of SYLLABLES) for (const b of SYLLABLES) for (const c of SYLLABLES) words.push(a + b + c);
  return words;
}

/** Input tokens of a prompt: its whitespace-separated words (the tokenizer's WhitespaceSplit). */
export function countInputTokens(text: string): number {
  let count = 0;
  for (const word of text.split(/\s+/)) if (word !== '') count += 1;
  return count;
}

/** A prompt's seed for its output tokens (FNV-1a of its text). */
export function promptSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Output token `index` of a prompt with `seed`: two or three syllables, no whitespace. */
export function outputToken(seed: number, index: number): string {
  let h = Math.imul(seed ^ Math.imul(index + 1, 0x9e3779b1), 0x85ebca6b) >>> 0;
  let word = '';
  const length = 2 + (h & 1);
  for (let i = 0; i < length; i++) {
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
    word += SYLLABLES[h & 15];
  }
  return word;
}
