/**
 * Triton's generate_stream framing, read from bytes captured from real Triton 2.60.0 (the decoupled repeat
 * backend; test/genai/fixtures/*.sse, see test/e2e/triton/generate-stream-repeat.test.ts) and from the documented
 * mid-stream failure, which the repeat backend cannot produce.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GenerateStreamDecoder, readGenerateEvent } from '../../lib/genai/generate-stream.ts';
import { feedEveryWay } from './chunking.ts';

const fixture = (name: string) =>
  new Uint8Array(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));
const response = (idx: number, out: number) => ({
  kind: 'response',
  body: { IDX: idx, OUT: out, model_name: 'repeat_int32', model_version: '1' },
});

describe('generate_stream', () => {
  it("real Triton's repeat stream: one response event per element, however the bytes are cut", () => {
    const body = fixture('triton-generate-stream-repeat.sse');
    for (const way of feedEveryWay(body, () => new GenerateStreamDecoder())) {
      expect(way.events, way.how).toEqual([response(0, 7), response(1, -3), response(2, 2147483647)]);
      expect(way.truncated, way.how).toBe(false);
    }
  });

  it("real Triton's failure before any response (sent under a 400) is an error event", () => {
    const events = new GenerateStreamDecoder().push(fixture('triton-generate-stream-error.sse'));
    expect(events).toEqual([
      { kind: 'error', message: 'expected IN and DELAY shape to match, got [2] and [1]' },
    ]);
  });

  it('a failure after responses, under the 200 already sent, is caught on its own event', () => {
    const d = new GenerateStreamDecoder();
    const events = d.push(
      'data: {"text_output":"Hel","model_name":"m","model_version":"1"}\n\n' +
        'data: {"error":"Error generating stream: out of memory"}\n\n',
    );
    expect(events.map((e) => e.kind)).toEqual(['response', 'error']);
    expect(events[1]).toEqual({ kind: 'error', message: 'Error generating stream: out of memory' });
  });

  it('data Triton never sends is reported, not taken for a response', () => {
    expect(readGenerateEvent({ event: 'message', data: '[DONE]' })).toMatchObject({ kind: 'malformed' });
    expect(readGenerateEvent({ event: 'message', data: '[1,2]' })).toMatchObject({
      kind: 'malformed',
      reason: 'data is not a JSON object',
    });
    expect(readGenerateEvent({ event: 'update', data: '{}' })).toMatchObject({
      kind: 'malformed',
      reason: 'unexpected event type "update"',
    });
  });

  it('a body cut inside an event is truncated', () => {
    const d = new GenerateStreamDecoder();
    expect(d.push('data: {"text_output":"a"}\n\ndata: {"text_')).toHaveLength(1);
    expect(d.end()).toEqual({ truncated: true });
  });
});
