/**
 * Conversation workloads (payloads/conversations.ts, lib/genai/conversation.ts): every turn's prompt is the
 * history plus its message with its token count exact (gpt2's WordLevel tokenizer and a byte-level BPE, where a
 * count is not the sum of the parts), answers recorded or stood in at the asked length, think times seeded,
 * ShareGPT and OpenAI-messages datasets read line by line with one-line errors, the file checked when read.
 */
import { describe, expect, it } from 'vitest';
import {
  CONVERSATION_FORMAT,
  isConversationWorkload,
  parseConversationWorkload,
} from '../../lib/genai/conversation.ts';
import { createRandom } from '../../lib/random/random.ts';
import {
  type ConversationWorkloadOptions,
  conversationDataset,
  drawDelay,
  isConversationDataset,
  makeConversationWorkload,
  TURN_SEPARATOR,
} from '../../payloads/conversations.ts';
import { loadTokenizer } from '../../payloads/tokenizer.ts';
import { SALT_WORDS, saltedPrompt } from '../../lib/genai/salt.ts';
import { GPT2_TOKENIZER_FILE } from '@k6-triton/server';

const gpt2 = loadTokenizer(GPT2_TOKENIZER_FILE);
const bpe = loadTokenizer(new URL('./fixtures/tiny-bpe-tokenizer.json', import.meta.url).pathname);

const base = (o: Partial<ConversationWorkloadOptions> = {}): ConversationWorkloadOptions => ({
  model: 'gpt2',
  tokenizer: gpt2,
  inputTokens: { mean: 15, stddev: 0 },
  outputTokens: { mean: 7, stddev: 0 },
  count: 4,
  turns: { mean: 3, stddev: 0 },
  ...o,
});

const SHAREGPT = JSON.stringify({
  conversations: [
    { from: 'system', value: 'be brief' },
    { from: 'human', value: 'hello there' },
    { from: 'gpt', value: 'hi how can i help' },
    { from: 'human', value: 'tell me a story' },
  ],
});
const MESSAGES = JSON.stringify({
  messages: [
    { role: 'user', content: 'one two three' },
    { role: 'assistant', content: 'four five' },
    { role: 'user', content: 'six' },
    { role: 'assistant', content: 'seven eight nine ten' },
  ],
});

