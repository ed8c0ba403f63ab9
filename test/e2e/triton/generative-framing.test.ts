/**
 * The embedded gpt2 (simulated, decoupled) against real Triton 2.60.0's decoupled repeat model, where their
 * framing is comparable: which fields each ModelStreamInfer message carries (a response, the empty final
 * response, an error), the final flags, generate_stream's bytes layout, Content-Type and statuses, generate's
 * answer when a model streams, and how /infer and ModelInfer refuse a decoupled model. Skipped without tritonserver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GPT2 } from '../../../models/generative.ts';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import type { RunningServer } from '@k6-triton/server';
import {
  gpt2InferRequest,
  inferenceClient,
  type Msg,
  ofRequest,
  streamMessages,
} from '../../../packages/server/test/generative-client.ts';
import {
  postStreamed,
  REPEAT_MODEL,
  removeRepeatRepository,
  repeatGenerateBody,
  repeatInferRequest,
  writeRepeatRepository,
} from './repeat-stream.ts';
import { REAL_TRITON, startRealTarget, type Target } from './servers.ts';

const PROMPT = 'one two three';

/** A message's layout: its top-level fields, its response's fields, its final flag, its output count. */
function layout(m: Msg): object {
  const r = m.infer_response ?? {};
  return {
    top: Object.keys(m).sort(),
    response: Object.keys(r).sort(),
    final: r.parameters?.triton_final_response?.bool_param,
    outputs: (r.outputs ?? []).length > 0,
  };
}

describe.skipIf(!REAL_TRITON.path)(
  `embedded gpt2 framed as real Triton's repeat model ${REAL_TRITON.skipReason}`,
  () => {
    let repository: string;
    let triton: Target;
    let embedded: RunningServer;
    let real: Msg;
    let ours: Msg;
    let ourUrl: string;

    beforeAll(async () => {
      repository = writeRepeatRepository();
      [triton, embedded] = await Promise.all([
        startRealTarget(repository),
        startCatalogServer({ httpPort: 0, grpcPort: 0, metricsPort: -1, simulated: { timeScale: 0 } }),
      ]);
      real = inferenceClient(triton.grpcUrl);
      ours = inferenceClient(`127.0.0.1:${embedded.grpcPort}`);
      ourUrl = `http://127.0.0.1:${embedded.httpPort}`;
    });

    afterAll(async () => {
      real?.close();
      ours?.close();
      await Promise.all([triton?.stop(), embedded?.stop()]);
      if (repository) removeRepeatRepository(repository);
    });

    it('ModelStreamInfer: responses, the empty final response and an error carry the same fields and flags', async () => {
      const [theirs, mine] = await Promise.all([
        streamMessages(
          real,
          [
            repeatInferRequest({ id: 'a', values: [1, 2], delays_ms: [1, 1], emptyFinal: true }),
            repeatInferRequest({ id: 'bad', values: [1, 2], delays_ms: [1] }),
          ],
          { a: 3, bad: 1 },
        ),
        streamMessages(
          ours,
          [
            gpt2InferRequest({ id: 'a', prompt: PROMPT, maxTokens: 2, emptyFinal: true }),
            gpt2InferRequest({ id: 'bad', prompt: PROMPT, maxTokens: 100000 }),
          ],
          { a: 3, bad: 1 },
        ),
      ]);
      const layouts = (r: { messages: { m: Msg }[] }, id: string) =>
        ofRequest(r.messages, id).map((x) => layout(x.m));
      expect(layouts(mine, 'a')).toEqual(layouts(theirs, 'a'));
      expect(layouts(mine, 'bad')).toEqual(layouts(theirs, 'bad'));
      expect(layouts(mine, 'a').map((l) => (l as { final: boolean }).final)).toEqual([false, false, true]);
    });

    it('generate_stream: the same Content-Type and event layout, outputs first; errors before a response alike', async () => {
      const theirs = await postStreamed(
        `${triton.url}/v2/models/${REPEAT_MODEL}/generate_stream`,
        repeatGenerateBody({ id: '', values: [1, 2], delays_ms: [1, 1] }),
      );
      const mine = await postStreamed(
        `${ourUrl}/v2/models/${GPT2.name}/generate_stream`,
        JSON.stringify({ text_input: PROMPT, max_tokens: 2, stream: true }),
      );
      const text = (a: { chunks: { bytes: Buffer }[] }) =>
        Buffer.concat(a.chunks.map((c) => c.bytes)).toString();
      const shape = (raw: string) =>
        raw.replace(/\{[^\n]*,"model_name":"[^"]+","model_version":"1"\}/g, '{…}');
      expect([mine.status, mine.contentType]).toEqual([theirs.status, theirs.contentType]);
      expect(shape(text(mine))).toBe(shape(text(theirs)));
      expect(shape(text(mine))).toBe('data: {…}\n\ndata: {…}\n\n');

      const theirError = await postStreamed(
        `${triton.url}/v2/models/${REPEAT_MODEL}/generate_stream`,
        repeatGenerateBody({ id: '', values: [1, 2], delays_ms: [1] }),
      );
      const myError = await postStreamed(
        `${ourUrl}/v2/models/${GPT2.name}/generate_stream`,
        JSON.stringify({ text_input: PROMPT, max_tokens: 100000 }),
      );
      expect([myError.status, myError.contentType]).toEqual([theirError.status, theirError.contentType]);
      const errorShape = (raw: string) => raw.replace(/"error":"[^"]*"/, '"error":"…"');
      expect(errorShape(text(myError))).toBe(errorShape(text(theirError)));
    });

    it('generate on a model that sent several responses, and /infer on a decoupled model: the same answers', async () => {
      const post = async (url: string, body: string) => {
        const r = await fetch(url, { method: 'POST', body });
        return [r.status, r.headers.get('content-type'), await r.text()];
      };
      expect(
        await post(
          `${ourUrl}/v2/models/${GPT2.name}/generate`,
          JSON.stringify({ text_input: PROMPT, max_tokens: 2, stream: true }),
        ),
      ).toEqual(
        await post(
          `${triton.url}/v2/models/${REPEAT_MODEL}/generate`,
          repeatGenerateBody({ id: '', values: [1, 2], delays_ms: [1, 1] }),
        ),
      );
      expect(await post(`${ourUrl}/v2/models/${GPT2.name}/infer`, '{"inputs":[]}')).toEqual(
        await post(`${triton.url}/v2/models/${REPEAT_MODEL}/infer`, '{"inputs":[]}'),
      );
    });

    it('ModelInfer refuses a decoupled model with the same status and words', async () => {
      const refuse = (client: Msg, request: object) =>
        new Promise<unknown[]>((resolve) =>
          client.ModelInfer(request, (e: { code: number; details: string }) =>
            resolve([e?.code, e?.details]),
          ),
        );
      expect(await refuse(ours, gpt2InferRequest({ id: 'x', prompt: PROMPT, maxTokens: 1 }))).toEqual(
        await refuse(real, repeatInferRequest({ id: 'x', values: [1], delays_ms: [1] })),
      );
    });
  },
);
