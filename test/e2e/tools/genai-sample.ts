/**
 * One computation over lib/genai that both runtimes run (test/tools/scripts/genai-modules.ts under real k6,
 * test/tools/genai-under-k6.test.ts under Node): stream decoders fed byte by byte, a record built from one
 * stream, and level metrics.
 * Imports nothing from Node, so that k6 can load it.
 */
import { GenerateStreamDecoder } from '../../../lib/genai/generate-stream.ts';
import { levelMetrics, requestMetrics } from '../../../lib/genai/metrics.ts';
import { OpenAiStreamDecoder } from '../../../lib/genai/openai-stream.ts';
import { newRecord, recordOpenAi } from '../../../lib/genai/record.ts';

const OPENAI =
  'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\r\n\r\n' +
  'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"h\u00e9 \ud83d\ude80"}}]}\r\n\r\n' +
  'data: {"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":2}}\r\n\r\ndata: [DONE]\r\n\r\n';

/** Decodes `capture` (a generate_stream body) and a fixed OpenAI stream byte by byte, and scores fixed records. */
export function genaiSample(capture: Uint8Array): unknown {
  const generate = new GenerateStreamDecoder();
  const generateEvents = [];
  for (let i = 0; i < capture.length; i++) generateEvents.push(...generate.push(capture.subarray(i, i + 1)));
  const openai = new OpenAiStreamDecoder();
  const openaiEvents = [];
  const openaiRecord = newRecord(0, 0);
  for (const [i, ch] of Array.from(OPENAI).entries()) {
    const read = openai.push(ch);
    recordOpenAi(openaiRecord, read, i / 10);
    openaiEvents.push(...read);
  }
  const level = levelMetrics(
    [
      {
        sent_ms: 0,
        inputTokens: 4,
        chunks: [
          { at_ms: 9.5, tokens: 0 },
          { at_ms: 12, tokens: 1 },
          { at_ms: 15.25, tokens: 2 },
        ],
      },
      { sent_ms: 20, inputTokens: 4, chunks: [{ at_ms: 31, tokens: 1 }] },
      { sent_ms: 25, inputTokens: 4, chunks: [{ at_ms: 30, tokens: 1 }], error: 'boom', done_ms: 40 },
    ],
    { slo: { ttft_ms: 11, itl_ms: 2 } },
  );
  return {
    generateEvents,
    generateEnd: generate.end(),
    openaiEvents,
    openaiEnd: openai.end(),
    openaiRecord,
    openaiMetrics: requestMetrics(openaiRecord),
    level,
  };
}
