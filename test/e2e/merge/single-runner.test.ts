/**
 * Issue 35 item 6: `merge` exact. A bench's own `--out json` file, merged with no settings repeated, gives
 * the bench's levels, its throughput (within 0.5%) and its runtime: the windows, levels and runtime come from
 * the stats probes' records in the file, never from defaults. A level asked for that has no samples is an
 * error. Under the Node runtime always, under real k6 when there is one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../../lib/summary/types.ts';
import { findK6 } from '../agreement/harness.ts';
import { resultsDir, runCli, runFolder } from '../bench/run-cli.ts';

const k6 = findK6();
if (!k6.bin)
  console.log(`real-k6 case skipped: no k6 binary (looked for ${k6.looked.join(', ')}; set K6_BIN)`);

const runtimes: { runtime: 'node' | 'k6'; env: Record<string, string> }[] = [{ runtime: 'node', env: {} }];
if (k6.bin) runtimes.push({ runtime: 'k6', env: { K6_BIN: k6.bin } });

const BUDGET = { P95_MS: '60000', P99_MS: '60000' };

const report = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { report: RunReport }).report;

describe('merge of one runner', () => {
  it.each(runtimes)(
    "reproduces the bench's levels, throughput and runtime from its --out json ($runtime)",
    async ({ runtime, env }) => {
      const results = resultsDir();
      const points = join(results, 'points.json');
      // A window that is not the 5 s default: a merge that fell back to it would be off by 2.5x.
      const bench = await runCli(
        [
          ...['bench', 'mnist', '--runtime', runtime, '--concurrency', '1,2', '--step-duration', '2s'],
          ...['--warmup', '0s', '--count', '2', '--metrics-url', 'off', '--results-dir', results],
          ...['--', '--out', `json=${points}`],
        ],
        { ...env, ...BUDGET },
      );
      expect(bench.code, bench.stderr).toBe(0);
      const single = report(runFolder(results, 'mnist'));

      const out = join(results, 'merged');
      // The budget is the one setting a merge is given: it judges, it does not measure.
      const merge = await runCli(['merge', '--model', 'mnist', '--out-dir', out, points], BUDGET);
      expect(merge.code, merge.stderr).toBe(0);
      const merged = report(out);
      expect(merged.runtime).toBe(runtime);
      expect(merged.results.map((r) => r.name)).toEqual(single.results.map((r) => r.name));
      for (const level of single.results) {
        const mergedLevel = merged.results.find((r) => r.name === level.name)!;
        expect(mergedLevel.window_s).toBe(level.window_s);
        const off =
          Math.abs(mergedLevel.throughput_infer_s - level.throughput_infer_s) / level.throughput_infer_s;
        expect(
          off,
          `${level.name}: ${mergedLevel.throughput_infer_s} vs ${level.throughput_infer_s}`,
        ).toBeLessThan(0.005);
        console.log(
          `${runtime} ${level.name}: bench ${level.throughput_infer_s.toFixed(1)} infer/s, merged ${mergedLevel.throughput_infer_s.toFixed(1)} infer/s`,
        );
      }

      // A level asked for that the file has no samples of: one line, exit 1, nothing reported as measured.
      const asked = await runCli([
        'merge',
        '--model',
        'mnist',
        '--concurrency',
        '1,2,4',
        '--out-dir',
        join(results, 'm2'),
        points,
      ]);
      expect(asked.code).toBe(1);
      expect(asked.stderr.trim().split('\n')).toEqual([
        "k6-triton: merge: level c4 has no samples in the files (they hold c1, c2); drop it from --concurrency / --request-rate or add its runners' files",
      ]);
    },
    180_000,
  );
});
