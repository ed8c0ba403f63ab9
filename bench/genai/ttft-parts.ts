/**
 * Where a streamed request's time to first token goes beyond the time the server was asked to take: the
 * embedded server in its own process (as `bench` runs it), one request at a time, each on its own
 * ModelStreamInfer stream (as scenarios/llm.ts sends them). Prints, per case, TTFT min / p50 / p90 / avg:
 * - repeat with DELAY [0]: the stream's own round trip (open, send, first response back), no server wait;
 * - repeat with DELAY [d]: the round trip plus the server's timer for d ms;
 * - gpt2 with the calibration workload: the round trip plus the simulated prefill;
 * and, in this process, the simulated engine alone (generate() to its first token, no transport) and how late
 * Node's setTimeout(d) fires. Figures, not assertions.
 *
 *   node --import tsx bench/genai/ttft-parts.ts [--requests 100] [--delay 20]
 */
import { parseArgs } from 'node:util';
import { type Stats, summarize } from '../../lib/genai/stats.ts';
import { startEmbedded } from '../../measure/core/embedded.ts';
import { firstResponse } from './new-stream.ts';
import { GPT2 } from '../../models/generative.ts';
import { simulatedLlmTiming } from '../../measure/repository/generative-config.ts';
import { GenerationEngine } from '@k6-triton/server';
import { gpt2InferRequest, inferenceClient, type Msg } from '../../packages/server/test/generative-client.ts';
import { repeatInferRequest } from '../../test/e2e/triton/repeat-stream.ts';

const { values: args } = parseArgs({
  options: { requests: { type: 'string', default: '100' }, delay: { type: 'string', default: '20' } },
});
const REQUESTS = Number(args.requests);
const DELAY = Number(args.delay);

async function sample(client: Msg, request: () => object): Promise<Stats> {
  for (let i = 0; i < 5; i++) await firstResponse(client, request());
  const ttft: number[] = [];
  for (let i = 0; i < REQUESTS; i++) ttft.push(await firstResponse(client, request()));
  return summarize(ttft)!;
}

/** The engine's own TTFT: generate() to the first token's callback, in this process. */
async function engineTtft(inputTokens: number): Promise<Stats> {
  const engine = new GenerationEngine(simulatedLlmTiming(GPT2));
  const ttft: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const start = performance.now();
    let first: number | undefined;
    await engine.generate(inputTokens, 2, (index) => {
      if (index === 0) first = performance.now() - start;
    });
    ttft.push(first!);
  }
  engine.close();
  return summarize(ttft)!;
}

async function timerLateness(delay_ms: number): Promise<Stats> {
  const late: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const start = performance.now();
    await new Promise((r) => setTimeout(r, delay_ms));
    late.push(performance.now() - start - delay_ms);
  }
  return summarize(late)!;
}

const f = (s: Stats) =>
  `${s.min.toFixed(3)} / ${s.p50.toFixed(3)} / ${s.p90.toFixed(3)} / ${s.avg.toFixed(3)}`;
const server = await startEmbedded({ httpPort: 0, grpcPort: 0, metricsPort: 0 });
const client = inferenceClient(server.grpcUrl);
try {
  const C = GPT2.calibration;
  const prompt = Array.from({ length: C.inputTokens }, (_, i) => `w${i}`).join(' ');
  let id = 0;
  const repeat = (delay: number) => () =>
    repeatInferRequest({ id: String(id++), values: [1], delays_ms: [delay], emptyFinal: true });
  console.log('| case | asked (ms) | TTFT min / p50 / p90 / avg (ms) |\n|---|---|---|');
  console.log(`| repeat, DELAY [0] | 0 | ${f(await sample(client, repeat(0)))} |`);
  console.log(`| repeat, DELAY [${DELAY}] | ${DELAY} | ${f(await sample(client, repeat(DELAY)))} |`);
  const gpt2 = () => gpt2InferRequest({ id: String(id++), prompt, maxTokens: 2, emptyFinal: true });
  console.log(`| gpt2, ${C.inputTokens} input tokens | ${C.ttft_ms} | ${f(await sample(client, gpt2))} |`);
  console.log(
    `| gpt2 engine alone, ${C.inputTokens} input tokens | ${C.ttft_ms} | ${f(await engineTtft(C.inputTokens))} |`,
  );
  console.log(`| setTimeout(${DELAY}) lateness, this process | 0 | ${f(await timerLateness(DELAY))} |`);
  console.log(
    `| setTimeout(${C.ttft_ms}) lateness, this process | 0 | ${f(await timerLateness(C.ttft_ms))} |`,
  );
} finally {
  client.close();
  await server.stop();
}
