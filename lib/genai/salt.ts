/**
 * Prompt salts: a generative run's prompts made unique without changing their token counts. A workload's
 * synthetic prompt holds two slots of one-token words (payloads/prompts.ts makes and checks them): a head slot
 * at the very start, spelling the run's salt (so nothing a server cached in an earlier run matches, shared
 * prefixes included), and a body slot right after the shared prefix, spelling the sending VU and its send
 * count (so no two sends of a run match past the prefix; a conversation's session is one send, its one salt
 * spelled into every turn, whose slots all lie in the first message). Each slot word is replaced by another
 * one-token word of the same alphabet, so the count stays exact. Pure: runs inside k6 and on Node.
 */
import type { PromptSalt } from '../settings/kinds.ts';

/** Words of the head slot: the run's salt, base SALT_BASE. */
export const SALT_HEAD_WORDS = 3;
/** Words of the body slot: the VU (2) and its send count (3), base SALT_BASE. */
export const SALT_BODY_WORDS = 5;
/** Every salt word of a prompt. */
export const SALT_WORDS = SALT_HEAD_WORDS + SALT_BODY_WORDS;
/** Words in a salt alphabet: a digit per word. */
export const SALT_BASE = 256;

/** Character ranges [start, end) of a prompt's head and body slots. */
export type SaltSlots = [[number, number], [number, number]];

/** The `count` base-SALT_BASE digits of `value`, lowest first (a value past SALT_BASE^count wraps). */
export function saltDigits(value: number, count: number): number[] {
  const digits: number[] = [];
  let v = Math.max(0, Math.floor(value));
  for (let i = 0; i < count; i++) {
    digits.push(v % SALT_BASE);
    v = Math.floor(v / SALT_BASE);
  }
  return digits;
}

/** Who sends a salted prompt: the run's salt, the VU and how many prompts it sent before. */
export interface SaltKey {
  run: number;
  vu: number;
  send: number;
}

/** The prompt with its slots spelling `key` in `alphabet`'s words. */
export function saltedPrompt(
  prompt: string,
  slots: SaltSlots,
  alphabet: readonly string[],
  key: SaltKey,
): string {
  const spell = (digits: number[]) => digits.map((d) => alphabet[d % alphabet.length]).join(' ');
  const [[h0, h1], [b0, b1]] = slots;
  const head = spell(saltDigits(key.run, SALT_HEAD_WORDS));
  const body = spell([...saltDigits(key.vu, 2), ...saltDigits(key.send, SALT_BODY_WORDS - 2)]);
  return prompt.slice(0, h0) + head + prompt.slice(h1, b0) + body + prompt.slice(b1);
}

/** The character ranges of the slots in a prompt of space-joined words: word `head` on, and word `body` on. */
export function slotsAt(prompt: string, head: number, body: number): SaltSlots {
  const starts: number[] = [];
  const ends: number[] = [];
  const re = /\S+/g;
  for (let m = re.exec(prompt); m !== null; m = re.exec(prompt)) {
    starts.push(m.index);
    ends.push(m.index + m[0].length);
  }
  const range = (first: number, words: number): [number, number] => {
    if (first + words > starts.length)
      throw new Error(`a ${starts.length}-word prompt has no room for ${words} salt words at word ${first}`);
    return [starts[first]!, ends[first + words - 1]!];
  };
  return [range(head, SALT_HEAD_WORDS), range(body, SALT_BODY_WORDS)];
}

/**
 * An alphabet for prompts counted as whitespace words (the estimate): any whitespace-free word is one token.
 */
export function wordAlphabet(): string[] {
  return Array.from({ length: SALT_BASE }, (_, i) => `s${i.toString(16).padStart(2, '0')}`);
}

/** Why a workload file's saltAlphabet is not one (a list of SALT_BASE words), or undefined when it is or is absent. */
export function saltAlphabetProblem(alphabet: unknown): string | undefined {
  if (alphabet === undefined || (Array.isArray(alphabet) && alphabet.length === SALT_BASE)) return undefined;
  return `saltAlphabet is not a list of ${SALT_BASE} words`;
}

/** The run's salt: the fixed one, or a random one drawn once (setup()); undefined when salting is off. */
export function runSalt(setting: PromptSalt, random: () => number = Math.random): number | undefined {
  if (setting === 'off') return undefined;
  if (setting === 'random') return Math.floor(random() * SALT_BASE ** SALT_HEAD_WORDS);
  return setting;
}
