/**
 * Runs lib/genai under real k6 (goja, no Node APIs): decodes real Triton's generate_stream capture byte by
 * byte and an OpenAI stream, scores a few records, and logs the result as one JSON line, which
 * test/tools/genai-under-k6.test.ts compares with the same computation under Node (genaiSample).
 */
import { genaiSample } from '../genai-sample.ts';

const capture = new Uint8Array(open('../../../genai/fixtures/triton-generate-stream-repeat.sse', 'b'));

export const options = { vus: 1, iterations: 1 };

export default function (): void {
  console.log(JSON.stringify(genaiSample(capture)));
}
