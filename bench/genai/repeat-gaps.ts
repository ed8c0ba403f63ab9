/**
 * How closely the client sees real Triton's streaming timing: the decoupled repeat model sends response i
 * DELAY[i] ms after response i-1, so over gRPC ModelStreamInfer and HTTP generate_stream, one request at a
 * time, the measured TTFT should be DELAY[0] plus the round trip and each gap between responses DELAY[i].
 * Prints, per delay pattern and protocol, the measured TTFT, the gaps' deviation from the requested delays,
 * the same for the server's own send times (the repeat backend logs "sent response k of n" with microsecond
 * timestamps) and the client's gaps against the server's (what the client adds), the ITL against the requested
 * mean delay, and the two consistency checks of lib/genai/metrics.ts.
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
import { readDecoupledResponse } from '../../lib/genai/decoupled.ts';
import { GenerateStreamDecoder } from '../../lib/genai/generate-stream.ts';
import { type GenerationRecord, levelMetrics, requestMetrics } from '../../lib/genai/metrics.ts';
import { failRecord, newRecord, recordDecoupled, recordGenerate } from '../../lib/genai/record.ts';
import { percentileOfSorted } from '../../lib/genai/stats.ts';
import {
  postStreamed,
  REPEAT_MODEL,
  type RepeatRequest,
  removeRepeatRepository,
  repeatGenerateBody,
  streamClient,
  writeRepeatRepository,
} from '../../test/e2e/triton/repeat-stream.ts';
import { REAL_TRITON } from '../../test/e2e/triton/servers.ts';
import { startTritonserver } from '../../measure/core/tritonserver.ts';

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
  const record = newRecord(sent_ms.get(r.id)!, r.values.length);
  for (const m of messages) recordDecoupled(record, readDecoupledResponse(m.raw), m.at_ms);
  if (status) failRecord(record, status, performance.now());
  return record;
}

/** One request over HTTP generate_stream: each event timed by the body chunk that completed it. */
async function httpRecord(url: string, r: RepeatRequest): Promise<GenerationRecord> {
  const answer = await postStreamed(url, repeatGenerateBody(r));
  const decoder = new GenerateStreamDecoder();
  const record = newRecord(answer.sent_ms, r.values.length);
  for (const c of answer.chunks) recordGenerate(record, decoder.push(new Uint8Array(c.bytes)), c.at_ms);
  const last = answer.chunks[answer.chunks.length - 1]?.at_ms ?? answer.sent_ms;
  if (answer.status !== 200) failRecord(record, `HTTP ${answer.status}`, last);
  if (decoder.end().truncated) failRecord(record, 'stream cut inside an event', last);
  record.done_ms ??= last;
  return record;
}

const fmt = (v: number | undefined, digits = 2) =>
  v === undefined || Number.isNaN(v) ? '-' : v.toFixed(digits);
const median = (values: number[]) =>
  percentileOfSorted(
    values.slice().sort((a, b) => a - b),
    50,
  );

/** The repeat backend's log line after it sent a response: its time of day and k of n. */
const SENT_LINE = /^I\d{4} (\d\d):(\d\d):(\d\d\.\d+) .*"sent response (\d+) of (\d+)"/;

/** A response the server logged as sent: time of day (ms) and its 1-based position. */
interface ServerSend {
  at_ms: number;
  k: number;
}

/** Reads a "sent response k of n" log line. */
function serverSend(line: string): ServerSend | undefined {
  const m = SENT_LINE.exec(line);
  if (!m) return undefined;
  return { at_ms: ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000, k: Number(m[4]) };
}

/** Server sends grouped per request (one request at a time: a group starts at k = 1 or when k goes back). */
function perRequest(sends: ServerSend[]): Map<number, number>[] {
  const groups: Map<number, number>[] = [];
  let last = Number.POSITIVE_INFINITY;
  for (const s of sends) {
    if (s.k <= last) groups.push(new Map());
    groups[groups.length - 1]!.set(s.k, s.at_ms);
    last = s.k;
  }
  return groups;
}

