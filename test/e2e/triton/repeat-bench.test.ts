/**
 * `bench repeat --url --grpc-url`: the generative scenario (scenarios/llm.ts) driving Triton's decoupled
 * `repeat` model, whose requests say when each response comes (FIRST_DELAY_MS before the first, TOKEN_DELAY_MS
 * before each other), against real Triton 2.60.0 and the embedded server on the same repository, under the
 * Node runtime and real k6. Checked on each run's summary (a bound on the measurement's correctness: the
 * client's clock against delays the server waits, not a speed): the median gap between responses is the
 * requested delay within a millisecond; the run's least TTFT is the requested delay plus the least stream round trip
 * (DELAY [0] requests', probed on the same server just before) within a millisecond, and never under the
 * delay (the least, not the median: the median also carries the shared machine's scheduling delays, which a
 * wrong send or arrival time would not hide from the least); and the consistency checks hold (latency = TTFT + (OSL - 1) x ITL; output tokens/s = requests/s x
 * OSL). Skips what is absent, naming it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LevelResult } from '../../../lib/summary/types.ts';
import { resultsDir, runCli, runFolder } from '../bench/run-cli.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { removeRepeatRepository, streamClient, writeRepeatRepository } from './repeat-stream.ts';
import { REAL_TRITON, startEmbeddedTarget, startRealTarget, type Target } from './servers.ts';

const k6 = referenceTool('k6', 'K6_BIN');
const OSL = 10;
const FIRST_DELAY_MS = 20;
const TOKEN_DELAY_MS = 5;
/** The measurement's bound: a requested delay and what the client measured for it. */
const WITHIN_MS = 1;

/** The least round trip of a request answered at once (DELAY [0]), each on its own stream, ms. */
async function streamRoundTrip(target: Target): Promise<number> {
  const client = streamClient(target.grpcUrl);
  const trips: number[] = [];
  try {
    for (let i = 0; i < 33; i++) {
      const id = `rtt${i}`;
      const { sent_ms, messages } = await client.run(
        [{ id, values: [0], delays_ms: [0], emptyFinal: true }],
        (m) => m.some((x) => x.final),
      );
      if (i >= 3) trips.push(messages[0]!.at_ms - sent_ms.get(id)!);
    }
  } finally {
    client.close();
  }
  return Math.min(...trips);
}

async function benchRepeat(
  target: Target,
  runtime: 'node' | 'k6',
  env: Record<string, string> = {},
): Promise<LevelResult[]> {
  const results = resultsDir();
  const run = await runCli(
    [
      ...['bench', 'repeat', '--runtime', runtime, '--concurrency', '1,2'],
      ...['--url', target.url, '--grpc-url', target.grpcUrl, '--metrics-url', 'off'],
      ...['--step-duration', '3s', '--warmup', '1s', '--results-dir', results, '--no-progress'],
    ],
    {
      OUTPUT_TOKENS: String(OSL),
      FIRST_DELAY_MS: String(FIRST_DELAY_MS),
      TOKEN_DELAY_MS: String(TOKEN_DELAY_MS),
      ...env,
    },
  );
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  const summary = JSON.parse(readFileSync(join(runFolder(results, 'repeat'), 'summary.json'), 'utf8'));
  return summary.report.results as LevelResult[];
}

function checkLevels(levels: LevelResult[], roundTrip_ms: number): void {
  expect(levels.map((l) => l.level)).toEqual([1, 2]);
  for (const level of levels) {
    const g = level.genai!;
    const at = `${level.name} (stream round trip ${roundTrip_ms.toFixed(3)} ms): ${JSON.stringify(g)}`;
    expect(level.requests, at).toBeGreaterThan(0);
    expect(level.errors, at).toBe(0);
    // Every request got exactly the responses it asked for.
    expect(g.output_tokens, at).toBe(level.requests * OSL);
    // Consistency: tokens/s = requests/s x OSL; latency = TTFT + (OSL - 1) x ITL (for the averages, one OSL).
    expect(g.output_tokens_per_s).toBeCloseTo(g.requests_per_s * OSL, 9);
    expect(g.latency_ms.avg).toBeCloseTo(g.ttft_ms.avg + (OSL - 1) * g.itl_ms.avg, 6);
    // The timing the requests asked for, as the client measured it.
    // (k6's clock reads whole milliseconds: a 20 ms wait can read as 19.)
    expect(g.ttft_ms.min, at).toBeGreaterThanOrEqual(FIRST_DELAY_MS - WITHIN_MS);
    expect(Math.abs(g.chunk_gap_ms.p50 - TOKEN_DELAY_MS), at).toBeLessThanOrEqual(WITHIN_MS);
    console.log(
      `${level.name}: TTFT min ${g.ttft_ms.min.toFixed(3)}, p50 ${g.ttft_ms.p50.toFixed(3)} ms (asked ${FIRST_DELAY_MS}, least round trip ${roundTrip_ms.toFixed(3)}), ` +
        `gap p50 ${g.chunk_gap_ms.p50.toFixed(3)} ms, ITL avg ${g.itl_ms.avg.toFixed(3)} ms (asked ${TOKEN_DELAY_MS})`,
    );
  }
  // The least TTFT of the run (both levels' requests): the requested delay plus the least round trip.
  const least = Math.min(...levels.map((l) => l.genai!.ttft_ms.min));
  expect(least - (FIRST_DELAY_MS + roundTrip_ms), `least TTFT ${least} ms`).toBeLessThanOrEqual(WITHIN_MS);
}

/** One server's cases: the repository's repeat model under both runtimes. */
function onServer(start: (repository: string) => Promise<Target>): void {
  let repository: string;
  let target: Target;
  let roundTrip_ms: number;
  beforeAll(async () => {
    repository = writeRepeatRepository();
    target = await start(repository);
    roundTrip_ms = await streamRoundTrip(target);
  }, 120_000);
  afterAll(async () => {
    await target?.stop();
    if (repository) removeRepeatRepository(repository);
  });

  it('Node runtime: TTFT and gaps as requested, consistency holds', async () => {
    checkLevels(await benchRepeat(target, 'node'), roundTrip_ms);
  }, 180_000);

  it.skipIf(!k6.path)(
    `real k6: the same ${k6.skipReason}`,
    async () => {
      checkLevels(await benchRepeat(target, 'k6', { K6_BIN: k6.path! }), roundTrip_ms);
    },
    180_000,
  );
}

describe('bench repeat: the generative scenario on the repeat backend', () => {
  describe.skipIf(!REAL_TRITON.path)(`real Triton ${REAL_TRITON.skipReason}`, () => {
    onServer(startRealTarget);
  });
  describe('embedded server', () => {
    onServer(startEmbeddedTarget);
  });
});
