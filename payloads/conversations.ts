/**
 * Conversation workloads (lib/genai/conversation.ts), made on Node where the tokenizer runs: synthetic sessions
 * (AIPerf's --conversation-num, --conversation-turn-mean/-stddev; each message INPUT_TOKENS long, each answer
 * OUTPUT_TOKENS) or a JSONL file of ShareGPT `conversations` or OpenAI `messages`. Each turn's prompt is the
 * history plus its message, counted whole with the model's tokenizer so every input length is exact. The
 * history carries the dataset's recorded answers, or for a synthetic session (or a dataset turn without one) a
 * stand-in of exactly the asked output length: the streamed answer's text is never counted inside k6, so it is
 * not carried. Think times (AIPerf's --conversation-turn-delay-mean/-stddev, ms) are drawn here, seeded.
 * Salted sessions (lib/genai/salt.ts) lead their first message with SALT_WORDS one-token placeholder words that
 * every turn's prompt starts with; the scenario spells one salt per session into them, so sessions never share
 * a prefix while each turn's history stays the next turn's prefix.
 */
import {
  CONVERSATION_FORMAT,
  type Conversation,
  type ConversationTurn,
  type ConversationWorkload,
} from '../lib/genai/conversation.ts';
import { drawLength } from '../lib/genai/settings.ts';
import { createRandom, type Random } from '../lib/random/random.ts';
import type { LengthSpec } from '../lib/settings/kinds.ts';
import { SALT_HEAD_WORDS, SALT_WORDS, slotsAt } from '../lib/genai/salt.ts';
import { checkSalted, saltAlphabet, saltPlaceholder, syntheticPrompt } from './prompts.ts';
import type { TokenCounter } from './tokenizer.ts';
import { eachJsonLine } from './jsonl.ts';

/** How history and the next message are joined into one prompt. */
export const TURN_SEPARATOR = '\n';

/** One exchange of a dataset: the user's message and, when recorded, the answer. */
export interface DatasetTurn {
  message: string;
  answer?: string;
}

/** The shape of the sessions: how many, how many turns, how long the think time between them. */
export interface ConversationShape {
  /** Sessions (AIPerf's --conversation-num). @default 100 */
  count?: number;
  /** Turns per session, a length spec (--conversation-turn-mean/-stddev). @default 1 */
  turns?: LengthSpec;
  /** Think time before each turn after the first, ms (--conversation-turn-delay-mean/-stddev). @default 0 */
  delay_ms?: { mean: number; stddev: number };
}

/** What a conversation workload is made of. */
export interface ConversationWorkloadOptions extends ConversationShape {
  model: string;
  tokenizer: TokenCounter;
  /** @default 1 */
  seed?: number;
  /** Each synthetic message's tokens. */
  inputTokens: LengthSpec;
  /** Each answer's tokens, where a dataset records none. */
  outputTokens: LengthSpec;
  /** A conversation dataset's sessions (conversationDataset), instead of synthetic ones. */
  dataset?: DatasetTurn[][];
  /**
   * Sessions get salt slots: a synthetic first message spends SALT_WORDS of its tokens on them; a dataset's
   * first message gets them put in front (its counts include them). @default false
   */
  salt?: boolean;
}

const FIX =
  'each line is {"conversations":[{"from":"human","value":"..."},{"from":"gpt","value":"..."}]} or {"messages":[{"role":"user","content":"..."},{"role":"assistant","content":"..."}]}';

const USER = new Set(['human', 'user']);
const ANSWER = new Set(['gpt', 'assistant', 'chatgpt', 'bard', 'model']);

/** Whether a JSONL dataset holds conversations: its first line has a `conversations` or `messages` list. */
export function isConversationDataset(text: string): boolean {
  const first = text.split('\n').find((l) => l.trim() !== '');
  if (first === undefined) return false;
  try {
    const row = JSON.parse(first) as Record<string, unknown> | null;
    return Array.isArray(row?.['conversations']) || Array.isArray(row?.['messages']);
  } catch {
    return false;
  }
}

/**
 * A conversation dataset's sessions, one per line: ShareGPT `conversations` ({from, value}; from human/user,
 * gpt/assistant) or OpenAI `messages` ({role, content}; user, assistant). A system message leads the first
 * turn's message; each user message is a turn, the answer after it recorded when present; two user messages
 * in a row, two answers in a row, or an answer first fail. Errors name the file, the line and the fix.
 */
export function conversationDataset(path: string, text: string): DatasetTurn[][] {
  const sessions: DatasetTurn[][] = [];
  eachJsonLine(text, `conversation dataset ${path}`, FIX, (row, fail) => {
    const share = row['conversations'];
    const list = share ?? row['messages'];
    if (!Array.isArray(list)) throw fail('no "conversations" or "messages" list');
    const [roleKey, textKey] = share !== undefined ? ['from', 'value'] : ['role', 'content'];
    const turns: DatasetTurn[] = [];
    let system = '';
    list.forEach((m: unknown, k) => {
      const msg = m as Record<string, unknown> | null;
      const role = msg?.[roleKey];
      const value = msg?.[textKey];
      if (typeof role !== 'string' || typeof value !== 'string')
        throw fail(`message ${k + 1} needs a "${roleKey}" and a text "${textKey}"`);
      const last = turns[turns.length - 1];
      if (role === 'system') {
        if (turns.length > 0) throw fail(`message ${k + 1}: a system message only leads the conversation`);
        system = join(system, value);
      } else if (USER.has(role)) {
        if (last && last.answer === undefined) throw fail(`message ${k + 1}: two user messages in a row`);
        const message = turns.length === 0 ? join(system, value) : value;
        if (message.trim() === '') throw fail(`message ${k + 1}: an empty user message`);
        turns.push({ message });
      } else if (ANSWER.has(role)) {
        if (!last) throw fail(`message ${k + 1}: an answer before any user message`);
        if (last.answer !== undefined) throw fail(`message ${k + 1}: two answers in a row`);
        last.answer = value;
      } else throw fail(`message ${k + 1}: unknown ${roleKey} "${role}"`);
    });
    if (turns.length === 0) throw fail('no user message');
    sessions.push(turns);
  });
  if (sessions.length === 0) throw new Error(`conversation dataset ${path} has no conversations; ${FIX}`);
  return sessions;
}

