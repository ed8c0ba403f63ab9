/**
 * A generative model (gpt2, models/generative.ts) streamed over gRPC ModelStreamInfer or, with PROTOCOL=generate,
 * openai-chat or openai-completions, over server-sent events (k6/x/sse): TTFT, ITL, latency and output tokens per
 * level, budgets on TTFT and ITL p95. Run: make bench-llm, or
 * k6 run -e TRITON_GRPC_URL=127.0.0.1:8001 scenarios/llm.ts (see docs/generative-metrics.md).
 */
import { generativeTest } from './kit/genai/stream-test.ts';
import { embeddingsTest } from './kit/genai/embeddings-test.ts';
import { GENERATIVE } from '../models/generative.ts';

const MODEL = GENERATIVE[__ENV.MODEL || 'gpt2'];
if (!MODEL)
  throw new Error(`unknown generative model "${__ENV.MODEL}"; known: ${Object.keys(GENERATIVE).join(', ')}`);
const BUDGET = __ENV.THRESHOLDS || `../thresholds/${MODEL.id}.json`;
// PROTOCOL=openai-embeddings embeds the model's prompts (POST /v1/embeddings) instead of generating from them.
const build = __ENV.PROTOCOL === 'openai-embeddings' ? embeddingsTest : generativeTest;
export const { options, setup, warmup, infer, stats, handleSummary } = build(MODEL, open(BUDGET), BUDGET);
