/**
 * The embedded server's simulated generative model (gpt2, models/generative.ts) against the published table it
 * is calibrated on, and the knee as concurrency grows: closed loop, each client sending the calibration workload
 * (200 input / 100 output tokens) back to back over gRPC ModelStreamInfer (the empty final response marks the
 * end) or HTTP generate_stream, scored by lib/genai/metrics.ts. Figures, not assertions.
 *
 *   node --import tsx bench/genai/embedded-llm.ts [--concurrency 1,2,4,8] [--requests 20] [--warmup 2] [--protocol grpc|http]
 *
 * --requests and --warmup count per client.
 */
import { parseArgs } from 'node:util';
import { readDecoupledResponse } from '../../lib/genai/decoupled.ts';
import { GenerateStreamDecoder } from '../../lib/genai/generate-stream.ts';
import { type GenerationRecord, type LevelMetrics, levelMetrics } from '../../lib/genai/metrics.ts';
import { failRecord, newRecord, recordDecoupled, recordGenerate } from '../../lib/genai/record.ts';
import { GPT2 } from '../../models/generative.ts';
import { startCatalogServer } from '../../measure/repository/built-in.ts';
import { gpt2InferRequest, inferenceClient, type Msg } from '../../packages/server/test/generative-client.ts';
import { postStreamed } from '../../test/e2e/triton/repeat-stream.ts';

const { values: args } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '1,2,4,8' },
    requests: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '2' },
    protocol: { type: 'string', default: 'grpc' },
  },
});
const LEVELS = String(args.concurrency).split(',').map(Number);
const REQUESTS = Number(args.requests);
const WARMUP = Number(args.warmup);
const PROTOCOL = args.protocol;
if (PROTOCOL !== 'grpc' && PROTOCOL !== 'http') {
  console.error(`--protocol ${PROTOCOL}: expected grpc or http`);
  process.exit(2);
}
if (LEVELS.some((c) => !Number.isInteger(c) || c < 1) || !(REQUESTS >= 1) || !(WARMUP >= 0)) {
  console.error('--concurrency takes whole numbers >= 1 (e.g. 1,2,4,8); --requests >= 1; --warmup >= 0');
  process.exit(2);
}

const C = GPT2.calibration;
const PROMPT = Array.from({ length: C.inputTokens }, (_, i) => `w${i}`).join(' ');

const server = await startCatalogServer({
  httpPort: 0,
  grpcPort: 0,
  metricsPort: -1,
  simulated: { timeScale: 0 },
});

/** One request over a client's own stream: its record (the empty final response ends it). */
function grpcRequest(call: Msg, id: number): Promise<GenerationRecord> {
  return new Promise((resolve) => {
    const record = newRecord(performance.now(), C.inputTokens);
    const onData = (m: Msg) => {
      if (recordDecoupled(record, readDecoupledResponse(m), performance.now())) {
        call.off('data', onData);
        resolve(record);
      }
    };
    call.on('data', onData);
    call.write(
      gpt2InferRequest({ id: String(id), prompt: PROMPT, maxTokens: C.outputTokens, emptyFinal: true }),
    );
  });
}

/** One request over generate_stream: its record (the stream's end ends it). */
async function httpRequest(url: string): Promise<GenerationRecord> {
  const body = JSON.stringify({ text_input: PROMPT, max_tokens: C.outputTokens, stream: true });
  const answer = await postStreamed(url, body);
  const record = newRecord(answer.sent_ms, C.inputTokens);
  const decoder = new GenerateStreamDecoder();
  for (const c of answer.chunks) recordGenerate(record, decoder.push(new Uint8Array(c.bytes)), c.at_ms);
  if (decoder.end().truncated) failRecord(record, 'stream ended inside an event', performance.now());
  return record;
}

/** One closed-loop level: `c` clients, each WARMUP then REQUESTS requests back to back. */
async function level(c: number): Promise<LevelMetrics> {
  const measured: GenerationRecord[] = [];
  const url = `http://127.0.0.1:${server.httpPort}/v2/models/${GPT2.name}/generate_stream`;
  let id = 0;
  await Promise.all(
    Array.from({ length: c }, async () => {
      const client = inferenceClient(`127.0.0.1:${server.grpcPort}`);
      const call = PROTOCOL === 'grpc' ? client.ModelStreamInfer() : undefined;
      for (let i = 0; i < WARMUP + REQUESTS; i++) {
        const record = call ? await grpcRequest(call, id++) : await httpRequest(url);
        if (i >= WARMUP) measured.push(record);
      }
      call?.end();
      client.close();
    }),
  );
  return levelMetrics(measured);
}

const f = (v: number | undefined, digits = 2) => (v === undefined ? '-' : v.toFixed(digits));
const vs = (measured: number | undefined, published: number) =>
  measured === undefined
    ? '-'
    : `${f(measured)} (${f(published)}, ${f((100 * (measured - published)) / published, 1)}%)`;

console.log(
  `# ${GPT2.name} simulated, ${C.inputTokens} in / ${C.outputTokens} out, ${PROTOCOL}, ${REQUESTS} requests per client after ${WARMUP}`,
);
console.log(`published: ${C.source}`);
console.log('');
console.log('| c | TTFT avg | ITL avg | latency avg | output tokens/s | requests/s | TTFT p99 | errors |');
console.log('|---|---|---|---|---|---|---|---|');
for (const c of LEVELS) {
  const m = await level(c);
  const row =
    c === C.concurrency
      ? [
          vs(m.ttft_ms?.avg, C.ttft_ms),
          vs(m.itl_ms?.avg, C.itl_ms),
          vs(m.latency_ms?.avg, C.latency_ms),
          vs(m.outputTokenThroughput, C.outputTokens_per_s),
          vs(m.requestThroughput, C.requests_per_s),
        ]
      : [
          f(m.ttft_ms?.avg),
          f(m.itl_ms?.avg),
          f(m.latency_ms?.avg),
          f(m.outputTokenThroughput),
          f(m.requestThroughput),
        ];
  console.log(`| ${c} | ${row.join(' | ')} | ${f(m.ttft_ms?.p99)} | ${m.errors} |`);
}
console.log('');
console.log('At c1 each cell: measured (published, difference).');
await server.stop();
