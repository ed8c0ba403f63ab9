/**
 * The bench's prompt workload on Node (payloads/prompt-workload.ts): made once and cached per settings, a
 * trace's schedule handed over as SCHEDULE unless a load is given, PAYLOAD and other models left alone.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GPT2 } from '../../models/generative.ts';
import {
  conversationsAsked,
  ensureConversationWorkload,
  ensurePromptWorkload,
  withPromptWorkload,
} from '../../payloads/prompt-workload.ts';
import { tempDirs } from '../temp-dirs.ts';

describe('the prompt workload of a bench', () => {
  const tmp = tempDirs('k6t-prompts-');

  it('is made once per settings with the model tokenizer, then found in the cache', () => {
    const outDir = tmp();
    const env = { INPUT_TOKENS: '12', OUTPUT_TOKENS: '3:4', PROMPT_COUNT: '5' };
    const made = ensurePromptWorkload(GPT2, env, { outDir });
    expect(made.cached).toBe(false);
    expect(made.workload.requests).toHaveLength(5);
    expect(made.workload.requests.every((r) => r.inputTokens === 12)).toBe(true);
    expect(made.workload.tokenizer).toMatch(/models\/gpt2\/tokenizer\.json$/);
    const again = ensurePromptWorkload(GPT2, env, { outDir });
    expect([again.cached, again.workloadPath]).toEqual([true, made.workloadPath]);
    const other = ensurePromptWorkload(GPT2, { ...env, PROMPT_SEED: '2' }, { outDir });
    expect(other.workloadPath).not.toBe(made.workloadPath);
    expect(() => ensurePromptWorkload(GPT2, { TOKENIZER: '/nonexistent/tk.json' }, { outDir })).toThrow(
      /^tokenizer \/nonexistent\/tk.json does not exist/,
    );
  });

  it("a trace's times become SCHEDULE unless a load is given; PAYLOAD and other models are left alone", () => {
    const outDir = tmp();
    const dataset = join(tmp(), 'trace.jsonl');
    writeFileSync(dataset, '{"timestamp": 10, "input_length": 4}\n{"timestamp": 30.5, "input_length": 5}\n');
    const settings = withPromptWorkload('gpt2', { DATASET: dataset }, {}, { outDir });
    expect(settings['PAYLOAD']).toMatch(/workload\.json$/);
    expect(readFileSync(settings['SCHEDULE']!, 'utf8')).toBe(
      '{"at_ms":0,"payload":0}\n{"at_ms":20.5,"payload":1}\n',
    );
    const atLoad = withPromptWorkload('gpt2', { DATASET: dataset, CONCURRENCY: '2' }, {}, { outDir });
    expect([atLoad['PAYLOAD'], atLoad['SCHEDULE']]).toEqual([settings['PAYLOAD'], undefined]);
    expect(withPromptWorkload('gpt2', { PAYLOAD: '/mine.json' }, {}, { outDir })).toEqual({
      PAYLOAD: '/mine.json',
    });
    expect(withPromptWorkload('repeat', { OUTPUT_TOKENS: '5' }, {}, { outDir })).toEqual({
      OUTPUT_TOKENS: '5',
    });
    expect(withPromptWorkload('mnist', {}, {}, { outDir })).toEqual({});
  });
});

describe('the conversation workload of a bench', () => {
  const tmp = tempDirs('k6t-conversations-');

  it('is made from the conversation settings once, then found in the cache; PAYLOAD names it', () => {
    const outDir = tmp();
    const env = {
      INPUT_TOKENS: '10',
      OUTPUT_TOKENS: '4',
      CONVERSATION_NUM: '3',
      CONVERSATION_TURN_MEAN: '2',
      CONVERSATION_TURN_DELAY_MEAN: '30',
    };
    const made = ensureConversationWorkload(GPT2, env, { outDir });
    expect(made.cached).toBe(false);
    expect(made.workload.conversations.map((c) => c.turns.map((t) => [t.inputTokens, t.delay_ms]))).toEqual(
      Array(3).fill([
        [10, 0],
        [24, 30],
      ]),
    );
    const again = ensureConversationWorkload(GPT2, env, { outDir });
    expect([again.cached, again.workloadPath]).toEqual([true, made.workloadPath]);
    expect(withPromptWorkload('gpt2', env, {}, { outDir })).toEqual({ ...env, PAYLOAD: made.workloadPath });
    expect(conversationsAsked({ INPUT_TOKENS: '10' })).toBe(false);
  });

  it('a conversation dataset makes the run multi-turn by itself', () => {
    const outDir = tmp();
    const dataset = join(tmp(), 'chat.jsonl');
    writeFileSync(
      dataset,
      '{"messages":[{"role":"user","content":"a b"},{"role":"assistant","content":"c"}]}\n',
    );
    expect(conversationsAsked({ DATASET: dataset })).toBe(true);
    const settings = withPromptWorkload('gpt2', { DATASET: dataset }, {}, { outDir });
    const workload = JSON.parse(readFileSync(settings['PAYLOAD']!, 'utf8'));
    expect(workload.format).toBe('k6-triton-conversations/1');
    expect(workload.answers).toBe('dataset');
  });

  it('salts synthetic sessions unless PROMPT_SALT=off, a dataset only when a salt is asked for', () => {
    const outDir = tmp();
    const synthetic = { INPUT_TOKENS: '12', CONVERSATION_NUM: '2', CONVERSATION_TURN_MEAN: '2' };
    const slotted = (env: Record<string, string>) => {
      const w = ensureConversationWorkload(GPT2, env, { outDir }).workload;
      const turns = w.conversations.flatMap((c) => c.turns);
      // Every turn has slots or none does, and the alphabet comes with them.
      expect(new Set(turns.map((t) => t.salt !== undefined)).size).toBe(1);
      expect(w.saltAlphabet !== undefined).toBe(turns[0]!.salt !== undefined);
      return { salted: turns[0]!.salt !== undefined, isl: turns.map((t) => t.inputTokens) };
    };
    const byDefault = slotted(synthetic);
    expect(byDefault.salted).toBe(true);
    expect(slotted({ ...synthetic, PROMPT_SALT: '7' }).salted).toBe(true);
    const off = slotted({ ...synthetic, PROMPT_SALT: 'off' });
    expect(off.salted).toBe(false);
    // The salt is spent out of the synthetic message's own tokens: the counts are the same either way.
    expect(byDefault.isl).toEqual(off.isl);
    const dataset = join(tmp(), 'chat.jsonl');
    writeFileSync(
      dataset,
      '{"messages":[{"role":"user","content":"a b"},{"role":"assistant","content":"c"},{"role":"user","content":"d"}]}\n',
    );
    const asWritten = slotted({ DATASET: dataset });
    expect(asWritten.salted).toBe(false);
    const asked = slotted({ DATASET: dataset, PROMPT_SALT: 'random' });
    expect(asked.salted).toBe(true);
    // A dataset's text is kept whole: the 8 salt words go in front, and every turn's count holds them.
    expect(asked.isl).toEqual(asWritten.isl.map((n) => n + 8));
    expect(slotted({ DATASET: dataset, PROMPT_SALT: 'off' }).salted).toBe(false);
    expect(() => ensureConversationWorkload(GPT2, { ...synthetic, INPUT_TOKENS: '8' }, { outDir })).toThrow(
      'a first message of 8 tokens leaves no room past the 8-token salt; raise INPUT_TOKENS or set PROMPT_SALT=off',
    );
  });

  it('refuses settings that do not apply, with one line each', () => {
    const outDir = tmp();
    const prompts = join(tmp(), 'prompts.jsonl');
    writeFileSync(prompts, '{"text":"a b c"}\n');
    const chat = join(tmp(), 'chat.jsonl');
    writeFileSync(chat, '{"messages":[{"role":"user","content":"a b"}]}\n');
    expect(() =>
      withPromptWorkload('gpt2', { DATASET: prompts, CONVERSATION_NUM: '2' }, {}, { outDir }),
    ).toThrow(
      `dataset ${prompts} holds single prompts, not conversations; give a JSONL file of "conversations" or "messages" lines, or drop the conversation settings`,
    );
    expect(() =>
      withPromptWorkload('gpt2', { DATASET: chat, CONVERSATION_TURN_MEAN: '3' }, {}, { outDir }),
    ).toThrow(
      `CONVERSATION_TURN_MEAN (--conversation-turn-mean) makes synthetic sessions; the dataset ${chat} gives its own turns: drop one`,
    );
    expect(() =>
      withPromptWorkload('gpt2', { PREFIX_TOKENS: '4', CONVERSATION_TURN_MEAN: '3' }, {}, { outDir }),
    ).toThrow(/^PREFIX_TOKENS \(--prefix-tokens\) does not apply to conversations/);
    expect(() => withPromptWorkload('repeat', { CONVERSATION_NUM: '3' }, {}, { outDir })).toThrow(
      'CONVERSATION_NUM (--conversation-num): repeat takes no prompt, so it has no conversation to carry; use a prompt model (gpt2) or drop the conversation settings',
    );
  });
});
