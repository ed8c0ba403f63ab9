/**
 * Cache-honest conversations, end to end against an embedded server started here (so its prefix cache's
 * /metrics can be read around each run): `bench gpt2` with three-turn synthetic sessions over two levels. Salted
 * (the default), each turn finds its session's history cached (turn 2 its first 32 tokens, turn 3 its first 80:
 * whole 16-token blocks of the turn before) and nothing else: no other session, level or run shares a block,
 * so the hits are at least the scored turns' and at most what a session's own history gives. Unsalted
 * (--prompt-salt off) the four repeated sessions find whole prompts cached across sessions and levels. Every
 * record in records.jsonl carries its turn, and re-scoring them gives the summary's counts. gRPC under the Node
 * runtime and, when present, real k6. Counts only, no timing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import { rescoreLevels } from '../../../lib/genai/rescore.ts';
import type { LevelResult } from '../../../lib/summary/types.ts';
import { readRecords } from '../../../measure/core/genai-records.ts';
import { EXIT } from '../../../measure/core/exit-codes.ts';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { resultsDir, runCli, runFolder } from './run-cli.ts';
import { prefixCacheDuring } from './scrape.ts';

const k6 = referenceTool('k6', 'K6_BIN');

/** Turn k's prompt: k 40-token messages and k - 1 8-token answers (gpt2's tokenizer and the server agree). */
const ISL = [40, 88, 136];
/** Whole 16-token blocks of the turn before, which a turn finds cached within its session: 0, 32, 80. */
const OWN_HITS = [0, 32, 80];
/** The most of a session's prompt tokens its own history serves: after all three turns, 112 of 264. */
const MOST_OWN = (32 + 80) / (40 + 88 + 136);

describe('bench gpt2 conversations: salted sessions and the prefix cache', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startCatalogServer({ httpPort: 0, grpcPort: 0, metricsPort: 0 });
  });

  afterAll(async () => {
    await server?.stop();
  });

  /** One bench of four three-turn sessions at c1 and c2; its levels, checked, and its records. */
  async function sessions(runtime: 'node' | 'k6', args: string[]) {
    const results = resultsDir();
    const run = await runCli(
      [
        ...['bench', 'gpt2', '--runtime', runtime, '--concurrency', '1,2'],
        ...['--step-duration', '2s', '--warmup', '1s', '--results-dir', results, '--metrics-url', 'off'],
        ...['--url', `http://127.0.0.1:${server.httpPort}`, '--grpc-url', `127.0.0.1:${server.grpcPort}`],
        ...['--conversation-num', '4', '--conversation-turn-mean', '3', ...args],
      ],
      {
        INPUT_TOKENS: '40',
        OUTPUT_TOKENS: '8',
        TTFT_P95_MS: '60000',
        ITL_P95_MS: '60000',
        ...(runtime === 'k6' ? { K6_BIN: k6.path! } : {}),
      },
    );
    expect(run.code, run.stderr + run.stdout).toBe(EXIT.OK);
    const dir = runFolder(results, 'gpt2');
    const levels = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).report
      .results as LevelResult[];
    expect(levels.map((l) => l.name)).toEqual(['c1', 'c2']);
    for (const level of levels) {
      expect(level.errors, level.name).toBe(0);
      expect(level.genai!.conversation!.turns.map((t) => t.isl_avg)).toEqual(ISL);
    }
    return { levels, records: await readRecords(join(dir, 'records.jsonl')) };
  }

  /** The hits the scored turns found in their own session's history. */
  const ownHits = (levels: readonly LevelResult[]) =>
    levels.reduce(
      (sum, l) =>
        sum + l.genai!.conversation!.turns.reduce((s, t) => s + t.requests * OWN_HITS[t.turn - 1]!, 0),
      0,
    );

  for (const runtime of ['node', 'k6'] as const) {
    it.skipIf(runtime === 'k6' && !k6.path)(
      `${runtime}: salted sessions hit within a session only; unsalted ones across (${runtime === 'k6' ? (k6.path ?? k6.skipReason) : 'Node runtime'})`,
      async () => {
        for (const pass of ['first run', 'second run']) {
          let run: Awaited<ReturnType<typeof sessions>> | undefined;
          const salted = await prefixCacheDuring(server.metricsPort, async () => {
            run = await sessions(runtime, []);
          });
          const { levels, records } = run!;
          // Every scored turn 2 and 3 found its session's history; a warm-up turn or one its level's end
          // cut finds none or its own, so more than the scored turns' own hits is never more than that ratio.
          expect(salted.hits, pass).toBeGreaterThan(0);
          expect(salted.hits, pass).toBeGreaterThanOrEqual(ownHits(levels));
          expect(salted.hits / salted.queries, pass).toBeLessThanOrEqual(MOST_OWN);
          // records.jsonl: every session turn carries its index, as many per level and turn as the summary's.
          for (const level of levels) {
            const mine = records.filter((r) => r.level === level.name);
            for (const t of level.genai!.conversation!.turns)
              expect(mine.filter((r) => r.turn === t.turn).length, `${level.name} turn ${t.turn}`).toBe(
                t.requests,
              );
            // Only a warm-up straggler (one per VU at most) has no turn.
            expect(mine.filter((r) => r.turn === undefined).length).toBeLessThanOrEqual(level.level);
          }
          expect(rescoreLevels(records).map((l) => [l.level, l.metrics.requests])).toEqual(
            levels.map((l) => [l.name, l.requests]),
          );
        }
        const off = await prefixCacheDuring(server.metricsPort, () =>
          sessions(runtime, ['--prompt-salt', 'off']),
        );
        // The same four sessions over and over: turns find 32 of 40, 80 of 88, 128 of 136 tokens cached once
        // seen, far past what a session's own history could give.
        expect(off.hits / off.queries).toBeGreaterThan(0.8);
      },
      240_000,
    );
  }
});
