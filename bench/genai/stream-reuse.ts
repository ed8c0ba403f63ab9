/**
 * What opening a stream per request costs over gRPC: requests with no server wait (the repeat model, DELAY
 * [0]) to the embedded server in its own process (as `bench` starts it), one at a time, each on a new
 * ModelStreamInfer stream (as scenarios/llm.ts sends them) against all on one long-lived stream (as
 * perf_analyzer --streaming sends them). Prints time to first response min / p50 / p90 / avg, ms, per way,
 * the two ways interleaved in rounds so the machine's load falls on both. Figures, not assertions.
 *
 *   node --import tsx bench/genai/stream-reuse.ts [--requests 200]
 */
import { parseArgs } from 'node:util';
import { readDecoupledResponse } from '../../lib/genai/decoupled.ts';
import { type Stats, summarize } from '../../lib/genai/stats.ts';
import { startEmbedded } from '../../measure/core/embedded.ts';
import { inferenceClient, type Msg } from '../../packages/server/test/generative-client.ts';
import { repeatInferRequest } from '../../test/e2e/triton/repeat-stream.ts';
import { firstResponse } from './new-stream.ts';

const { values: args } = parseArgs({ options: { requests: { type: 'string', default: '200' } } });
const REQUESTS = Number(args.requests);
let id = 0;
const request = () => repeatInferRequest({ id: String(id++), values: [1], delays_ms: [0], emptyFinal: true });

/** One long-lived stream; `send()` resolves with one request's first response - send, ms. */
function sharedStream(client: Msg): { send(): Promise<number>; close(): void } {
  const call = client.ModelStreamInfer();
  let waiting: { sent: number; first?: number; done(ms: number): void } | undefined;
  call.on('data', (m: Msg) => {
    const at = performance.now();
    const read = readDecoupledResponse(m);
    if (!waiting) return;
    if (waiting.first === undefined && read.outputs > 0) waiting.first = at - waiting.sent;
    if (read.final) {
      const w = waiting;
      waiting = undefined;
      w.done(w.first!);
    }
  });
  return {
    send: () =>
      new Promise((done) => {
        waiting = { sent: performance.now(), done };
        call.write(request());
      }),
    close: () => call.end(),
  };
}

const f = (s: Stats) =>
  `${s.min.toFixed(3)} / ${s.p50.toFixed(3)} / ${s.p90.toFixed(3)} / ${s.avg.toFixed(3)}`;
const server = await startEmbedded({ httpPort: 0, grpcPort: 0, metricsPort: 0 });
const client = inferenceClient(server.grpcUrl);
const shared = sharedStream(client);
try {
  for (let i = 0; i < 10; i++) {
    await firstResponse(client, request());
    await shared.send();
  }
  const fresh: number[] = [];
  const reused: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    fresh.push(await firstResponse(client, request()));
    reused.push(await shared.send());
  }
  console.log('| way | requests | first response min / p50 / p90 / avg (ms) |\n|---|---|---|');
  console.log(`| a new stream per request | ${REQUESTS} | ${f(summarize(fresh)!)} |`);
  console.log(`| one stream for all | ${REQUESTS} | ${f(summarize(reused)!)} |`);
} finally {
  shared.close();
  client.close();
  await server.stop();
}
