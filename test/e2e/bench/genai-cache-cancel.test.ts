/**
 * Cache-honest generative load and cancellation, end to end against an embedded server started here (so its
 * /metrics can be read around each run): `bench gpt2` over two levels with PROMPT_SALT=off finds most prompt
 * tokens in the simulated model's prefix cache, the default salted run finds none; a run with
 * --request-cancellation-rate cancels that share on the wire (the server counts CANCELED failures) and leaves
 * the cancelled requests out of every latency and token figure. gRPC under the Node runtime and, when present,
 * real k6; OpenAI SSE under the Node runtime (real k6 lacks k6/x/sse). Counts only, no timing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LevelResult } from '../../../lib/summary/types.ts';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import type { RunningServer } from '@k6-triton/server';
import { referenceTool } from '../tools/reference-tools.ts';
import { resultsDir, runCli, runFolder } from './run-cli.ts';
import { prefixCacheDuring, scrape } from './scrape.ts';
import { EXIT } from '../../../measure/core/exit-codes.ts';

const k6 = referenceTool('k6', 'K6_BIN');

describe('bench gpt2: salted prompts, the prefix cache and cancellation', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startCatalogServer({ httpPort: 0, grpcPort: 0, metricsPort: 0 });
  });

  afterAll(async () => {
    await server?.stop();
  });

  async function bench(runtime: 'node' | 'k6', args: string[], env: Record<string, string>) {
    const results = resultsDir();
    const run = await runCli(
      [
        ...['bench', 'gpt2', '--runtime', runtime, '--concurrency', '1,2'],
        ...['--step-duration', '2s', '--warmup', '1s', '--results-dir', results, '--metrics-url', 'off'],
        ...['--url', `http://127.0.0.1:${server.httpPort}`, '--grpc-url', `127.0.0.1:${server.grpcPort}`],
        ...args,
      ],
      {
        TTFT_P95_MS: '60000',
        ITL_P95_MS: '60000',
        ...(runtime === 'k6' ? { K6_BIN: k6.path! } : {}),
        ...env,
      },
    );
    expect(run.code, run.stderr + run.stdout).toBe(EXIT.OK);
    const summary = JSON.parse(readFileSync(join(runFolder(results, 'gpt2'), 'summary.json'), 'utf8'));
    const levels = summary.report.results as LevelResult[];
    expect(levels.map((l) => l.name)).toEqual(['c1', 'c2']);
    return { levels, stdout: run.stdout };
  }

  const cacheDuring = (run: () => Promise<unknown>) => prefixCacheDuring(server.metricsPort, run);

  const cacheEnv = { INPUT_TOKENS: '64', OUTPUT_TOKENS: '4', PROMPT_COUNT: '8' };

  for (const runtime of ['node', 'k6'] as const) {
    it.skipIf(runtime === 'k6' && !k6.path)(
      `${runtime}: unsalted levels hit the prefix cache; the default salt never does (${runtime === 'k6' ? (k6.path ?? k6.skipReason) : 'Node runtime'})`,
      async () => {
        const off = await cacheDuring(() => bench(runtime, ['--prompt-salt', 'off'], cacheEnv));
        expect(off.queries).toBeGreaterThan(0);
        // 8 prompts sent over and over: all but the first sends of each find 63 of their 64 tokens cached.
        expect(off.hits / off.queries).toBeGreaterThan(0.8);
        const salted = await cacheDuring(() => bench(runtime, [], cacheEnv));
        expect(salted.queries).toBeGreaterThan(0);
        // The salt leads every prompt and differs per send: no block of any prompt was seen before.
        expect(salted.hits).toBe(0);
      },
      180_000,
    );
  }

  /** Checks a cancelling run: the share cancelled, none of it in the figures, all of it seen at the server. */
  async function checkCancelled(run: () => Promise<{ levels: LevelResult[]; stdout: string }>) {
    const canceledAt = () =>
      scrape(server.metricsPort, 'nv_inference_request_failure', 'model="gpt2"', 'reason="CANCELED"');
    const before = await canceledAt();
    const { levels, stdout } = await run();
    const atServer = (await canceledAt()) - before;
    let cancelled = 0;
    for (const level of levels) {
      const g = level.genai!;
      expect(level.errors, level.name).toBe(0);
      expect(level.requests, level.name).toBeGreaterThan(0);
      // Half of each VU's sends, alternately: as many cancelled as completed, give or take one per VU and
      // the sends cut at the window's edges.
      expect(Math.abs(g.cancelled_requests! - level.requests), level.name).toBeLessThanOrEqual(
        level.level + 2,
      );
      // Completed requests only: every one got all its tokens.
      expect(g.output_tokens).toBe(level.requests * 30);
      expect(g.osl_mismatches).toBe(0);
      expect(g.genai_perf!.osl.min).toBe(30);
      cancelled += g.cancelled_requests!;
      expect(stdout).toContain(`${level.name}: ${g.cancelled_requests} requests cancelled on purpose`);
    }
    // The server saw each cancel (the warm-up's too, which no level counts).
    expect(atServer).toBeGreaterThanOrEqual(cancelled);
  }

  const cancelArgs = ['--request-cancellation-rate', '50', '--request-cancellation-delay', '0.02'];
  // 30 tokens take about 55 ms on gpt2's timing: a cancel at 20 ms falls inside every stream.
  const cancelEnv = { INPUT_TOKENS: '20', OUTPUT_TOKENS: '30' };

  for (const runtime of ['node', 'k6'] as const) {
    it.skipIf(runtime === 'k6' && !k6.path)(
      `${runtime}: gRPC streams cancelled at the delay, counted apart, seen by the server (${runtime === 'k6' ? (k6.path ?? k6.skipReason) : 'Node runtime'})`,
      () => checkCancelled(() => bench(runtime, cancelArgs, cancelEnv)),
      120_000,
    );
  }

  it(
    'node: OpenAI chat SSE requests aborted at the delay, the same way',
    () => checkCancelled(() => bench('node', [...cancelArgs, '--protocol', 'openai-chat'], cancelEnv)),
    120_000,
  );
});