describe('a synthetic conversation workload', () => {
  it('carries the history into each turn with exact token counts', () => {
    for (const tokenizer of [gpt2, bpe]) {
      const w = makeConversationWorkload(base({ tokenizer }), {});
      expect(w.format).toBe(CONVERSATION_FORMAT);
      expect(w.answers).toBe('stand-in');
      expect(w.conversations).toHaveLength(4);
      for (const c of w.conversations) {
        expect(c.turns).toHaveLength(3);
        c.turns.forEach((t, k) => {
          expect(t.inputTokens, tokenizer.path).toBe(tokenizer.count(t.prompt));
          expect(t.outputTokens).toBe(7);
          if (k === 0) {
            expect(t.historyTokens).toBe(0);
            expect(t.inputTokens).toBe(15);
            return;
          }
          // The prompt starts with the previous turn's prompt and an answer stand-in of exactly 7 tokens.
          const previous = c.turns[k - 1]!;
          expect(t.prompt.startsWith(`${previous.prompt}${TURN_SEPARATOR}`)).toBe(true);
          const answer = t.prompt.slice(previous.prompt.length + 1).split(TURN_SEPARATOR)[0]!;
          expect(tokenizer.count(answer)).toBe(7);
          const historyText = `${previous.prompt}${TURN_SEPARATOR}${answer}`;
          expect(t.historyTokens).toBe(tokenizer.count(historyText));
          expect(t.prompt.slice(historyText.length + 1).length).toBeGreaterThan(0);
        });
      }
    }
  });

  it('on the WordLevel tokenizer, turn k asks exactly k x (message + answer) - answer tokens', () => {
    const w = makeConversationWorkload(base(), {});
    expect(w.conversations[0]!.turns.map((t) => [t.historyTokens, t.inputTokens])).toEqual([
      [0, 15],
      [22, 37],
      [44, 59],
    ]);
  });

  it('draws turn counts and lengths from their spread, the same for the same seed', () => {
    const spread = base({ count: 40, turns: { mean: 3, stddev: 2 }, inputTokens: { min: 5, max: 9 } });
    const a = makeConversationWorkload(spread, {});
    expect(makeConversationWorkload(spread, {})).toEqual(a);
    expect(makeConversationWorkload({ ...spread, seed: 2 }, {})).not.toEqual(a);
    const counts = new Set(a.conversations.map((c) => c.turns.length));
    expect(counts.size).toBeGreaterThan(2);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(1);
    for (const c of a.conversations) {
      const own = c.turns[0]!.inputTokens;
      expect(own).toBeGreaterThanOrEqual(5);
      expect(own).toBeLessThanOrEqual(9);
    }
  });

  it('draws think times seeded, none before a first turn, never below 0', () => {
    const delayed = base({ count: 30, delay_ms: { mean: 50, stddev: 40 } });
    const a = makeConversationWorkload(delayed, {});
    const delays = a.conversations.flatMap((c) => c.turns.map((t) => t.delay_ms));
    expect(a.conversations.every((c) => c.turns[0]!.delay_ms === 0)).toBe(true);
    expect(makeConversationWorkload(delayed, {}).conversations).toEqual(a.conversations);
    const later = a.conversations.flatMap((c) => c.turns.slice(1).map((t) => t.delay_ms));
    expect(later.every((d) => Number.isInteger(d) && d >= 0)).toBe(true);
    expect(new Set(later).size).toBeGreaterThan(10);
    expect(delays).toHaveLength(later.length + 30);
    const fixed = makeConversationWorkload(base({ delay_ms: { mean: 25, stddev: 0 } }), {});
    expect(fixed.conversations[0]!.turns.map((t) => t.delay_ms)).toEqual([0, 25, 25]);
  });

  it('salted: one key spelled into every turn keeps each turn a prefix of the next, counts exact', () => {
    // The tiny BPE has too few one-token words for an alphabet (prompts.test.ts checks that refusal).
    for (const tokenizer of [gpt2]) {
      const w = makeConversationWorkload(base({ tokenizer, salt: true }), {});
      const alphabet = w.saltAlphabet!;
      expect(alphabet).toHaveLength(256);
      const keys = [
        { run: 1, vu: 1, send: 0 },
        { run: 1, vu: 1, send: 1 },
        { run: 2, vu: 1, send: 0 },
        { run: 1, vu: 2, send: 0 },
      ];
      const firsts = new Set<string>();
      for (const c of w.conversations) {
        const slots = c.turns[0]!.salt!;
        // The slots lie in the first message, so every turn has the same ones.
        expect(c.turns.every((t) => JSON.stringify(t.salt) === JSON.stringify(slots))).toBe(true);
        expect(c.turns[0]!.inputTokens).toBe(15);
        for (const key of keys) {
          const sent = c.turns.map((t) => saltedPrompt(t.prompt, t.salt!, alphabet, key));
          sent.forEach((p, k) => {
            expect(tokenizer.count(p), tokenizer.path).toBe(c.turns[k]!.inputTokens);
            if (k > 0) expect(p.startsWith(`${sent[k - 1]}${TURN_SEPARATOR}`)).toBe(true);
          });
          firsts.add(sent[0]!.split(' ').slice(0, SALT_WORDS).join(' '));
        }
      }
      // Sessions sent with different keys never start alike: the salt leads the first message.
      expect(firsts.size).toBe(keys.length);
    }
  });

  it('drawDelay: a normal draw clipped at 0, whole ms, fixed without a spread', () => {
    const rng = createRandom(3);
    const draws = Array.from({ length: 2000 }, () => drawDelay({ mean: 10, stddev: 20 }, rng));
    expect(draws.some((d) => d === 0)).toBe(true);
    expect(draws.every((d) => Number.isInteger(d) && d >= 0)).toBe(true);
    expect(drawDelay({ mean: 12.4, stddev: 0 }, rng)).toBe(12);
  });
});