/** One think time, ms: a normal draw over mean and stddev, whole ms, never below 0. */
export function drawDelay(spec: { mean: number; stddev: number }, rng: Random): number {
  if (spec.stddev === 0) return Math.max(0, Math.round(spec.mean));
  return Math.max(0, Math.round(spec.mean + spec.stddev * rng.normal()));
}

/** Joins history and the next text. */
function join(history: string, next: string): string {
  return history === '' ? next : `${history}${TURN_SEPARATOR}${next}`;
}

/**
 * A session's turns from its exchanges: each prompt the history so far plus the message, counted whole; the
 * answer (recorded, else a stand-in of `outputTokens` made by `standIn`) joins the history after it.
 */
export function sessionTurns(
  tk: TokenCounter,
  exchanges: readonly { message: string; answer?: string; outputTokens: number; delay_ms: number }[],
  standIn: (tokens: number) => string,
): ConversationTurn[] {
  let history = '';
  let historyTokens = 0;
  return exchanges.map((x) => {
    const prompt = join(history, x.message);
    const inputTokens = tk.count(prompt);
    const turn: ConversationTurn = {
      prompt,
      inputTokens,
      outputTokens: x.outputTokens,
      historyTokens,
      delay_ms: x.delay_ms,
    };
    history = join(prompt, x.answer ?? standIn(x.outputTokens));
    historyTokens = tk.count(history);
    return turn;
  });
}

/** Throws naming the fix when a salted synthetic first message has no room past its salt. */
function checkRoom(tokens: number): void {
  if (tokens <= SALT_WORDS)
    throw new Error(
      `a first message of ${tokens} tokens leaves no room past the ${SALT_WORDS}-token salt; raise INPUT_TOKENS or set PROMPT_SALT=off`,
    );
}

/** Makes the conversation workload (synthetic, or from the dataset's sessions when given). */
export function makeConversationWorkload(
  o: ConversationWorkloadOptions,
  recipe: Record<string, unknown>,
): ConversationWorkload {
  const seed = o.seed ?? 1;
  const rng = createRandom(seed);
  const lengths = rng.fork('lengths');
  const words = rng.fork('words');
  const delays = rng.fork('delays');
  const turnsRng = rng.fork('turns');
  const delay = o.delay_ms ?? { mean: 0, stddev: 0 };
  const standIn = (tokens: number) => syntheticPrompt(o.tokenizer, tokens, words);
  const delayOf = (k: number) => (k === 0 ? 0 : drawDelay(delay, delays));
  const alphabet = o.salt ? saltAlphabet(o.tokenizer) : undefined;
  const lead = alphabet ? saltPlaceholder(alphabet, SALT_WORDS) : '';
  let recorded = 0;
  let stood = 0;
  const sessions: DatasetTurn[][] =
    o.dataset?.slice(0, o.count ?? o.dataset.length) ??
    Array.from({ length: o.count ?? 100 }, () =>
      Array.from({ length: drawLength(o.turns ?? { mean: 1, stddev: 0 }, turnsRng) }, (_, k) => {
        const tokens = drawLength(o.inputTokens, lengths);
        const first = k === 0 && lead !== '';
        if (first) checkRoom(tokens);
        return { message: syntheticPrompt(o.tokenizer, tokens, words, first ? lead : '') };
      }),
    );
  const conversations: Conversation[] = sessions.map((exchanges) => {
    const turns = sessionTurns(
      o.tokenizer,
      exchanges.map((x, k) => {
        // A recorded answer asks for its own length, so the history it joins is what was asked for.
        const answerTokens = x.answer === undefined ? 0 : o.tokenizer.count(x.answer);
        if (answerTokens > 0) recorded++;
        else stood++;
        return {
          // A dataset's text is kept whole: the salt goes in front, and its counts include it.
          message: k === 0 && lead !== '' && o.dataset ? `${lead} ${x.message}` : x.message,
          ...(answerTokens > 0 ? { answer: x.answer } : {}),
          outputTokens: answerTokens > 0 ? answerTokens : drawLength(o.outputTokens, lengths),
          delay_ms: delayOf(k),
        };
      }),
      standIn,
    );
    if (!alphabet) return { turns };
    // Every turn's prompt starts with the first message, so the slots are where they are in it.
    const salt = slotsAt(turns[0]!.prompt, 0, SALT_HEAD_WORDS);
    return {
      turns: turns.map((t) => {
        const salted = { ...t, salt };
        checkSalted(o.tokenizer, salted, alphabet);
        return salted;
      }),
    };
  });
  return {
    format: CONVERSATION_FORMAT,
    model: o.model,
    inputTokenSource: 'tokenizer',
    tokenizer: o.tokenizer.path,
    seed,
    answers: recorded === 0 ? 'stand-in' : stood === 0 ? 'dataset' : 'mixed',
    recipe,
    ...(alphabet ? { saltAlphabet: alphabet } : {}),
    conversations,
  };
}
