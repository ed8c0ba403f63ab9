/**
 * Real Triton 2.60.0 streaming a decoupled model (the repeat backend) over both protocols the suite's
 * generative scenarios use, pinning what lib/genai reads: ModelStreamInfer's several responses per request,
 * `triton_final_response` on each, the empty final response only when the request opts in, errors on the
 * stream; generate_stream's SSE bytes through the suite's decoder. Order and counts only: the measured gaps
 * against the requested delays are printed by bench/genai/repeat-gaps.ts. Skipped without tritonserver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDecoupledResponse } from '../../../lib/genai/decoupled.ts';
import { GenerateStreamDecoder } from '../../../lib/genai/generate-stream.ts';
import { requestMetrics } from '../../../lib/genai/metrics.ts';
import { newRecord, recordDecoupled, recordGenerate } from '../../../lib/genai/record.ts';
import { REAL_TRITON, startRealTarget, type Target } from './servers.ts';
import {
  postStreamed,
  REPEAT_MODEL,
  type RepeatRequest,
  removeRepeatRepository,
  repeatGenerateBody,
  streamClient,
  type StreamMessage,
  writeRepeatRepository,
} from './repeat-stream.ts';

const VALUES = [11, -22, 33, 2147483647];
const DELAYS = [3, 6, 1, 4];

describe.skipIf(!REAL_TRITON.path)(`real Triton's decoupled repeat model ${REAL_TRITON.skipReason}`, () => {
  let repository: string;
  let triton: Target;
  let client: ReturnType<typeof streamClient>;

  beforeAll(async () => {
    repository = writeRepeatRepository();
    triton = await startRealTarget(repository);
    client = streamClient(triton.grpcUrl);
  });

  afterAll(async () => {
    client?.close();
    await triton?.stop();
    if (repository) removeRepeatRepository(repository);
  });

  /** Runs requests on one stream until each has `expected[id]` messages. */
  const stream = (requests: RepeatRequest[], expected: Record<string, number>) =>
    client.run(requests, (messages) =>
      Object.entries(expected).every(([id, n]) => messages.filter((m) => m.id === id).length >= n),
    );
  const ofRequest = (messages: StreamMessage[], id: string) => messages.filter((m) => m.id === id);

  describe('gRPC ModelStreamInfer', () => {
    it('opted in: one response per element in order, each not final, then an empty final response', async () => {
      const { messages, status } = await stream(
        [{ id: 'a', values: VALUES, delays_ms: DELAYS, emptyFinal: true }],
        {
          a: VALUES.length + 1,
        },
      );
      expect(status).toBeUndefined();
      const got = ofRequest(messages, 'a');
      expect(got.map((m) => [m.out, m.idx, m.final, m.outputCount, m.error])).toEqual([
        [11, 0, false, 2, ''],
        [-22, 1, false, 2, ''],
        [33, 2, false, 2, ''],
        [2147483647, 3, false, 2, ''],
        [undefined, undefined, true, 0, ''],
      ]);
      // The suite's reader of decoupled messages sees the same.
      const response = { id: 'a', final: false, outputs: 2 };
      expect(got.map((m) => readDecoupledResponse(m.raw))).toEqual([
        response,
        response,
        response,
        response,
        { id: 'a', final: true, outputs: 0 },
      ]);
    });

    it('not opted in (absent or false): every response says final false and no empty final response comes', async () => {
      const requests: RepeatRequest[] = [
        { id: 'absent', values: VALUES, delays_ms: DELAYS },
        { id: 'off', values: [5, 6], delays_ms: [1, 1], emptyFinal: false },
        // A sentinel that does send its empty final, after the others' last response: waiting for it leaves
        // time for any final response the first two would (wrongly) get.
        { id: 'sentinel', values: [0], delays_ms: [40], emptyFinal: true },
      ];
      const { messages } = await stream(requests, { absent: 4, off: 2, sentinel: 2 });
      expect(ofRequest(messages, 'absent').map((m) => [m.out, m.final])).toEqual(
        VALUES.map((v) => [v, false]),
      );
      expect(ofRequest(messages, 'off').map((m) => [m.out, m.final])).toEqual([
        [5, false],
        [6, false],
      ]);
      expect(ofRequest(messages, 'sentinel').map((m) => m.final)).toEqual([false, true]);
    });

    it('no elements: only the empty final response; a bad request: one error message, marked final', async () => {
      const { messages } = await stream(
        [
          { id: 'none', values: [], delays_ms: [], emptyFinal: true },
          { id: 'bad', values: [1, 2], delays_ms: [1] },
        ],
        { none: 1, bad: 1 },
      );
      expect(ofRequest(messages, 'none').map((m) => [m.final, m.outputCount, m.error])).toEqual([
        [true, 0, ''],
      ]);
      expect(ofRequest(messages, 'bad').map((m) => [m.final, m.outputCount, m.error])).toEqual([
        [true, 0, 'expected IN and DELAY shape to match, got [2] and [1]'],
      ]);
      expect(readDecoupledResponse(ofRequest(messages, 'bad')[0]!.raw)).toEqual({
        id: 'bad',
        error: 'expected IN and DELAY shape to match, got [2] and [1]',
        final: true,
        outputs: 0,
      });
    });

    it("the messages' arrival times make a record the metrics read: OSL and gap counts match the request", async () => {
      const { sent_ms, messages } = await stream(
        [{ id: 'm', values: VALUES, delays_ms: DELAYS, emptyFinal: true }],
        {
          m: VALUES.length + 1,
        },
      );
      const got = ofRequest(messages, 'm');
      // Arrival order is the order IDX says the backend sent them.
      expect(got.filter((m) => m.outputCount > 0).map((m) => m.idx)).toEqual([0, 1, 2, 3]);
      const record = newRecord(sent_ms.get('m')!, VALUES.length);
      const over = got.map((m) => recordDecoupled(record, readDecoupledResponse(m.raw), m.at_ms));
      expect(over).toEqual([false, false, false, false, true]);
      expect(record.chunks.map((c) => c.tokens)).toEqual([1, 1, 1, 1, 0]);
      const metrics = requestMetrics(record);
      expect(metrics.ok).toBe(true);
      expect(metrics.outputTokens).toBe(VALUES.length);
      // The empty final response is not a token: three gaps between four responses, not four.
      expect(metrics.gaps_ms).toHaveLength(VALUES.length - 1);
      expect(requestMetrics(record, { firstToken: 'any' }).gaps_ms).toHaveLength(VALUES.length);
    });
  });

  describe('HTTP generate_stream', () => {
    const url = () => `${triton.url}/v2/models/${REPEAT_MODEL}/generate_stream`;

    it('frames each response as one `data: <json>` event, nothing else, and the decoder reads them', async () => {
      const answer = await postStreamed(
        url(),
        repeatGenerateBody({ id: '', values: VALUES, delays_ms: DELAYS }),
      );
      expect(answer.status).toBe(200);
      expect(answer.contentType).toBe('text/event-stream; charset=utf-8');
      const raw = Buffer.concat(answer.chunks.map((c) => c.bytes)).toString('utf8');
      // No event: or id: lines, no [DONE], no comments: data lines each followed by a blank line.
      expect(raw).toMatch(/^(data: \{[^\n]*\}\n\n){4}$/);
      const decoder = new GenerateStreamDecoder();
      const record = newRecord(answer.sent_ms, VALUES.length);
      const events = answer.chunks.flatMap((c) => {
        const read = decoder.push(new Uint8Array(c.bytes));
        recordGenerate(record, read, c.at_ms);
        return read;
      });
      expect(decoder.end()).toEqual({ truncated: false });
      const metrics = requestMetrics(record);
      expect([metrics.ok, metrics.outputTokens, metrics.gaps_ms.length]).toEqual([
        true,
        VALUES.length,
        VALUES.length - 1,
      ]);
      expect(events).toEqual(
        VALUES.map((v, i) => ({
          kind: 'response',
          body: { IDX: i, OUT: v, model_name: REPEAT_MODEL, model_version: '1' },
        })),
      );
    });

    it('sends no extra event for the empty final response, even when asked for one', async () => {
      const answer = await postStreamed(
        url(),
        repeatGenerateBody({ id: '', values: [1, 2], delays_ms: [1, 1], emptyFinal: true }),
      );
      const decoder = new GenerateStreamDecoder();
      const events = answer.chunks.flatMap((c) => decoder.push(new Uint8Array(c.bytes)));
      expect(events.map((e) => e.kind)).toEqual(['response', 'response']);
    });

    it('a failure before any response: the error as an SSE event under 400; a request rejected up front: JSON', async () => {
      const failed = await postStreamed(
        url(),
        repeatGenerateBody({ id: '', values: [1, 2, 3], delays_ms: [1, 1] }),
      );
      expect(failed.status).toBe(400);
      expect(failed.contentType).toBe('text/event-stream; charset=utf-8');
      const decoder = new GenerateStreamDecoder();
      expect(failed.chunks.flatMap((c) => decoder.push(new Uint8Array(c.bytes)))).toEqual([
        { kind: 'error', message: 'expected IN and DELAY shape to match, got [3] and [2]' },
      ]);
      const rejected = await postStreamed(url(), JSON.stringify({ IN: [1], DELAY: [1] }));
      expect(rejected.status).toBe(400);
      expect(rejected.contentType).toBe('application/json');
      expect(JSON.parse(Buffer.concat(rejected.chunks.map((c) => c.bytes)).toString()).error).toMatch(
        /missing required input\(s\) \['WAIT'\]/,
      );
    });

    it('no elements: a 200 stream with no event', async () => {
      const answer = await postStreamed(url(), repeatGenerateBody({ id: '', values: [], delays_ms: [] }));
      expect(answer.status).toBe(200);
      expect(Buffer.concat(answer.chunks.map((c) => c.bytes)).length).toBe(0);
    });
  });
});
