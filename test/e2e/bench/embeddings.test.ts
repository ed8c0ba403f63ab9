/**
 * `bench gpt2 --protocol openai-embeddings`: the embedded server's OpenAI /v1/embeddings under load, under the
 * Node runtime and real k6 (when found). Each request embeds BATCH prompts, so a level's inferences are its
 * requests × BATCH (inputs/s its throughput), its latency http_req_duration; an open-loop arrival process the
 * scenario cannot pace is refused in one line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../../lib/summary/types.ts';
import { EXIT } from '../../../measure/core/exit-codes.ts';
import { findK6 } from '../agreement/harness.ts';
import { resultsDir, runCli, runFolder } from './run-cli.ts';

const k6 = findK6();
if (!k6.bin)
  console.log(`real-k6 case skipped: no k6 binary (looked for ${k6.looked.join(', ')}; set K6_BIN)`);
const runtimes: { runtime: 'node' | 'k6'; env: Record<string, string> }[] = [{ runtime: 'node', env: {} }];
if (k6.bin) runtimes.push({ runtime: 'k6', env: { K6_BIN: k6.bin } });

const INPUTS = 4;
const EMBEDDINGS = ['bench', 'gpt2', '--protocol', 'openai-embeddings', '--batch', String(INPUTS)];

describe('bench --protocol openai-embeddings', () => {
  it.each(runtimes)('measures latency and inputs/s per level ($runtime)', async ({ runtime, env }) => {
    const results = resultsDir();
    const run = await runCli(
      [
        ...EMBEDDINGS,
        ...['--runtime', runtime, '--concurrency', '1,2', '--step-duration', '2s', '--warmup', '1s'],
        ...['--no-progress', '--results-dir', results],
      ],
      { ...env, INPUT_TOKENS: '20' },
    );
    expect(run.code, run.stderr + run.stdout).toBe(EXIT.OK);
    const report = (
      JSON.parse(readFileSync(join(runFolder(results, 'gpt2'), 'summary.json'), 'utf8')) as {
        report: RunReport;
      }
    ).report;
    expect([report.protocol, report.batch]).toEqual(['openai-embeddings', INPUTS]);
    expect(report.results.map((l) => l.name)).toEqual(['c1', 'c2']);
    for (const level of report.results) {
      expect(level.requests, level.name).toBeGreaterThan(0);
      expect(level.errors, level.name).toBe(0);
      expect(level.responses_invalid ?? 0, level.name).toBe(0);
      expect(level.inferences).toBe(level.requests * INPUTS);
      expect(level.throughput_infer_s).toBeCloseTo((level.requests * INPUTS) / level.window_s, 6);
      expect(level.latency_us.p50).toBeGreaterThan(0);
      expect(level.genai).toBeUndefined();
    }
  });

  it('refuses a paced open loop in one line', async () => {
    const run = await runCli([
      ...EMBEDDINGS,
      ...['--runtime', 'node', '--request-rate', '5', '--arrivals', 'poisson', '--step-duration', '1s'],
      ...['--warmup', '0s', '--no-progress', '--results-dir', resultsDir()],
    ]);
    expect(run.code).not.toBe(EXIT.OK);
    expect(run.stdout + run.stderr).toContain(
      'PROTOCOL=openai-embeddings takes closed-loop levels or constant arrivals; drop ARRIVALS, SCHEDULE and REQUEST_INTERVALS',
    );
  });
});
