/**
 * `bench gpt2` end to end: the generative scenario streams to the embedded server's simulated gpt2 over gRPC
 * ModelStreamInfer under the Node runtime and, when present, real k6, and over SSE (generate_stream, OpenAI chat
 * and completions through k6/x/sse) under the Node runtime; the run's summary holds TTFT, ITL, latency and token
 * throughput per level. Real k6 without the SSE extension refuses an SSE protocol with one line. The checks are the metrics' arithmetic, not timing: every request
 * gets exactly OUTPUT_TOKENS tokens, so per level output tokens = requests x OSL, and since latency = TTFT +
 * (OSL - 1) x ITL holds per request it holds for the averages.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LevelResult } from '../../../lib/summary/types.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { resultsDir, runCli, runFolder } from './run-cli.ts';

const k6 = referenceTool('k6', 'K6_BIN');
const OSL = 12;
const LEVELS = [1, 3];

async function benchGpt2(runtime: 'node' | 'k6', env: Record<string, string> = {}, protocol = 'grpc') {
  const results = resultsDir();
  const run = await runCli(
    [
      ...['bench', 'gpt2', '--runtime', runtime, '--concurrency', LEVELS.join(','), '--protocol', protocol],
      ...['--step-duration', '2s', '--warmup', '1s', '--results-dir', results],
    ],
    { INPUT_TOKENS: '20', OUTPUT_TOKENS: String(OSL), TTFT_P95_MS: '60000', ITL_P95_MS: '60000', ...env },
  );
  return { run, results };
}

function checkLevels(results: string): void {
  const dir = runFolder(results, 'gpt2');
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  const levels = summary.report.results as LevelResult[];
  expect(levels.map((l) => l.level)).toEqual(LEVELS);
  for (const level of levels) {
    const g = level.genai!;
    expect(level.requests, level.name).toBeGreaterThan(0);
    expect(level.errors, level.name).toBe(0);
    expect(g.output_tokens, level.name).toBe(level.requests * OSL);
    expect(g.output_tokens_per_s).toBeCloseTo(g.requests_per_s * OSL, 9);
    expect(g.ttft_ms.p50).toBeGreaterThan(0);
    expect(g.ttft_ms.p99).toBeGreaterThanOrEqual(g.ttft_ms.p95);
    expect(g.itl_ms.p99).toBeGreaterThanOrEqual(g.itl_ms.p50);
    // Averages of a per-request identity with one OSL: exact up to floating point.
    expect(g.latency_ms.avg).toBeCloseTo(g.ttft_ms.avg + (OSL - 1) * g.itl_ms.avg, 6);
    // genai-perf's CSV of the level: every request had OSL output and 20 input tokens; TTFT's p25 <= p50 <= p75.
    const csv = readFileSync(join(dir, `profile_export_genai_perf-${level.name}.csv`), 'utf8').split('\r\n');
    expect(csv[0]).toBe('Metric,avg,min,max,p99,p95,p90,p75,p50,p25');
    expect(csv[4]).toBe(`Output Sequence Length,${Array(9).fill(`${OSL}.00`).join(',')}`);
    expect(csv[5]).toBe(`Input Sequence Length,${Array(9).fill('20.00').join(',')}`);
    const ttft = g.genai_perf!.ttft_ms;
    expect(ttft.p25).toBeGreaterThan(0);
    expect(ttft.p25).toBeLessThanOrEqual(ttft.p50);
    expect(ttft.p50).toBeLessThanOrEqual(ttft.p75);
    expect(csv[8]).toBe(`Output Token Throughput (per sec),${g.output_tokens_per_s.toFixed(2)}`);
  }
  const report = readFileSync(join(dir, 'report.md'), 'utf8');
  expect(report).toContain('TTFT p50 / p95 / p99 (ms)');
  expect(report).toContain('Output tokens/s');
}

describe('bench gpt2 (generative, gRPC stream)', () => {
  it('measures TTFT, ITL and tokens per level under the Node runtime', async () => {
    const { run, results } = await benchGpt2('node');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('all budgets met');
    checkLevels(results);
  }, 120_000);

  it('exits 99 when the TTFT budget is missed', async () => {
    const { run } = await benchGpt2('node', { TTFT_P95_MS: '0.001' });
    expect(run.code, run.stderr).toBe(99);
    expect(run.stdout).toMatch(/genai_ttft .*c1/);
  }, 120_000);

  it.skipIf(!k6.path)(
    `measures the same under real k6 ${k6.skipReason}`,
    async () => {
      const { run, results } = await benchGpt2('k6', { K6_BIN: k6.path! });
      expect(run.code, run.stderr).toBe(0);
      checkLevels(results);
    },
    120_000,
  );
});

describe('bench gpt2 over SSE (k6/x/sse)', () => {
  for (const protocol of ['generate', 'openai-chat', 'openai-completions']) {
    it(`--protocol ${protocol}: TTFT, ITL and tokens per level under the Node runtime`, async () => {
      const { run, results } = await benchGpt2('node', {}, protocol);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('all budgets met');
      checkLevels(results);
    }, 120_000);
  }

  it.skipIf(!k6.path)(
    `real k6 without the extension: one line naming k6/x/sse and how to get it, exit 107 ${k6.skipReason}`,
    async () => {
      const { run } = await benchGpt2('k6', { K6_BIN: k6.path! }, 'generate');
      expect(run.code, run.stderr).toBe(107);
      const lines = `${run.stdout}\n${run.stderr}`.split('\n').filter((l) => l.includes('k6/x/sse'));
      expect(lines, run.stderr).toHaveLength(1);
      expect(lines[0]).toContain(
        'PROTOCOL=generate streams over SSE with the k6 extension k6/x/sse, which this k6 binary lacks; build one with it (xk6 build --with github.com/phymbert/xk6-sse)',
      );
    },
    120_000,
  );
});
