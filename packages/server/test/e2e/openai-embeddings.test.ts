/**
 * The embedded server's OpenAI `/v1/embeddings` over a real socket, in front of the simulated gpt2: OpenAI's and
 * vLLM's response shape (a list of `embedding` objects by index, usage), a batch of inputs, token-id inputs,
 * base64 vectors, `dimensions`, the same vector for the same input, and OpenAI's error object for a bad request.
 * Shapes only, no timing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import { GPT2 } from '../../../../models/generative.ts';
import { DEFAULT_EMBEDDING_DIMENSIONS } from '../../src/http/openai-embeddings.ts';
import { start } from '../helpers.ts';

interface Embedding {
  object: string;
  index: number;
  embedding: number[] | string;
}

describe('OpenAI /v1/embeddings on the embedded server', () => {
  let server: RunningServer;
  let url: string;
  beforeAll(async () => {
    server = await start({ simulated: { timeScale: 0 } });
    url = `http://127.0.0.1:${server.httpPort}/v1/embeddings`;
  });
  afterAll(async () => {
    await server?.stop();
  });

  const post = async (body: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      json: (await res.json()) as Record<string, unknown>,
    };
  };
  const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

  it('embeds a batch of strings: one unit vector per input, by index, with usage', async () => {
    const { status, type, json } = await post({ model: GPT2.name, input: ['one two three', 'four five'] });
    expect([status, type]).toEqual([200, 'application/json']);
    expect(json).toMatchObject({
      object: 'list',
      model: GPT2.name,
      usage: { prompt_tokens: 5, total_tokens: 5 },
    });
    expect(json.id).toMatch(/^embd-\d+$/);
    const data = json.data as Embedding[];
    expect(data.map((d) => [d.object, d.index])).toEqual([
      ['embedding', 0],
      ['embedding', 1],
    ]);
    const [a, b] = data.map((d) => d.embedding as number[]);
    expect(a).toHaveLength(DEFAULT_EMBEDDING_DIMENSIONS);
    expect(norm(a!)).toBeCloseTo(1, 5);
    expect(a).not.toEqual(b);
    // The same input, the same vector.
    const again = await post({ model: GPT2.name, input: 'one two three' });
    expect((again.json.data as Embedding[])[0]!.embedding).toEqual(a);
  });

  it('takes token ids, dimensions and base64 vectors (little-endian float32)', async () => {
    const { json } = await post({
      model: GPT2.name,
      input: [[15496, 995, 11]],
      dimensions: 8,
      encoding_format: 'base64',
    });
    expect(json.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    const raw = Buffer.from((json.data as Embedding[])[0]!.embedding as string, 'base64');
    const vector = Array.from(new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4));
    expect(vector).toHaveLength(8);
    expect(norm(vector)).toBeCloseTo(1, 5);
  });

  it.each([
    [{ model: GPT2.name, input: '' }, 400, "'input' must be a non-empty string"],
    [
      { model: GPT2.name, input: 'x', encoding_format: 'int8' },
      400,
      "'encoding_format' must be float or base64",
    ],
    [
      { model: GPT2.name, input: 'x', dimensions: 0 },
      400,
      "'dimensions' must be a whole number from 1 to 4096",
    ],
    [{ model: 'no-such-model', input: 'x' }, 404, 'no-such-model'],
  ])('refuses %j with %i and OpenAI’s error object', async (body, code, message) => {
    const { status, json } = await post(body);
    expect(status).toBe(code);
    expect((json.error as { message: string; code: number }).message).toContain(message);
    expect((json.error as { code: number }).code).toBe(code);
  });
});
