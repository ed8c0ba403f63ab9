/**
 * `bench repeat`: the generative scenario (scenarios/llm.ts) driving Triton's decoupled `repeat` model, whose
 * requests say when each response comes (FIRST_DELAY_MS before the first, TOKEN_DELAY_MS before each other),
 * against real Triton 2.60.0 (TRITONSERVER, started by the bench on its exported config) and the embedded
 * server's repeat backend, under the Node runtime and real k6. Checked on each run's summary: TTFT and the
 * gaps between responses match the requested delays within a millisecond (a bound on the measurement's
 * correctness: the client's clock against delays the server sleeps), and the consistency checks hold (latency
 * = TTFT + (OSL - 1) x ITL; output tokens/s = requests/s x OSL). Skips what is absent, naming it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LevelResult } from '../../../lib/summary/types.ts';
import { resultsDir, runCli, runFolder } from '../bench/run-cli.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { REAL_TRITON } from './servers.ts';

const k6 = referenceTool('k6', 'K6_BIN');
const OSL = 10;
const FIRST_DELAY_MS = 20;
const TOKEN_DELAY_MS = 5;
/** The measurement's bound: a requested delay and what the client measured for it. */
const WITHIN_MS = 1;

async function benchRepeat(runtime: 'node' | 'k6', env: Record<string, string>): Promise<LevelResult[]> {
  const results = resultsDir();
  const run = await runCli(
    [
      ...['bench', 'repeat', '--runtime', runtime, '--concurrency', '1,2'],
      ...['--step-duration', '3s', '--warmup', '1s', '--results-dir', results, '--no-progress'],
    ],
    {
      OUTPUT_TOKENS: String(OSL),
      FIRST_DELAY_MS: String(FIRST_DELAY_MS),
      TOKEN_DELAY_MS: String(TOKEN_DELAY_MS),
      TRITONSERVER: '',
      ...env,
    },
  );
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  const summary = JSON.parse(readFileSync(join(runFolder(results, 'repeat'), 'summary.json'), 'utf8'));
  return summary.report.results as LevelResult[];
}

function checkLevels(levels: LevelResult[]): void {
  expect(levels.map((l) => l.level)).toEqual([1, 2]);
  for (const level of levels) {
    const g = level.genai!;
    const at = `${level.name}: ${JSON.stringify(g)}`;
    expect(level.requests, at).toBeGreaterThan(0);
    expect(level.errors, at).toBe(0);
    // Every request got exactly the responses it asked for.
    expect(g.output_tokens, at).toBe(level.requests * OSL);
    // Consistency: tokens/s = requests/s x OSL; latency = TTFT + (OSL - 1) x ITL (for the averages, one OSL).
    expect(g.output_tokens_per_s).toBeCloseTo(g.requests_per_s * OSL, 9);
    expect(g.latency_ms.avg).toBeCloseTo(g.ttft_ms.avg + (OSL - 1) * g.itl_ms.avg, 6);
    // The timing the requests asked for, as the client measured it.
    expect(Math.abs(g.ttft_ms.p50 - FIRST_DELAY_MS), at).toBeLessThanOrEqual(WITHIN_MS);
    expect(Math.abs(g.chunk_gap_ms.p50 - TOKEN_DELAY_MS), at).toBeLessThanOrEqual(WITHIN_MS);
    expect(Math.abs(g.itl_ms.avg - TOKEN_DELAY_MS), at).toBeLessThanOrEqual(WITHIN_MS);
  }
}

describe('bench repeat: the generative scenario on the repeat backend', () => {
  describe.skipIf(!REAL_TRITON.path)(`real Triton ${REAL_TRITON.skipReason}`, () => {
    it('Node runtime: TTFT and gaps as requested, consistency holds', async () => {
      checkLevels(await benchRepeat('node', { TRITONSERVER: REAL_TRITON.path! }));
    }, 180_000);

    it.skipIf(!k6.path)(`real k6: the same ${k6.skipReason}`, async () => {
      checkLevels(await benchRepeat('k6', { TRITONSERVER: REAL_TRITON.path!, K6_BIN: k6.path! }));
    }, 180_000);
  });

  describe('embedded server', () => {
    it('Node runtime: TTFT and gaps as requested, consistency holds', async () => {
      checkLevels(await benchRepeat('node', {}));
    }, 180_000);

    it.skipIf(!k6.path)(`real k6: the same ${k6.skipReason}`, async () => {
      checkLevels(await benchRepeat('k6', { K6_BIN: k6.path! }));
    }, 180_000);
  });
});
