/**
 * The embedded server's simulated generative model (gpt2, decoupled) over real sockets: ModelStreamInfer as
 * real Triton frames a decoupled model's responses, generate and generate_stream as real Triton frames them
 * (test/triton/generate-stream-repeat.test.ts pins the same on real Triton), read through lib/genai's decoders.
 * Counts and framing only, no timing.
 */
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDecoupledResponse } from '@k6-triton/lib/genai/decoupled.ts';
import { GenerateStreamDecoder } from '@k6-triton/lib/genai/generate-stream.ts';
import { OpenAiStreamDecoder } from '@k6-triton/lib/genai/openai-stream.ts';
import { requestMetrics } from '@k6-triton/lib/genai/metrics.ts';
import { newRecord, recordDecoupled, recordGenerate, recordOpenAi } from '@k6-triton/lib/genai/record.ts';
import { GPT2 } from '../../../../models/generative.ts';
import type { RunningServer } from '@k6-triton/server';
import { postStreamed } from '../../../../test/e2e/triton/repeat-stream.ts';
import {
  type Gpt2Ask,
  gpt2InferRequest,
  inferenceClient,
  type Msg,
  ofRequest as of,
  streamMessages,
} from '../generative-client.ts';
import { start } from '../helpers.ts';

const MODEL = GPT2.name;
const PROMPT = 'one two three four five six seven eight';

type Ask = Omit<Gpt2Ask, 'prompt'> & { prompt?: string };
const inferRequest = (a: Ask) => gpt2InferRequest({ prompt: PROMPT, ...a });

/** The text of a response's text_output (one BYTES element). */
function textOf(m: Msg): string | undefined {
  const raw: Buffer | undefined = m.infer_response?.raw_output_contents?.[0];
  return raw ? raw.subarray(4, 4 + raw.readUInt32LE(0)).toString() : undefined;
}

