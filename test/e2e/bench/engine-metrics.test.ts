/**
 * `bench gpt2` against the embedded server (issue 39 items 5 and 7): each level's summary carries the
 * simulated LLM's engine metrics (TensorRT-LLM's names, from its scheduler: c8 fills the KV cache and
 * queues), input tokens/s, prefill throughput and --slice-duration slices; the pre-flight's error bar is in
 * summary.json, report.md and report.html. The checks are of counts and the scheduler's state, not timing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LevelResult, RunReport } from '../../../lib/summary/types.ts';
import { readRecords } from '../../../measure/core/genai-records.ts';
import { resultsDir, runCli, runFolder } from './run-cli.ts';

/** gpt2's calibration prompt (200 tokens, 100 out): four fit its 1200-token KV cache, so c8 queues four. */
const ISL = 200;

describe('engine metrics, input tokens/s, slices and the error bar', () => {
  it('writes them for each level of a bench gpt2', async () => {
    const results = resultsDir();
    const run = await runCli(
      [
        ...['bench', 'gpt2', '--runtime', 'node', '--concurrency', '1,8'],
        ...['--step-duration', '2s', '--warmup', '1s', '--slice-duration', '1', '--results-dir', results],
      ],
      { INPUT_TOKENS: String(ISL), TTFT_P95_MS: '60000', ITL_P95_MS: '60000', ALLOW_INCONCLUSIVE: '1' },
    );
    expect(run.stderr).toMatch(/generator error bar \(pre-flight, grpc, node, \d+ requests at c1/);
    const dir = runFolder(results, 'gpt2');
    const report = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).report as RunReport;
    const [c1, c8] = report.results as [LevelResult, LevelResult];
    expect([c1.name, c8.name]).toEqual(['c1', 'c8']);

    // Engine metrics from the simulated LLM's scheduler, under TensorRT-LLM's names.
    expect(c1.engine_metrics?.source).toBe('trtllm');
    expect(c1.engine_metrics?.kv_blocks_max).toBe(75); // 1200 tokens in blocks of 16
    expect(c1.engine_metrics?.running?.max).toBe(1);
    expect(c1.engine_metrics?.waiting?.max).toBe(0);
    expect(c8.engine_metrics?.running?.max).toBe(4);
    expect(c8.engine_metrics?.waiting?.max).toBeGreaterThan(0);
    expect(c8.engine_metrics?.kv_cache_usage_pct?.max).toBe(100);

    // Input tokens/s: every successful request's 200 tokens over the window; prefill per user is positive.
    const records = await readRecords(join(dir, 'records.jsonl'));
    for (const level of [c1, c8]) {
      const g = level.genai!;
      expect(g.input_tokens_per_s).toBeCloseTo((level.requests * ISL) / level.window_s, 6);
      expect(g.prefill_tokens_per_s!.p50).toBeGreaterThan(0);
      // Two 1 s slices; every record of the level counted in one of them.
      expect(g.slices!.map((s) => [s.start_s, s.end_s])).toEqual([
        [0, 1],
        [1, 2],
      ]);
      const counted = g.slices!.reduce((n, s) => n + s.requests + s.errors, 0);
      expect(counted).toBe(records.filter((r) => r.level === level.name).length);
    }

    // The error bar, measured once before the levels.
    const bar = report.error_bar!;
    expect(bar.protocol).toBe('grpc');
    expect(bar.runtime).toBe('node');
    expect(bar.known).toEqual({ first_ms: 10, gap_ms: 2, tokens: 16 });
    expect(bar.requests).toBeGreaterThan(0);
    expect(Number.isFinite(bar.ttft_error_ms.p50)).toBe(true);
    expect(Number.isFinite(bar.gap_error_ms.p99)).toBe(true);

    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(md).toContain('## Generator error bar (pre-flight)');
    expect(md).toContain('## LLM engine metrics (per level)');
    expect(md).toMatch(/\| c8 \| nv_trt_llm_\* \| [\d.]+ \/ 4\.0 \|/);
    expect(md).toContain('## Time slices');
    expect(md).toMatch(/\| c1 \| 0-1 \| \d+ \|/);
    expect(md).toContain('## Input tokens and prefill');
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('LLM engine metrics (per level)');
    expect(html).toContain('Generator error bar (pre-flight)');
  }, 180_000);
});
