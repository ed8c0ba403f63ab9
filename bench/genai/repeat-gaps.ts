/**
 * How closely the client sees real Triton's streaming timing: the decoupled repeat model sends response i
 * DELAY[i] ms after response i-1, so over gRPC ModelStreamInfer and HTTP generate_stream, one request at a
 * time, the measured TTFT should be DELAY[0] plus the round trip and each gap between responses DELAY[i].
 * Prints, per delay pattern and protocol, the measured TTFT, the gaps' deviation from the requested delays,
 * the ITL against the requested mean delay, and the two consistency checks of lib/genai/metrics.ts.
 * Figures, not assertions (the tests assert order and counts only); on a shared machine they move.
 *
 *   node --import tsx bench/genai/repeat-gaps.ts [--requests 20] [--warmup 3] [--records records.json]
 *
 * --records writes every measured request's raw record (lib/genai/metrics.ts GenerationRecord), by row, so the
 * figures can be re-scored offline (test/genai/fixtures/repeat-records.json is a short one).
 *
 * tritonserver: TRITONSERVER, else ../shared/tools/bin/tritonserver; without it the bench says so and stops.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { GenerateStreamDecoder } from '../../lib/genai/generate-stream.ts';
import { type GenerationRecord, levelMetrics, requestMetrics } from '../../lib/genai/metrics.ts';
import { percentileOfSorted } from '../../lib/genai/stats.ts';
import {
  postStreamed,
  REPEAT_MODEL,
  type RepeatRequest,
  removeRepeatRepository,
  repeatGenerateBody,
  streamClient,
  writeRepeatRepository,
} from '../../test/triton/repeat-stream.ts';
import { REAL_TRITON, startRealTarget } from '../../test/triton/servers.ts';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    records: { type: 'string' },
  },
});
const REQUESTS = Number(args.requests);
const WARMUP = Number(args.warmup);

/** Delay patterns (ms before each response): even, uneven, and tight. */
const PATTERNS: number[][] = [
  [20, 10, 10, 10, 10, 10, 10, 10],
  [5, 30, 2, 15, 1, 40, 8, 3],
  [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
];

type Client = ReturnType<typeof streamClient>;

/** One request over gRPC: its record (the empty final response marks the end and is no token). */
async function grpcRecord(client: Client, r: RepeatRequest): Promise<GenerationRecord> {
  const expected = r.values.length + 1;
  const { sent_ms, messages, status } = await client.run(
    [{ ...r, emptyFinal: true }],
    (m) => m.length >= expected,
  );
  const error = status ?? messages.find((m) => m.error)?.error;
  return {
    sent_ms: sent_ms.get(r.id)!,
    inputTokens: r.values.length,
    chunks: messages.map((m) => ({ at_ms: m.at_ms, tokens: m.outputCount > 0 ? 1 : 0 })),
    ...(error ? { error } : {}),
  };
}

/** One request over HTTP generate_stream: each event timed by the body chunk that completed it. */
async function httpRecord(url: string, r: RepeatRequest): Promise<GenerationRecord> {
  const answer = await postStreamed(url, repeatGenerateBody(r));
  const decoder = new GenerateStreamDecoder();
  const chunks: GenerationRecord['chunks'] = [];
  let error = answer.status === 200 ? undefined : `HTTP ${answer.status}`;
  for (const c of answer.chunks) {
    for (const event of decoder.push(new Uint8Array(c.bytes))) {
      if (event.kind === 'response') chunks.push({ at_ms: c.at_ms, tokens: 1 });
      else error = event.kind === 'error' ? event.message : event.reason;
    }
  }
  return { sent_ms: answer.sent_ms, inputTokens: r.values.length, chunks, ...(error ? { error } : {}) };
}

const fmt = (v: number | undefined, digits = 2) =>
  v === undefined || Number.isNaN(v) ? '-' : v.toFixed(digits);
const median = (values: number[]) =>
  percentileOfSorted(
    values.slice().sort((a, b) => a - b),
    50,
  );

/** One row: a pattern on one protocol, REQUESTS requests one after another. */
function row(protocol: string, delays: number[], records: GenerationRecord[]): string {
  const level = levelMetrics(records);
  const deviations: number[] = [];
  let worstConsistency = 0;
  for (const rec of records) {
    const m = requestMetrics(rec);
    if (!m.ok) continue;
    for (const [i, gap] of m.gaps_ms.entries()) deviations.push(gap - delays[i + 1]!);
    worstConsistency = Math.max(
      worstConsistency,
      Math.abs(m.latency_ms! - (m.ttft_ms! + (m.outputTokens - 1) * m.itl_ms!)),
    );
  }
  const absDev = deviations.map(Math.abs);
  const requestedItl = delays.slice(1).reduce((s, d) => s + d, 0) / (delays.length - 1);
  const tokensRatio = level.outputTokenThroughput / (level.requestThroughput * delays.length);
  return [
    protocol.padEnd(5),
    `[${delays.join(',')}]`.padEnd(36),
    `${level.completed}/${level.requests}`.padStart(6),
    `${delays[0]}`.padStart(6),
    fmt(level.ttft_ms?.p50).padStart(8),
    fmt(level.ttft_ms?.max).padStart(8),
    fmt(median(deviations), 3).padStart(9),
    fmt(Math.max(...absDev), 3).padStart(9),
    fmt(requestedItl, 3).padStart(8),
    fmt(level.itl_ms?.p50, 3).padStart(8),
    fmt(worstConsistency, 6).padStart(10),
    fmt(tokensRatio, 4).padStart(8),
  ].join(' ');
}

async function main(): Promise<void> {
  if (!REAL_TRITON.path) {
    console.log(`repeat-gaps: ${REAL_TRITON.skipReason}`);
    return;
  }
  const repository = writeRepeatRepository();
  const triton = await startRealTarget(repository);
  const client = streamClient(triton.grpcUrl);
  const url = `${triton.url}/v2/models/${REPEAT_MODEL}/generate_stream`;
  try {
    console.log(
      `real Triton (${REAL_TRITON.path}), ${REQUESTS} requests per row, one at a time, ${WARMUP} warm-up`,
    );
    console.log(
      'proto delays (ms)                            ok/n  D[0]  TTFT50  TTFTmax gap-D p50 |gap-D|max reqITL  ITL p50  |lat-fit|  tok/s÷',
    );
    let n = 0;
    const rows: { protocol: string; delays_ms: number[]; records: GenerationRecord[] }[] = [];
    for (const delays of PATTERNS) {
      for (const protocol of ['grpc', 'http']) {
        const records: GenerationRecord[] = [];
        for (let i = 0; i < WARMUP + REQUESTS; i++) {
          const r: RepeatRequest = { id: `r${n++}`, values: delays.map((_, k) => k), delays_ms: delays };
          const rec = protocol === 'grpc' ? await grpcRecord(client, r) : await httpRecord(url, r);
          if (i >= WARMUP) records.push(rec);
        }
        console.log(row(protocol, delays, records));
        rows.push({ protocol, delays_ms: delays, records });
      }
    }
    if (args.records) writeFileSync(args.records, `${JSON.stringify(rows, null, 1)}\n`);
    console.log(
      'gap-D: measured gap minus requested delay, ms; |lat-fit|: worst |latency - (TTFT + (OSL-1) x ITL)|;' +
        ' tok/s÷: output tokens/s ÷ (requests/s x OSL), 1 when consistent (requests back to back, c1).',
    );
  } finally {
    client.close();
    await triton.stop();
    removeRepeatRepository(repository);
  }
}

await main();
