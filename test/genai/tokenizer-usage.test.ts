/**
 * Counts from gpt2's tokenizer.json match the embedded server's own (OpenAI `usage`) over real sockets: the
 * prompt's tokens are usage.prompt_tokens and the completion's are usage.completion_tokens, for synthetic
 * prompts of several lengths, on /v1/completions and /v1/chat/completions, streamed and not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiStreamDecoder } from '../../lib/genai/openai-stream.ts';
import { createRandom } from '../../lib/random/random.ts';
import { syntheticPrompt } from '../../payloads/prompts.ts';
import { loadTokenizer } from '../../payloads/tokenizer.ts';
import { GPT2_TOKENIZER_FILE, type RunningServer } from '@k6-triton/server';
import { start } from '../../packages/server/test/helpers.ts';

const tokenizer = loadTokenizer(GPT2_TOKENIZER_FILE);

describe("gpt2's tokenizer against the embedded server's usage", () => {
  let server: RunningServer;
  const post = async (path: string, body: object) => {
    const res = await fetch(`http://127.0.0.1:${server.httpPort}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'gpt2', ...body }),
    });
    return { status: res.status, text: await res.text() };
  };

  beforeAll(async () => {
    server = await start({ simulated: { timeScale: 0 } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('completions: prompt and completion tokens as usage counts them', async () => {
    const rng = createRandom(4);
    for (const [input, output] of [
      [1, 1],
      [37, 5],
      [300, 20],
    ] as const) {
      const prompt = syntheticPrompt(tokenizer, input, rng);
      const answer = await post('/v1/completions', { prompt, max_tokens: output });
      const json = JSON.parse(answer.text);
      expect(answer.status).toBe(200);
      expect(json.usage).toEqual({
        prompt_tokens: input,
        completion_tokens: output,
        total_tokens: input + output,
      });
      expect(tokenizer.count(prompt)).toBe(json.usage.prompt_tokens);
      expect(tokenizer.count(json.choices[0].text)).toBe(json.usage.completion_tokens);
    }
  });

  it('chat, streamed with usage: the streamed text counts what usage says', async () => {
    const prompt = syntheticPrompt(tokenizer, 64, createRandom(8));
    const answer = await post('/v1/chat/completions', {
      messages: [{ role: 'user', content: prompt }],
      max_tokens: 12,
      stream: true,
      stream_options: { include_usage: true },
    });
    const events = new OpenAiStreamDecoder().push(new TextEncoder().encode(answer.text));
    const streamed = events.flatMap((e) => (e.kind === 'chunk' && e.text !== '' ? [e.text] : []));
    const usage = events.find((e) => e.kind === 'usage');
    expect(usage?.kind === 'usage' && usage.usage).toEqual({
      promptTokens: 64,
      completionTokens: 12,
      totalTokens: 76,
    });
    expect(tokenizer.count(prompt)).toBe(64);
    expect(tokenizer.count(streamed.join(' '))).toBe(12);
  });
});
