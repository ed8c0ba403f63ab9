/**
 * The simulated gpt2's own tokenizer.json, in Hugging Face's tokenizer format: a WordLevel model over the
 * model's vocabulary (packages/server/src/genai/tokens.ts) behind a WhitespaceSplit pre-tokenizer, so one whitespace word
 * is one token, as the simulated backend counts them; a word outside the vocabulary is one `[UNK]`. It is
 * checked in beside this file (a test keeps the two equal) so the path "count with the model's tokenizer.json"
 * runs on the embedded server as it does on a real model's folder. Rewrite it with
 *   node --import tsx packages/server/src/models/gpt2/tokenizer.ts
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { vocabulary } from '../../genai/tokens.ts';

/** Where the checked-in tokenizer.json is: the gpt2 model's folder. */
export const GPT2_TOKENIZER_FILE = fileURLToPath(new URL('./tokenizer.json', import.meta.url));

/** The unknown-word token, id 0. */
export const UNK = '[UNK]';

/** gpt2's tokenizer.json as an object. */
export function gpt2TokenizerJson(): Record<string, unknown> {
  const vocab: Record<string, number> = { [UNK]: 0 };
  vocabulary().forEach((word, i) => {
    vocab[word] = i + 1;
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [
      {
        id: 0,
        content: UNK,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      },
    ],
    normalizer: null,
    pre_tokenizer: { type: 'WhitespaceSplit' },
    post_processor: null,
    decoder: null,
    model: { type: 'WordLevel', vocab, unk_token: UNK },
  };
}

/** The file's text, formatted as biome keeps JSON. */
export function gpt2TokenizerText(): string {
  return `${JSON.stringify(gpt2TokenizerJson(), null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(GPT2_TOKENIZER_FILE, gpt2TokenizerText());
  console.log(`wrote ${GPT2_TOKENIZER_FILE}`);
}
