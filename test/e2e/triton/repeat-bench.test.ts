/**
 * `bench repeat --url --grpc-url`: the generative scenario (scenarios/llm.ts) driving Triton's decoupled
 * `repeat` model, whose requests say when each response comes (FIRST_DELAY_MS before the first, TOKEN_DELAY_MS
 * before each other), against real Triton 2.60.0 and the embedded server on the same repository, under the
 * Node runtime and real k6, at concurrency 1. Checked on each run's summary, what arrives and bounds a loaded
 * machine cannot break: every request got its OSL responses and no errors; no TTFT is under the first delay and
 * no latency under the whole stream's delays (a server never sends early; load only adds); consistency holds
 * at c1: latency = TTFT + (OSL - 1) x ITL; output tokens/s = requests/s x OSL. How close the client's TTFT and
 * gaps come to the server's (the least TTFT against the delay plus the least round trip, the mean gap against
 * real Triton's logged sends) is a timing figure a loaded machine moves by milliseconds: bench/genai/repeat-gaps.ts
 * measures it, with sittings in bench/genai/RESULTS.md.
 * Skips what is absent, naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LevelResult } from '../../../lib/summary/types.ts';
import { startTritonserver } from '../../../measure/core/tritonserver.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { runRepeatBench } from './repeat-bench-run.ts';
import { removeRepeatRepository, writeRepeatRepository } from './repeat-stream.ts';
import { REAL_TRITON, startEmbeddedTarget, type Target } from './servers.ts';

const k6 = referenceTool('k6', 'K6_BIN');
const OSL = 10;
const FIRST_DELAY_MS = 20;
const TOKEN_DELAY_MS = 5;
/** k6's clock reads whole milliseconds: a 20 ms delay can read as 19. */
const CLOCK_MS = 1;

async function benchRepeat(
  target: Target,
  runtime: 'node' | 'k6',
  env: Record<string, string> = {},
): Promise<LevelResult[]> {
  const args = [
    ...['--runtime', runtime, '--concurrency', '1', '--step-duration', '2s', '--warmup', '1s'],
    ...['--url', target.url, '--grpc-url', target.grpcUrl, '--metrics-url', 'off'],
  ];
  const ask = { osl: OSL, firstDelay_ms: FIRST_DELAY_MS, tokenDelay_ms: TOKEN_DELAY_MS };
  return (await runRepeatBench(args, ask, env)).levels;
}

function checkLevels(levels: LevelResult[]): void {
  expect(levels.map((l) => l.level)).toEqual([1]);
  const level = levels[0]!;
  const g = level.genai!;
  const at = `${level.name}: ${JSON.stringify(g)}`;
  expect(level.requests, at).toBeGreaterThan(0);
  expect(level.errors, at).toBe(0);
  // Every request got exactly the responses it asked for.
  expect(g.output_tokens, at).toBe(level.requests * OSL);
  // Consistency at c1: tokens/s = requests/s x OSL; latency = TTFT + (OSL - 1) x ITL (averages, one OSL).
  expect(g.output_tokens_per_s).toBeCloseTo(g.requests_per_s * OSL, 9);
  expect(g.latency_ms.avg).toBeCloseTo(g.ttft_ms.avg + (OSL - 1) * g.itl_ms.avg, 6);
  // Load only delays: no TTFT under the first delay, no latency under the whole stream's delays.
  expect(g.ttft_ms.min, at).toBeGreaterThanOrEqual(FIRST_DELAY_MS - CLOCK_MS);
  expect(g.latency_ms.min, at).toBeGreaterThanOrEqual(FIRST_DELAY_MS + (OSL - 1) * TOKEN_DELAY_MS - CLOCK_MS);
}

/** One server's cases: the repository's repeat model under both runtimes. */
function onServer(start: (repository: string) => Promise<Target>): void {
  let repository: string;
  let target: Target;
  beforeAll(async () => {
    repository = writeRepeatRepository();
    target = await start(repository);
  }, 120_000);
  afterAll(async () => {
    await target?.stop();
    if (repository) removeRepeatRepository(repository);
  });

  it('Node runtime: every response arrives, none early, consistency holds', async () => {
    checkLevels(await benchRepeat(target, 'node'));
  }, 180_000);

  it.skipIf(!k6.path)(
    `real k6: the same ${k6.skipReason}`,
    async () => {
      checkLevels(await benchRepeat(target, 'k6', { K6_BIN: k6.path! }));
    },
    180_000,
  );
}

/** Real Triton on the repository. */
async function realTriton(repository: string): Promise<Target> {
  const real = await startTritonserver({ binary: REAL_TRITON.path!, repository });
  return {
    kind: 'triton',
    url: real.url,
    grpcUrl: real.grpcUrl,
    metricsUrl: real.metricsUrl,
    stop: real.stop,
  };
}

describe('bench repeat: the generative scenario on the repeat backend', () => {
  describe.skipIf(!REAL_TRITON.path)(`real Triton ${REAL_TRITON.skipReason}`, () => {
    onServer(realTriton);
  });
  describe('embedded server', () => {
    onServer(startEmbeddedTarget);
  });
});