describe('the embedded simulated generative model', () => {
  let server: RunningServer;
  let client: Msg;
  let url: string;

  beforeAll(async () => {
    server = await start({ simulated: { timeScale: 0 } });
    url = `http://127.0.0.1:${server.httpPort}`;
    client = inferenceClient(`127.0.0.1:${server.grpcPort}`);
  });

  afterAll(async () => {
    client?.close();
    await server?.stop();
  });

  const stream = (asks: Ask[], expected: Record<string, number>) =>
    streamMessages(client, asks.map(inferRequest), expected);

  describe('gRPC ModelStreamInfer', () => {
    it('opted in: one response per token, each not final, then the empty final response', async () => {
      const { sent_ms, messages } = await stream([{ id: 'a', maxTokens: 5, emptyFinal: true }], { a: 6 });
      const got = of(messages, 'a');
      expect(got.map((x) => readDecoupledResponse(x.m))).toEqual([
        ...Array.from({ length: 5 }, () => ({ id: 'a', final: false, outputs: 1 })),
        { id: 'a', final: true, outputs: 0 },
      ]);
      expect(got.slice(0, 5).every((x) => /^\S+$/.test(textOf(x.m) ?? ''))).toBe(true);
      // The empty final response as real Triton's: model name, id, the flag, no outputs.
      expect(got[5]!.m.infer_response).toEqual({
        model_name: MODEL,
        id: 'a',
        parameters: { triton_final_response: { bool_param: true, parameter_choice: 'bool_param' } },
      });
      const record = newRecord(sent_ms, 8);
      expect(got.map((x) => recordDecoupled(record, readDecoupledResponse(x.m), x.at_ms))).toEqual([
        false,
        false,
        false,
        false,
        false,
        true,
      ]);
      const metrics = requestMetrics(record);
      expect([metrics.ok, metrics.outputTokens, metrics.gaps_ms.length]).toEqual([true, 5, 4]);
    });

    it('not opted in: no empty final response; requests on one stream run side by side', async () => {
      const { messages } = await stream(
        [
          { id: 'absent', maxTokens: 3 },
          { id: 'off', maxTokens: 2, emptyFinal: false },
          // Asks for more tokens and its empty final: waiting for it leaves time for any (wrong) final of the others.
          { id: 'sentinel', maxTokens: 12, emptyFinal: true },
        ],
        { absent: 3, off: 2, sentinel: 13 },
      );
      expect(of(messages, 'absent').map((x) => readDecoupledResponse(x.m).final)).toEqual([
        false,
        false,
        false,
      ]);
      expect(of(messages, 'off').map((x) => readDecoupledResponse(x.m).final)).toEqual([false, false]);
      expect(of(messages, 'sentinel').at(-1)!.m.infer_response.outputs).toBeUndefined();
      // Continuous batching: the short requests finished before the long one did.
      const lastOf = (id: string) => messages.indexOf(of(messages, id).at(-1)!);
      expect(lastOf('absent')).toBeLessThan(lastOf('sentinel'));
    });

    it('stream false: one response with the whole text; a failed request: one error message, marked final', async () => {
      const { messages } = await stream(
        [
          { id: 'whole', maxTokens: 4, stream: false, emptyFinal: true },
          { id: 'big', maxTokens: 5000 },
        ],
        { whole: 2, big: 1 },
      );
      const whole = of(messages, 'whole');
      expect(whole.map((x) => readDecoupledResponse(x.m).final)).toEqual([false, true]);
      expect(textOf(whole[0]!.m)!.split(' ')).toHaveLength(4);
      const big = of(messages, 'big');
      expect(big).toHaveLength(1);
      expect(readDecoupledResponse(big[0]!.m)).toEqual({
        id: 'big',
        final: true,
        outputs: 0,
        error: expect.stringMatching(
          /needs 5008 KV cache tokens .*send fewer input tokens or a smaller max_tokens/,
        ),
      });
    });

    it("ModelInfer refuses a decoupled model with Triton's words", async () => {
      const err = await new Promise<grpc.ServiceError>((resolve) =>
        client.ModelInfer(inferRequest({ id: 'x', maxTokens: 1 }), (e: grpc.ServiceError) => resolve(e)),
      );
      expect([err.code, err.details]).toEqual([
        grpc.status.UNIMPLEMENTED,
        "ModelInfer RPC doesn't support models with decoupled transaction policy",
      ]);
    });
  });

  describe('HTTP generate extension', () => {
    const body = (extra: Record<string, unknown>) => JSON.stringify({ text_input: PROMPT, ...extra });

    it('generate_stream: one `data: <json>` event per token, nothing else, read by the decoder', async () => {
      const answer = await postStreamed(
        `${url}/v2/models/${MODEL}/generate_stream`,
        body({ max_tokens: 5, stream: true }),
      );
      expect(answer.status).toBe(200);
      expect(answer.contentType).toBe('text/event-stream; charset=utf-8');
      const raw = Buffer.concat(answer.chunks.map((c) => c.bytes)).toString('utf8');
      // As real Triton's: outputs by name, then model_name and model_version, each event a data line and a blank line.
      expect(raw).toMatch(/^(data: \{"text_output":"\S+","model_name":"gpt2","model_version":"1"\}\n\n){5}$/);
      const decoder = new GenerateStreamDecoder();
      const record = newRecord(answer.sent_ms, 8);
      for (const c of answer.chunks) recordGenerate(record, decoder.push(new Uint8Array(c.bytes)), c.at_ms);
      expect(decoder.end()).toEqual({ truncated: false });
      const metrics = requestMetrics(record);
      expect([metrics.ok, metrics.outputTokens, metrics.gaps_ms.length]).toEqual([true, 5, 4]);
    });

    it('generate_stream: a failure in the model is an error event under 400; a request refused up front is JSON', async () => {
      const failed = await postStreamed(
        `${url}/v2/models/${MODEL}/generate_stream`,
        body({ max_tokens: 5000 }),
      );
      expect([failed.status, failed.contentType]).toEqual([400, 'text/event-stream; charset=utf-8']);
      const events = new GenerateStreamDecoder().push(Buffer.concat(failed.chunks.map((c) => c.bytes)));
      expect(events).toEqual([
        { kind: 'error', message: expect.stringMatching(/needs 5008 KV cache tokens/) },
      ]);
      const rejected = await postStreamed(
        `${url}/v2/models/${MODEL}/generate_stream`,
        JSON.stringify({ max_tokens: 3 }),
      );
      expect([rejected.status, rejected.contentType]).toEqual([400, 'application/json']);
      expect(JSON.parse(Buffer.concat(rejected.chunks.map((c) => c.bytes)).toString()).error).toMatch(
        /missing required input\(s\) \['text_input'\]/,
      );
    });

    it("generate: the one response as JSON; a model that streams gets Triton's error under 200", async () => {
      const one = await fetch(`${url}/v2/models/${MODEL}/generate`, {
        method: 'POST',
        body: body({ max_tokens: 3 }),
      });
      expect(one.status).toBe(200);
      const json = (await one.json()) as Record<string, string>;
      expect(Object.keys(json)).toEqual(['text_output', 'model_name', 'model_version']);
      expect(json.text_output!.split(' ')).toHaveLength(3);
      const many = await fetch(`${url}/v2/models/${MODEL}/generate`, {
        method: 'POST',
        body: body({ max_tokens: 3, stream: true }),
      });
      expect(many.status).toBe(200);
      expect(await many.json()).toEqual({
        error:
          'generate expects model to produce exactly 1 response, use generate stream for model that generates various number of responses',
      });
    });

    it("infer refuses a decoupled model with Triton's status and words", async () => {
      const r = await fetch(`${url}/v2/models/${MODEL}/infer`, { method: 'POST', body: '{"inputs":[]}' });
      expect([r.status, r.headers.get('content-type')]).toEqual([501, 'text/plain']);
      expect(await r.json()).toEqual({
        error: "HTTP end point doesn't support models with decoupled transaction policy",
      });
    });
  });

  describe('OpenAI-compatible endpoints', () => {
    const post = (path: string, body: object) =>
      postStreamed(`${url}${path}`, JSON.stringify({ model: MODEL, ...body }));
    const text = (a: { chunks: { bytes: Buffer }[] }) =>
      Buffer.concat(a.chunks.map((c) => c.bytes)).toString();

    it('chat with stream: role-only first chunk, a chunk per token, finish, usage, [DONE]', async () => {
      const answer = await post('/v1/chat/completions', {
        messages: [{ role: 'user', content: PROMPT }],
        max_tokens: 4,
        stream: true,
        stream_options: { include_usage: true },
      });
      expect([answer.status, answer.contentType]).toEqual([200, 'text/event-stream; charset=utf-8']);
      const decoder = new OpenAiStreamDecoder();
      const record = newRecord(answer.sent_ms, 0);
      const events = answer.chunks.flatMap((c) => {
        const read = decoder.push(new Uint8Array(c.bytes));
        recordOpenAi(record, read, c.at_ms);
        return read;
      });
      expect(decoder.end()).toEqual({ truncated: false, done: true });
      expect(
        events.map((e) =>
          e.kind === 'chunk' ? [e.kind, e.role ?? '', e.text !== '', e.finishReason ?? ''] : [e.kind],
        ),
      ).toEqual([
        ['chunk', 'assistant', false, ''],
        ...Array.from({ length: 4 }, () => ['chunk', '', true, '']),
        ['chunk', '', false, 'length'],
        ['usage'],
        ['done'],
      ]);
      const metrics = requestMetrics(record);
      expect([metrics.ok, metrics.outputTokens, record.inputTokens]).toEqual([true, 4, 8]);
      expect(text(answer).endsWith('data: [DONE]\n\n')).toBe(true);
    });

    it('completions with stream and without: tokens, usage and one completion object', async () => {
      const streamed = await post('/v1/completions', { prompt: PROMPT, max_tokens: 3, stream: true });
      const events = new OpenAiStreamDecoder().push(Buffer.concat(streamed.chunks.map((c) => c.bytes)));
      expect(events.filter((e) => e.kind === 'chunk' && e.text !== '')).toHaveLength(3);
      expect(events.some((e) => e.kind === 'usage')).toBe(false);
      const whole = await post('/v1/completions', { prompt: PROMPT, max_tokens: 3 });
      const json = JSON.parse(text(whole));
      expect([whole.status, json.object, json.choices[0].text.split(' ').length, json.usage]).toEqual([
        200,
        'text_completion',
        3,
        { prompt_tokens: 8, completion_tokens: 3, total_tokens: 11 },
      ]);
    });

    it('an unknown model or a request that cannot fit: the error object under its status', async () => {
      const unknown = await postStreamed(
        `${url}/v1/completions`,
        JSON.stringify({ model: 'nope', prompt: 'x' }),
      );
      expect(unknown.status).toBe(404);
      expect(JSON.parse(text(unknown)).error.message).toMatch(/unknown model: 'nope'/);
      const big = await post('/v1/completions', { prompt: PROMPT, max_tokens: 100000, stream: true });
      expect(big.status).toBe(400);
      expect(JSON.parse(text(big)).error.message).toMatch(/KV cache tokens/);
    });
  });
});