/** One row: a pattern on one protocol, REQUESTS requests one after another; `server` its sends when logged. */
function row(
  protocol: string,
  delays: number[],
  records: GenerationRecord[],
  server?: Map<number, number>[],
): string {
  const level = levelMetrics(records);
  const deviations: number[] = [];
  const serverDeviations: number[] = [];
  const added: number[] = [];
  let worstConsistency = 0;
  for (const [r, rec] of records.entries()) {
    const m = requestMetrics(rec);
    if (!m.ok) continue;
    for (const [i, gap] of m.gaps_ms.entries()) {
      deviations.push(gap - delays[i + 1]!);
      const sent = server?.[r];
      const before = sent?.get(i + 1);
      const after = sent?.get(i + 2);
      if (before === undefined || after === undefined) continue;
      serverDeviations.push(after - before - delays[i + 1]!);
      added.push(gap - (after - before));
    }
    worstConsistency = Math.max(
      worstConsistency,
      Math.abs(m.latency_ms! - (m.ttft_ms! + (m.outputTokens - 1) * m.itl_ms!)),
    );
  }
  const sortedAbs = added.map(Math.abs).sort((a, b) => a - b);
  const requestedItl = delays.slice(1).reduce((s, d) => s + d, 0) / (delays.length - 1);
  const tokensRatio = level.outputTokenThroughput / (level.requestThroughput * delays.length);
  return [
    protocol.padEnd(5),
    `[${delays.join(',')}]`.padEnd(36),
    `${level.completed}/${level.requests}`.padStart(6),
    `${delays[0]}`.padStart(5),
    fmt(level.ttft_ms?.p50).padStart(7),
    fmt(median(deviations), 3).padStart(7),
    fmt(median(serverDeviations), 3).padStart(7),
    fmt(median(added), 3).padStart(8),
    fmt(percentileOfSorted(sortedAbs, 90), 3).padStart(8),
    fmt(requestedItl, 3).padStart(7),
    fmt(level.itl_ms?.p50, 3).padStart(7),
    fmt(worstConsistency, 6).padStart(9),
    fmt(tokensRatio, 4).padStart(7),
  ].join(' ');
}

async function main(): Promise<void> {
  if (!REAL_TRITON.path) {
    console.log(`repeat-gaps: ${REAL_TRITON.skipReason}`);
    return;
  }
  const repository = writeRepeatRepository();
  const sends: ServerSend[] = [];
  const triton = await startTritonserver({
    binary: REAL_TRITON.path,
    repository,
    log: (line) => {
      const send = serverSend(line);
      if (send) sends.push(send);
    },
  });
  const client = streamClient(triton.grpcUrl);
  const url = `${triton.url}/v2/models/${REPEAT_MODEL}/generate_stream`;
  try {
    console.log(
      `real Triton (${REAL_TRITON.path}), ${REQUESTS} requests per row, one at a time, ${WARMUP} warm-up`,
    );
    console.log(
      'proto delays (ms)                            ok/n  D[0] TTFT50 gap-D50 srv-D50 cli-srv50 |c-s|p90  reqITL ITL p50  |lat-fit| tok/s÷',
    );
    let n = 0;
    const rows: { protocol: string; delays_ms: number[]; records: GenerationRecord[] }[] = [];
    for (const delays of PATTERNS) {
      for (const protocol of ['grpc', 'http']) {
        const records: GenerationRecord[] = [];
        const firstSend = sends.length;
        for (let i = 0; i < WARMUP + REQUESTS; i++) {
          const r: RepeatRequest = { id: `r${n++}`, values: delays.map((_, k) => k), delays_ms: delays };
          const rec = protocol === 'grpc' ? await grpcRecord(client, r) : await httpRecord(url, r);
          if (i >= WARMUP) records.push(rec);
        }
        // The last "sent response" line may still be on its way through the server's stdout.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const groups = perRequest(sends.slice(firstSend));
        // Only when every request's sends were told apart; else the server columns print '-'.
        const server = groups.length === WARMUP + REQUESTS ? groups.slice(WARMUP) : undefined;
        console.log(row(protocol, delays, records, server));
        rows.push({ protocol, delays_ms: delays, records });
      }
    }
    if (args.records) writeFileSync(args.records, `${JSON.stringify(rows, null, 1)}\n`);
    console.log(
      "gap-D: measured gap minus requested delay, ms; srv-D: the same for the server's logged send times;" +
        " cli-srv: the client's gap minus the server's (what the client adds), |c-s|p90 its 90th percentile;" +
        ' |lat-fit|: worst |latency - (TTFT + (OSL-1) x ITL)|;' +
        ' tok/s÷: output tokens/s ÷ (requests/s x OSL), 1 when consistent (requests back to back, c1).',
    );
  } finally {
    client.close();
    await triton.stop();
    removeRepeatRepository(repository);
  }
}

await main();