describe('a conversation dataset', () => {
  it('is told apart from a prompt dataset by its first line', () => {
    expect(isConversationDataset(`\n${SHAREGPT}\n`)).toBe(true);
    expect(isConversationDataset(MESSAGES)).toBe(true);
    expect(isConversationDataset('{"text":"hi"}')).toBe(false);
    expect(isConversationDataset('not json')).toBe(false);
  });

  it('reads ShareGPT turns and OpenAI messages; a system message leads the first turn', () => {
    expect(conversationDataset('d.jsonl', `${SHAREGPT}\n\n${MESSAGES}\n`)).toEqual([
      [{ message: 'be brief\nhello there', answer: 'hi how can i help' }, { message: 'tell me a story' }],
      [
        { message: 'one two three', answer: 'four five' },
        { message: 'six', answer: 'seven eight nine ten' },
      ],
    ]);
  });

  it('carries recorded answers, asking for their length, and stands in where none is recorded', () => {
    const sessions = conversationDataset('d.jsonl', `${MESSAGES}\n${SHAREGPT}`);
    const w = makeConversationWorkload(base({ dataset: sessions, count: undefined }), {});
    expect(w.answers).toBe('mixed');
    const [messages, share] = w.conversations;
    expect(messages!.turns.map((t) => t.prompt)).toEqual(['one two three', 'one two three\nfour five\nsix']);
    expect(messages!.turns.map((t) => [t.historyTokens, t.inputTokens, t.outputTokens])).toEqual([
      [0, 3, 2],
      [5, 6, 4],
    ]);
    // The last ShareGPT turn records no answer: it asks for OUTPUT_TOKENS.
    expect(share!.turns.map((t) => t.outputTokens)).toEqual([5, 7]);
    expect(share!.turns[1]!.prompt).toBe('be brief\nhello there\nhi how can i help\ntell me a story');
    const firstOnly = makeConversationWorkload(base({ dataset: sessions, count: 1 }), {});
    expect(firstOnly.conversations).toHaveLength(1);
    expect(firstOnly.answers).toBe('dataset');
  });

  it.each([
    ['not json', 'line 2: not JSON'],
    ['[1]', 'line 2: not a JSON object'],
    ['{"text":"a prompt"}', 'line 2: no "conversations" or "messages" list'],
    ['{"messages":[{"role":"user"}]}', 'line 2: message 1 needs a "role" and a text "content"'],
    [
      '{"conversations":[{"from":"human","value":"a"},{"from":"human","value":"b"}]}',
      'line 2: message 2: two user messages in a row',
    ],
    [
      '{"messages":[{"role":"assistant","content":"a"}]}',
      'line 2: message 1: an answer before any user message',
    ],
    [
      '{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"assistant","content":"c"}]}',
      'line 2: message 3: two answers in a row',
    ],
    ['{"messages":[{"role":"tool","content":"a"}]}', 'line 2: message 1: unknown role "tool"'],
    ['{"messages":[]}', 'line 2: no user message'],
  ])('refuses %s with one line naming the file, the line and the fix', (bad, why) => {
    const run = () => conversationDataset('/data/chat.jsonl', `${MESSAGES}\n${bad}`);
    expect(run).toThrow(`conversation dataset /data/chat.jsonl ${why}; each line is {"conversations":[`);
    try {
      run();
    } catch (err) {
      expect((err as Error).message).not.toContain('\n');
    }
  });

  it('refuses an empty file', () => {
    expect(() => conversationDataset('/e.jsonl', '\n\n')).toThrow(
      /^conversation dataset \/e\.jsonl has no conversations; each line is/,
    );
  });
});

describe('the conversation workload file', () => {
  const made = makeConversationWorkload(base({ count: 2 }), { conversations: 1 });
  const text = JSON.stringify(made);

  it('round-trips and is told apart from a prompt workload by its format', () => {
    expect(isConversationWorkload(text)).toBe(true);
    expect(isConversationWorkload('{"format": "k6-triton-prompts/1"}')).toBe(false);
    expect(parseConversationWorkload(text, 'w.json')).toEqual(made);
  });

  it.each([
    ['{', 'not JSON'],
    [
      JSON.stringify({ ...made, format: 'k6-triton-conversations/0' }),
      'format is not k6-triton-conversations/1',
    ],
    [JSON.stringify({ ...made, conversations: [] }), 'no conversations'],
    [JSON.stringify({ ...made, conversations: [{ turns: [] }] }), 'conversation 0 has no turns'],
    [
      JSON.stringify({
        ...made,
        conversations: [{ turns: [{ ...made.conversations[0]!.turns[0]!, historyTokens: 99 }] }],
      }),
      'conversation 0 turn 1 needs whole historyTokens below inputTokens',
    ],
    [
      JSON.stringify({
        ...made,
        conversations: [{ turns: [{ ...made.conversations[0]!.turns[0]!, delay_ms: -1 }] }],
      }),
      'conversation 0 turn 1 needs delay_ms >= 0',
    ],
  ])('refuses a bad file with one line and the fix (%#)', (bad, why) => {
    expect(() => parseConversationWorkload(bad, '/w.json')).toThrow(
      `conversation workload /w.json: ${why}; regenerate it (k6-triton bench <model> --conversation-turn-mean N makes one)`,
    );
  });
});
