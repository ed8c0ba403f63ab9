/** OpenAI chat and completions streaming: role-only first chunk, content, finish, usage chunk, [DONE], errors. */
import { describe, expect, it } from 'vitest';
import { OpenAiStreamDecoder, readOpenAiEvent } from '../../lib/genai/openai-stream.ts';
import { feedEveryWay } from './chunking.ts';

const chatChunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1764000000,
    model: 'm',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  })}\n\n`;

const CHAT =
  chatChunk({ role: 'assistant', content: '' }) +
  chatChunk({ content: 'Bon' }) +
  chatChunk({ content: 'jour \u00e0 \ud83c\udf0d' }) +
  chatChunk({}, 'length') +
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } })}\n\n` +
  'data: [DONE]\n\n';

describe('OpenAI streaming', () => {
  it('chat: role-only first chunk, content, finish-only chunk, usage chunk, [DONE], however the bytes are cut', () => {
    const expected = [
      { kind: 'chunk', index: 0, text: '', role: 'assistant' },
      { kind: 'chunk', index: 0, text: 'Bon' },
      { kind: 'chunk', index: 0, text: 'jour \u00e0 \ud83c\udf0d' },
      { kind: 'chunk', index: 0, text: '', finishReason: 'length' },
      { kind: 'usage', usage: { promptTokens: 9, completionTokens: 3, totalTokens: 12 } },
      { kind: 'done' },
    ];
    const ways = feedEveryWay(new Uint8Array(Buffer.from(CHAT)), () => new OpenAiStreamDecoder());
    for (const way of ways) {
      expect(way.events, way.how).toEqual(expected);
      expect(way.truncated, way.how).toBe(false);
    }
    const d = new OpenAiStreamDecoder();
    d.push(CHAT);
    expect(d.end()).toEqual({ truncated: false, done: true });
  });

  it('completions: text chunks; a chunk with usage beside its choice gives both', () => {
    const events = readOpenAiEvent({
      event: 'message',
      data: JSON.stringify({
        object: 'text_completion',
        choices: [{ index: 0, text: ' world', finish_reason: null }],
        usage: { prompt_tokens: 2, completion_tokens: 2 },
      }),
    });
    expect(events).toEqual([
      { kind: 'chunk', index: 0, text: ' world' },
      { kind: 'usage', usage: { promptTokens: 2, completionTokens: 2, totalTokens: undefined } },
    ]);
  });

  it('errors as events, in the shapes servers send them', () => {
    const read = (data: string, event = 'message') => readOpenAiEvent({ event, data });
    expect(read('{"error":{"message":"context too long","type":"BadRequestError","code":400}}')).toEqual([
      { kind: 'error', message: 'context too long' },
    ]);
    expect(read('{"object":"error","message":"engine died","code":500}')).toEqual([
      { kind: 'error', message: 'engine died' },
    ]);
    expect(read('{"error":"plain"}')).toEqual([{ kind: 'error', message: 'plain' }]);
    expect(read('overloaded', 'error')).toEqual([{ kind: 'error', message: 'overloaded' }]);
    expect(read('not json')).toEqual([{ kind: 'malformed', reason: 'data is not JSON', data: 'not json' }]);
  });

  it('an error mid-stream stops nothing by itself: the caller sees content, then the error', () => {
    const d = new OpenAiStreamDecoder();
    const events = d.push(chatChunk({ content: 'a' }) + 'data: {"error":{"message":"boom"}}\n\n');
    expect(events.map((e) => e.kind)).toEqual(['chunk', 'error']);
    expect(d.end()).toEqual({ truncated: false, done: false });
  });

  it('anything after [DONE] is malformed', () => {
    const d = new OpenAiStreamDecoder();
    expect(d.push('data: [DONE]\n\ndata: {"choices":[]}\n\n')).toEqual([
      { kind: 'done' },
      { kind: 'malformed', reason: 'event after [DONE]', data: '{"choices":[]}' },
    ]);
  });
});
