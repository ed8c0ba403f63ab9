/** Stream events folded into request records, protocol by protocol, then scored. */
import { describe, expect, it } from 'vitest';
import { GenerateStreamDecoder } from '../../lib/genai/generate-stream.ts';
import { requestMetrics } from '../../lib/genai/metrics.ts';
import { OpenAiStreamDecoder } from '../../lib/genai/openai-stream.ts';
import { newRecord, recordDecoupled, recordGenerate, recordOpenAi } from '../../lib/genai/record.ts';

const chat = (delta: object) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;

describe('recordOpenAi', () => {
  it('role-only and finish chunks carry no token; usage wins; [DONE] ends the request', () => {
    const d = new OpenAiStreamDecoder();
    const record = newRecord(100, 0);
    recordOpenAi(record, d.push(chat({ role: 'assistant', content: '' })), 105);
    recordOpenAi(record, d.push(chat({ content: 'Hel' })), 110);
    // Two events in one network read share its time.
    recordOpenAi(record, d.push(chat({ content: 'lo' }) + chat({ content: '!' })), 118);
    recordOpenAi(
      record,
      d.push(
        `${chat({})}data: {"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":4}}\n\ndata: [DONE]\n\n`,
      ),
      121,
    );
    expect(record).toEqual({
      sent_ms: 100,
      inputTokens: 12,
      outputTokens: 4,
      done_ms: 121,
      chunks: [
        { at_ms: 105, tokens: 0 },
        { at_ms: 110, tokens: 1 },
        { at_ms: 118, tokens: 1 },
        { at_ms: 118, tokens: 1 },
        { at_ms: 121, tokens: 0 },
      ],
    });
    const m = requestMetrics(record);
    expect([m.ttft_ms, m.latency_ms, m.outputTokens, m.itl_ms]).toEqual([10, 18, 4, 8 / 3]);
    expect(m.gaps_ms).toEqual([8, 0]);
  });

  it('an error event fails the request; later events are ignored', () => {
    const d = new OpenAiStreamDecoder();
    const record = newRecord(0, 3);
    recordOpenAi(record, d.push(chat({ content: 'a' })), 5);
    recordOpenAi(record, d.push(`data: {"error":{"message":"boom"}}\n\n${chat({ content: 'b' })}`), 9);
    expect(record.error).toBe('boom');
    expect(record.done_ms).toBe(9);
    expect(record.chunks).toHaveLength(1);
    expect(requestMetrics(record).ok).toBe(false);
  });
});

describe('recordGenerate', () => {
  it('one token per response by default; a mid-stream error under the 200 fails the request', () => {
    const d = new GenerateStreamDecoder();
    const record = newRecord(0, 1);
    recordGenerate(record, d.push('data: {"text_output":"a"}\n\n'), 4);
    recordGenerate(record, d.push('data: {"text_output":"b"}\n\ndata: {"error":"lost"}\n\n'), 7);
    expect(record.chunks).toEqual([
      { at_ms: 4, tokens: 1 },
      { at_ms: 7, tokens: 1 },
    ]);
    expect([record.error, record.done_ms]).toEqual(['lost', 7]);
  });

  it('a counter reads each response body; a malformed event fails the request', () => {
    const record = newRecord(0, 1);
    const ids = (body: Record<string, unknown>) => (body.output_ids as number[]).length;
    recordGenerate(record, [{ kind: 'response', body: { output_ids: [5, 6, 7] } }], 3, ids);
    expect(record.chunks).toEqual([{ at_ms: 3, tokens: 3 }]);
    recordGenerate(record, [{ kind: 'malformed', reason: 'data is not JSON', data: 'x' }], 4);
    expect(record.error).toBe('malformed event: data is not JSON');
  });
});

describe('recordDecoupled', () => {
  it('responses with outputs are tokens, the empty final response ends the request, an error fails it', () => {
    const record = newRecord(0, 2);
    expect(recordDecoupled(record, { final: false, outputs: 2 }, 5)).toBe(false);
    expect(recordDecoupled(record, { final: false, outputs: 2 }, 8)).toBe(false);
    expect(recordDecoupled(record, { final: true, outputs: 0 }, 9)).toBe(true);
    expect(record.chunks).toEqual([
      { at_ms: 5, tokens: 1 },
      { at_ms: 8, tokens: 1 },
      { at_ms: 9, tokens: 0 },
    ]);
    expect(record.done_ms).toBe(9);
    expect(requestMetrics(record).latency_ms).toBe(8);

    const failed = newRecord(0, 2);
    expect(recordDecoupled(failed, { error: 'bad', final: true, outputs: 0 }, 3)).toBe(true);
    expect([failed.error, failed.done_ms, failed.chunks.length]).toEqual(['bad', 3, 0]);
  });
});
