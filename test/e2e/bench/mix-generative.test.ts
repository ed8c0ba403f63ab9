/**
 * bench --mix with a generative model: mnist (a tensor model, its latency budget) and gpt2 (streamed over gRPC,
 * its TTFT and ITL budgets) in one k6 test against the embedded server, under the Node runtime and real k6 when
 * found. gpt2's TTFT budget is one no request can meet and its ITL budget one every request meets, so its
 * per-model SLO verdicts differ (TTFT missed, ITL not), the mix fails and the run exits 99 as a bench does;
 * gpt2's level carries its tokens (every request asked for and got OUTPUT_TOKENS).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LevelResult } from '../../../lib/summary/types.ts';
import { EXIT } from '../../../measure/core/exit-codes.ts';
import type { GenaiSloVerdict } from '../../../measure/mix/genai-mix.ts';
import { findK6 } from '../agreement/harness.ts';
import { readMixRun } from './mix-folder.ts';
import { resultsDir, runCli } from './run-cli.ts';

const k6 = findK6();
if (!k6.bin)
  console.log(`real-k6 case skipped: no k6 binary (looked for ${k6.looked.join(', ')}; set K6_BIN)`);
const runtimes: { runtime: 'node' | 'k6'; env: Record<string, string> }[] = [{ runtime: 'node', env: {} }];
if (k6.bin) runtimes.push({ runtime: 'k6', env: { K6_BIN: k6.bin } });

const OSL = 12;

/** The mix file: mnist within a generous budget, gpt2 with a TTFT p95 of 1 µs and an ITL p95 of a minute. */
function mixFile(): string {
  const path = join(resultsDir(), 'mixed.json');
  const models = [
    { model: 'mnist', concurrency: 1, p95_ms: 60_000, p99_ms: 60_000 },
    { model: 'gpt2', concurrency: 2, ttft_p95_ms: 0.001, itl_p95_ms: 60_000, p95_ms: 60_000, p99_ms: 60_000 },
  ];
  writeFileSync(path, JSON.stringify({ name: 'mixed', models }));
  return path;
}

interface Row {
  id: string;
  verdict: string;
  result?: LevelResult;
  genai_slo?: GenaiSloVerdict[];
}

describe('bench --mix with a generative model', () => {
  it.each(runtimes)(
    'judges gpt2 on its TTFT and ITL budgets beside mnist ($runtime)',
    async ({ runtime, env }) => {
      const results = resultsDir();
      const run = await runCli(
        [
          ...['bench', '--mix', mixFile(), '--runtime', runtime, '--step-duration', '2s', '--warmup', '1s'],
          ...['--no-progress', '--results-dir', results],
        ],
        { ...env, INPUT_TOKENS: '20', OUTPUT_TOKENS: String(OSL) },
      );
      const { dir, models } = readMixRun(results, 'mixed', run.stderr);
      expect(run.code, run.stderr + run.stdout).toBe(EXIT.THRESHOLDS_FAILED);
      const [mnist, gpt2] = models as unknown as [Row, Row];
      expect(mnist.result?.name).toBe('mnist__c1');
      expect(mnist.result!.requests).toBeGreaterThan(0);
      expect(mnist.genai_slo).toBeUndefined();

      expect(gpt2.result?.name).toBe('gpt2__c2');
      const g = gpt2.result!.genai!;
      expect(gpt2.result!.requests).toBeGreaterThan(0);
      expect(gpt2.result!.errors).toBe(0);
      expect(g.output_tokens).toBe(gpt2.result!.requests * OSL);
      expect(g.ttft_ms.p50).toBeGreaterThan(0);
      expect(gpt2.verdict).toBe('missed');
      const slo = gpt2.genai_slo!;
      expect(slo.map((v) => [v.slo, v.expr])).toEqual([
        ['TTFT', 'p(95)<0.001'],
        ['ITL', 'p(95)<60000'],
      ]);
      expect(slo[0]!.state).toBe('missed');
      expect(slo[1]!.state).not.toBe('missed');

      const report = readFileSync(join(dir, 'report.md'), 'utf8');
      expect(report).toMatch(
        /\| gpt2 \| [\d.]+ \/ [\d.]+ \/ [\d.]+ \| [\d.]+ \/ [\d.]+ \/ [\d.]+ \| [\d.]+ \|/,
      );
      expect(report).toContain('p95 <0.001 ms: FAIL');
      // gpt2's own folder is a bench's, with genai-perf's exports.
      const own = JSON.parse(readFileSync(join(dir, 'gpt2', 'summary.json'), 'utf8'));
      expect(own.report.results[0].genai.output_tokens).toBe(g.output_tokens);
      expect(readFileSync(join(dir, 'gpt2', 'profile_export_genai_perf-gpt2__c2.csv'), 'utf8')).toContain(
        'Time To First Token',
      );
    },
    // Two models' warm-ups and windows under real k6 and a loaded machine: past the 60 s default.
    180_000,
  );
});
