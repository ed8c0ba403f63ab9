/**
 * A conversation workload: the multi-turn sessions a generative bench plays, made on Node by
 * payloads/conversations.ts (synthetic, or from a ShareGPT / OpenAI-messages JSONL file) and read by the
 * scenario with open(). Each turn's prompt is the whole text it sends: the history (every earlier message and
 * answer, joined by newlines) and then its own message, with its token count exact from the model's tokenizer;
 * the answers in the history are the dataset's recorded ones or stand-ins of the asked output length, never
 * the streamed text (the scenario has no tokenizer to count that exactly). Its own versioned format beside the
 * prompt workload's (workload.ts). Pure (no k6, no Node imports) so the tests check what runs inside k6.
 */
import { saltAlphabetProblem } from './salt.ts';
import type { PromptRequest, TokenSource } from './workload.ts';

/** Format tag written into every conversation workload file. */
export const CONVERSATION_FORMAT = 'k6-triton-conversations/1';

/** One turn: a request whose prompt starts with the conversation so far. */
export interface ConversationTurn extends PromptRequest {
  /** Tokens of the history alone (0 on the first turn): inputTokens - historyTokens are the turn's own. */
  historyTokens: number;
  /** Think time before the turn is sent, ms after the previous turn's stream ended (0 on the first). */
  delay_ms: number;
}

/** One session's turns, played in order on one VU. */
export interface Conversation {
  turns: ConversationTurn[];
}

/** A whole conversation workload file. */
export interface ConversationWorkload {
  format: string;
  /** Catalog id of the model it was made for. */
  model: string;
  inputTokenSource: TokenSource;
  tokenizer?: string;
  seed: number;
  /** Where the history's answers came from: a dataset's recorded answers, or stand-ins of the asked length. */
  answers: 'dataset' | 'stand-in' | 'mixed';
  /** What made it, as hashed into its cache key. */
  recipe: Record<string, unknown>;
  /**
   * One-token words the salt is spelled in (SALT_BASE of them), when the sessions are salted: every turn of a
   * session then has the same slots, inside its first message, and a send spells one salt into all its turns.
   */
  saltAlphabet?: string[];
  conversations: Conversation[];
}

function whole(v: unknown, min: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min;
}

/** Whether a workload file's text is a conversation workload (by its format tag). */
export function isConversationWorkload(text: string): boolean {
  return /"format"\s*:\s*"k6-triton-conversations\//.test(text);
}

/** Parses and checks a conversation workload; throws one line naming the file and the fix. */
export function parseConversationWorkload(text: string, path: string): ConversationWorkload {
  const fail = (why: string) =>
    new Error(
      `conversation workload ${path}: ${why}; regenerate it (k6-triton bench <model> --conversation-turn-mean N makes one)`,
    );
  let doc: ConversationWorkload;
  try {
    doc = JSON.parse(text) as ConversationWorkload;
  } catch {
    throw fail('not JSON');
  }
  if (doc?.format !== CONVERSATION_FORMAT) throw fail(`format is not ${CONVERSATION_FORMAT}`);
  if (!Array.isArray(doc.conversations) || doc.conversations.length === 0) throw fail('no conversations');
  const alphabet = doc.saltAlphabet;
  const alphabetProblem = saltAlphabetProblem(alphabet);
  if (alphabetProblem) throw fail(alphabetProblem);
  doc.conversations.forEach((c, i) => {
    if (!Array.isArray(c?.turns) || c.turns.length === 0) throw fail(`conversation ${i} has no turns`);
    c.turns.forEach((t, k) => {
      const where = `conversation ${i} turn ${k + 1}`;
      if (typeof t.prompt !== 'string') throw fail(`${where} has no prompt`);
      if (!whole(t.inputTokens, 1) || !whole(t.outputTokens, 1))
        throw fail(`${where} needs whole inputTokens and outputTokens >= 1`);
      if (!whole(t.historyTokens, 0) || t.historyTokens >= t.inputTokens)
        throw fail(`${where} needs whole historyTokens below inputTokens`);
      if (typeof t.delay_ms !== 'number' || !(t.delay_ms >= 0)) throw fail(`${where} needs delay_ms >= 0`);
      if (t.salt !== undefined && alphabet === undefined)
        throw fail(`${where} has salt slots and no saltAlphabet`);
    });
  });
  return doc;
}
