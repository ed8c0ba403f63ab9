/**
 * Issue 39 item 6: `merge` pools a generative run's TTFT and ITL exactly. Two `bench gpt2` runs (two runners'
 * `--out json` files) merged give, per level, the percentiles of the two runs' requests pooled, computed here
 * from their records.jsonl with k6's Trend rule (linear between closest ranks); request and token counts add up,
 * and the merged folder's records.jsonl holds both runs' requests. Under real k6 (when found), one runner's file
 * merged reproduces that run's own TTFT and ITL p50/p95/p99.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestMetrics } from '../../../lib/genai/metrics.ts';
import type { LevelResult, RunReport } from '../../../lib/summary/types.ts';
import { readRecords } from '../../../measure/core/genai-records.ts';
import { EXIT } from '../../../measure/core/exit-codes.ts';
import { findK6 } from '../agreement/harness.ts';
import { resultsDir, runCli, runFolder } from '../bench/run-cli.ts';

const k6 = findK6();
if (!k6.bin)
  console.log(`real-k6 case skipped: no k6 binary (looked for ${k6.looked.join(', ')}; set K6_BIN)`);

/** The budget the runs had, given to the merge as well (goodput's SLOs come from it). */
const BUDGET = { TTFT_P95_MS: '60000', ITL_P95_MS: '60000', P95_MS: '60000', P99_MS: '60000' };
const TOKENS = { INPUT_TOKENS: '20', OUTPUT_TOKENS: '12' };

const report = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { report: RunReport }).report;

/** k6's Trend percentile, written out here on purpose: linear between the closest ranks of the sorted values. */
function k6Percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (sorted.length - 1) * (p / 100);
  const lo = sorted[Math.floor(rank)]!;
  return lo + (sorted[Math.ceil(rank)]! - lo) * (rank - Math.floor(rank));
}

/** A c1,c2 gpt2 bench writing its samples to `points`; returns its run folder. */
async function bench(runtime: 'node' | 'k6', points: string): Promise<string> {
  const results = resultsDir();
  const run = await runCli(
    [
      ...['bench', 'gpt2', '--runtime', runtime, '--concurrency', '1,2', '--step-duration', '2s'],
      ...['--warmup', '1s', '--metrics-url', 'off', '--no-progress', '--results-dir', results],
      ...['--', '--out', `json=${points}`],
    ],
    { ...BUDGET, ...TOKENS, ...(runtime === 'k6' ? { K6_BIN: k6.bin! } : {}) },
  );
  expect(run.code, run.stderr + run.stdout).toBe(EXIT.OK);
  return runFolder(results, 'gpt2');
}

async function merge(files: string[]): Promise<{ dir: string; levels: LevelResult[] }> {
  const dir = join(resultsDir(), 'merged');
  const run = await runCli(['merge', '--model', 'gpt2', '--out-dir', dir, ...files], BUDGET);
  expect(run.code, run.stderr).toBe(EXIT.OK);
  return { dir, levels: report(dir).results };
}

describe('merge of generative runners', () => {
  it('pools TTFT and ITL value by value: the merged percentiles are the pooled requests’ own', async () => {
    const tmp = resultsDir();
    const files = [join(tmp, 'r0.json'), join(tmp, 'r1.json')];
    const runs = [await bench('node', files[0]!), await bench('node', files[1]!)];
    const merged = await merge(files);

    const records = (await Promise.all(runs.map((dir) => readRecords(join(dir, 'records.jsonl'))))).flat();
    expect((await readRecords(join(merged.dir, 'records.jsonl'))).length).toBe(records.length);
    const singles = runs.map((dir) => report(dir).results);
    expect(merged.levels.map((l) => l.name)).toEqual(['c1', 'c2']);
    for (const level of merged.levels) {
      const own = records.filter((r) => r.level === level.name).map((r) => requestMetrics(r));
      const ok = own.filter((m) => m.ok);
      const [a, b] = singles.map((levels) => levels.find((l) => l.name === level.name)!);
      expect(level.requests).toBe(a!.requests + b!.requests);
      expect(level.requests).toBe(ok.length);
      expect(level.genai!.output_tokens).toBe(a!.genai!.output_tokens + b!.genai!.output_tokens);
      for (const p of [50, 95, 99] as const) {
        const key = `p${p}` as const;
        const ttft = k6Percentile(
          ok.map((m) => m.ttft_ms!),
          p,
        );
        const itl = k6Percentile(
          ok.flatMap((m) => (m.itl_ms === undefined ? [] : [m.itl_ms])),
          p,
        );
        expect(level.genai!.ttft_ms[key], `${level.name} TTFT ${key}`).toBeCloseTo(ttft, 9);
        expect(level.genai!.itl_ms[key], `${level.name} ITL ${key}`).toBeCloseTo(itl, 9);
      }
      // Goodput is judged on the budget's SLOs, given to the merge as to the runs.
      expect(level.genai!.goodput?.slo.ttft_ms).toBe(60000);
      console.log(
        `${level.name}: ${a!.requests} + ${b!.requests} requests, TTFT p99 ${a!.genai!.ttft_ms.p99.toFixed(2)} / ${b!.genai!.ttft_ms.p99.toFixed(2)} ms → merged ${level.genai!.ttft_ms.p99.toFixed(2)} ms`,
      );
    }
  }, 180_000);

  it.skipIf(!k6.bin)(
    'reproduces one real-k6 runner’s TTFT and ITL percentiles from its file',
    async () => {
      const points = join(resultsDir(), 'k6.json');
      const single = report(await bench('k6', points)).results;
      const merged = await merge([points]);
      expect(merged.levels.map((l) => l.name)).toEqual(single.map((l) => l.name));
      for (const [i, level] of merged.levels.entries()) {
        const own = single[i]!.genai!;
        expect(level.requests).toBe(single[i]!.requests);
        for (const key of ['p50', 'p95', 'p99'] as const) {
          expect(level.genai!.ttft_ms[key], `${level.name} TTFT ${key}`).toBeCloseTo(own.ttft_ms[key], 6);
          expect(level.genai!.itl_ms[key], `${level.name} ITL ${key}`).toBeCloseTo(own.itl_ms[key], 6);
        }
      }
    },
    180_000,
  );
});
