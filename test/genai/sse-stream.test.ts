/**
 * The generative scenario's SSE path (scenarios/kit/genai/sse-stream.ts) against a scripted k6/x/sse: what each protocol's
 * events make of a request's record, in both forms open takes (xk6-sse returns the response once the stream has
 * closed, the Node runtime a promise of it), and the request bodies each protocol sends.
 */
import { describe, expect, it } from 'vitest';
import { GPT2, REPEAT } from '../../models/generative.ts';
import type { GenerationRecord } from '../../lib/genai/metrics.ts';
import { requestMetrics } from '../../lib/genai/metrics.ts';
import {
  loadSseModule,
  type SseClient,
  type SseModule,
  type SseModuleEvent,
  type SseProtocol,
  sseRequest,
  streamSse,
} from '../../scenarios/kit/genai/sse-stream.ts';

/** One scripted step: an event, an error the client reports, or the response open ends with. */
type Step = { data: string; name?: string } | { error: string };

/** A k6/x/sse that plays `steps` into the handlers, stopping at close(); `async` answers as the Node runtime. */
function scripted(steps: Step[], response: { status: number; error?: string }, async: boolean) {
  const seen = { closed: false, url: '', params: {} as Record<string, unknown> };
  const sse: SseModule = {
    open(url, params, setup) {
      seen.url = url;
      seen.params = params;
      const handlers: Record<string, ((v: never) => void)[]> = {};
      const client: SseClient = {
        on: (event, fn) => {
          handlers[event] = [...(handlers[event] ?? []), fn];
        },
        close: () => {
          seen.closed = true;
        },
      };
      if (!response.error) {
        setup(client);
        for (const step of steps) {
          if (seen.closed) break;
          if ('error' in step)
            for (const fn of handlers.error ?? []) fn({ error: () => step.error } as never);
          else {
            const e: SseModuleEvent = { id: '', name: step.name ?? '', data: step.data };
            for (const fn of handlers.event ?? []) fn(e as never);
          }
        }
      }
      const result = { status: response.error ? 0 : response.status, error: response.error ?? '' };
      return async ? Promise.resolve(result) : result;
    },
  };
  return { sse, seen };
}

/** Streams one request through the scripted module; resolves with the scored record. */
async function run(
  protocol: SseProtocol,
  steps: Step[],
  response: { status: number; error?: string } = { status: 200 },
  async = false,
): Promise<{ record: GenerationRecord; closed: boolean; params: Record<string, unknown> }> {
  const { sse, seen } = scripted(steps, response, async);
  let clock = 0;
  const scored = new Promise<GenerationRecord>((resolve) =>
    streamSse({
      protocol,
      sse,
      request: { url: 'http://127.0.0.1:1/x', body: '{}' },
      headers: { 'X-Test': '1' },
      inputTokens: 5,
      now: () => (clock += 10),
      score: resolve,
    }),
  );
  const record = await scored;
  return { record, closed: seen.closed, params: seen.params };
}

const chat = (delta: Record<string, unknown>, finish: string | null = null) =>
  JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });

describe('streamSse', () => {
  it('generate: one token per response, the end when the server closes; the same with a promise', async () => {
    const steps = [{ data: '{"text_output":"a"}' }, { data: '' }, { data: '{"text_output":"b"}' }];
    for (const async of [false, true]) {
      const { record, params } = await run('generate', steps, { status: 200 }, async);
      const m = requestMetrics(record);
      // Sent at 10, events at 20 and 30 (the empty data, a comment block under xk6-sse, reads the clock
      // but records nothing), settled at 50.
      expect([m.ok, m.outputTokens, m.ttft_ms, record.done_ms], `async ${async}`).toEqual([true, 2, 10, 50]);
      expect(params).toMatchObject({
        method: 'POST',
        body: '{}',
        headers: { 'X-Test': '1', 'Content-Type': 'application/json' },
      });
    }
  });

  it('generate: an error event under the 200 fails the request, keeps its message and closes the stream', async () => {
    const { record, closed } = await run('generate', [
      { data: '{"text_output":"a"}' },
      { data: '{"error":"model crashed"}' },
      { data: '{"text_output":"b"}' },
    ]);
    expect(requestMetrics(record)).toMatchObject({ ok: false, error: 'model crashed' });
    expect(closed).toBe(true);
  });

  it('generate: a 400 with its error event fails with the event, not the status', async () => {
    const { record } = await run('generate', [{ data: '{"error":"bad input"}' }], { status: 400 });
    expect(record.error).toBe('bad input');
  });

  it('openai-chat: the role-only chunk is no token, usage gives OSL, [DONE] ends it and closes', async () => {
    const { record, closed } = await run('openai-chat', [
      { data: chat({ role: 'assistant' }) },
      { data: chat({ content: 'x' }) },
      { data: chat({ content: 'y' }) },
      { data: chat({}, 'length') },
      { data: JSON.stringify({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 2 } }) },
      { data: '[DONE]' },
    ]);
    const m = requestMetrics(record);
    // Sent at 10; the role-only chunk at 20 is not the first token, 'x' at 30 is.
    expect([m.ok, m.ttft_ms, m.outputTokens, m.inputTokens, record.done_ms]).toEqual([true, 20, 2, 7, 70]);
    expect(closed).toBe(true);
  });

  it('openai: a stream that ends without [DONE] fails, as does a status other than 200', async () => {
    const cut = await run('openai-completions', [
      { data: JSON.stringify({ choices: [{ index: 0, text: 'x' }] }) },
    ]);
    expect(cut.record.error).toBe('stream ended before [DONE]');
    const refused = await run('openai-completions', [], { status: 503 }, true);
    expect(refused.record.error).toBe('HTTP 503 from http://127.0.0.1:1/x');
  });

  it("openai: an error event, an `event: error` and the client's error fail the request with their message", async () => {
    const event = await run('openai-chat', [{ data: '{"error":{"message":"overloaded"}}' }]);
    expect(event.record.error).toBe('overloaded');
    const named = await run('openai-chat', [{ name: 'error', data: 'gone' }]);
    expect(named.record.error).toBe('gone');
    const client = await run('openai-chat', [{ data: chat({ content: 'x' }) }, { error: 'unexpected EOF' }]);
    expect([client.record.error, client.closed]).toEqual(['unexpected EOF', true]);
  });

  it("a request that never got a response fails with open's error", async () => {
    const { record } = await run('generate', [], { status: 0, error: 'dial tcp: connection refused' });
    expect(record.error).toBe('dial tcp: connection refused');
  });
});

describe('sseRequest', () => {
  const inputs = { text_input: ['w0 w1'], max_tokens: [3], stream: [true] };

  it('generate: the inputs by name, a [1]-shaped one as a scalar, to the model generate_stream', () => {
    expect(sseRequest('generate', 'http://h:1', 'gpt2', inputs, GPT2)).toEqual({
      url: 'http://h:1/v2/models/gpt2/generate_stream',
      body: JSON.stringify({ text_input: 'w0 w1', max_tokens: 3, stream: true }),
    });
    const repeat = { IN: [0, 1], DELAY: [20, 5], WAIT: [0] };
    expect(JSON.parse(sseRequest('generate', 'http://h:1', 'repeat_int32', repeat, REPEAT).body)).toEqual({
      IN: [0, 1],
      DELAY: [20, 5],
      WAIT: 0,
    });
  });

  it('openai: chat messages or a prompt, max_tokens, stream and the usage chunk asked for', () => {
    const stream = { max_tokens: 3, stream: true, stream_options: { include_usage: true } };
    const c = sseRequest('openai-chat', 'http://h:1', 'gpt2', inputs, GPT2);
    expect(c.url).toBe('http://h:1/v1/chat/completions');
    expect(JSON.parse(c.body)).toEqual({
      model: 'gpt2',
      ...stream,
      messages: [{ role: 'user', content: 'w0 w1' }],
    });
    const p = sseRequest('openai-completions', 'http://h:1', 'gpt2', inputs, GPT2);
    expect(p.url).toBe('http://h:1/v1/completions');
    expect(JSON.parse(p.body)).toEqual({ model: 'gpt2', ...stream, prompt: 'w0 w1' });
  });

  it('openai on a model without a text prompt is one line naming the protocols that fit', () => {
    expect(() => sseRequest('openai-chat', 'http://h:1', 'repeat_int32', { IN: [1] }, REPEAT)).toThrow(
      'invalid PROTOCOL=openai-chat for repeat: OpenAI endpoints take a text prompt, which this model has not; use PROTOCOL=grpc or generate',
    );
  });
});

describe('loadSseModule', () => {
  it('without k6/x/sse: one line naming the extension and how to get it', () => {
    expect(() => loadSseModule('generate')).toThrow(
      'PROTOCOL=generate streams over SSE with the k6 extension k6/x/sse, which this k6 binary lacks; build one with it (xk6 build --with github.com/phymbert/xk6-sse), use --runtime node, or PROTOCOL=grpc',
    );
  });
});
