/**
 * `k6-triton capacity gpt2` end to end against the embedded server's simulated gpt2 (127.0.0.1): a small search
 * (levels 1..2 or 2..4 req/s, 2 s windows, one attempt) whose SLOs either hold at every level (the answer is
 * the ceiling, with its tokens/s) or hold at none (TTFT bound below any stream's). No timing is asserted.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../bench/run-cli.ts';

const OSL = 12;
const QUICK = [...['--step-duration', '2s', '--warmup', '1s', '--runtime', 'node', '--attempts', '1']];
/** Bounds no stream on the embedded server comes near. */
const LOOSE = [
  ...['--ttft-p95-ms', '60000', '--itl-p95-ms', '60000', '--p95-ms', '60000', '--p99-ms', '120000'],
];
const TOKENS = { INPUT_TOKENS: '20', OUTPUT_TOKENS: String(OSL) };

async function capacity(args: string[]) {
  const results = mkdtempSync(join(tmpdir(), 'k6-triton-genai-capacity-'));
  const run = await runCli(['capacity', 'gpt2', ...QUICK, ...args, '--results-dir', results], TOKENS);
  const runs = readdirSync(join(results, 'gpt2')).filter((d) => d.startsWith('capacity-'));
  expect(runs).toHaveLength(1);
  const record = JSON.parse(readFileSync(join(results, 'gpt2', runs[0]!, 'capacity.json'), 'utf8'));
  return { run, record };
}

describe('k6-triton capacity gpt2 (goodput against the SLOs)', () => {
  it('answers the highest concurrency whose goodput holds, with its tokens/s', async () => {
    const { run, record } = await capacity(['--start', '1', '--max', '2', ...LOOSE]);
    expect(run.code, run.stderr).toBe(0);
    expect(record.path.map((t: { measurement: { level: number } }) => t.measurement.level)).toEqual([
      1, 2, 2,
    ]);
    expect(record.budget).toMatchObject({ ttft_p95_ms: 60000, itl_p95_ms: 60000, p95_ms: 60000 });
    expect(record.answer.level).toBe(2);
    // The generator's error bar, measured once before the search (measure/core/preflight.ts).
    expect(run.stderr).toMatch(/generator error bar \(pre-flight, grpc, node, \d+ requests at c1/);
    const m = record.answer.measurement;
    // Every request carries OSL tokens, so tokens/s is requests/s x OSL; every one met the loose SLOs.
    expect(m.genai.output_tokens_per_s).toBeCloseTo(m.throughput_infer_s * OSL, 6);
    expect(m.genai.good_fraction).toBe(1);
    expect(m.genai.goodput_per_s).toBeCloseTo(m.throughput_infer_s, 6);
    expect(run.stdout).toMatch(
      /^gpt2: 2 concurrent requests, [\d.,]+ requests\/s and [\d,]+ output tokens\/s with goodput [\d.,]+ requests\/s \(100\.0% of requests met every SLO\); TTFT p95 [\d.]+ ms \(budget 60,000 ms\), ITL p95 [\d.]+ ms \(budget 60,000 ms\), latency p95 [\d.]+ ms \(budget 60,000 ms\); limited by /m,
    );
  }, 180_000);

  it('exits 99 when no level meets the TTFT SLO, naming TTFT and goodput', async () => {
    const { run, record } = await capacity(['--start', '1', '--max', '2', '--ttft-p95-ms', '0.001']);
    expect(run.code, run.stderr).toBe(99);
    expect(record.answer.level).toBeNull();
    expect(record.path.map((t: { measurement: { level: number } }) => t.measurement.level)).toEqual([1, 1]);
    expect(run.stdout).toMatch(
      /^gpt2: no concurrency within budget \(p95 [\d.,]+ ms, p99 [\d.,]+ ms, TTFT p95 0\.001 ms, ITL p95 10 ms\); the first level, 1, missed it twice: TTFT p95 [\d.]+ ms \(budget 0\.001 ms\), goodput: 0\.0% of requests met every SLO \(needs 95%\)/m,
    );
  }, 180_000);

  it('searches the open-loop rate with --request-rate', async () => {
    const { run, record } = await capacity(['--request-rate', '--start', '2', '--max', '4', ...LOOSE]);
    expect(run.code, run.stderr).toBe(0);
    expect(record.mode).toBe('request-rate');
    expect(record.path.map((t: { measurement: { level: number } }) => t.measurement.level)).toEqual([
      2, 4, 4,
    ]);
    expect(record.answer.level).toBe(4);
    expect(record.answer.measurement.genai.output_tokens_per_s).toBeCloseTo(
      record.answer.measurement.throughput_infer_s * OSL,
      6,
    );
    expect(run.stdout).toMatch(
      /^gpt2: 4 requests\/s asked, [\d.,]+ requests\/s and [\d,]+ output tokens\/s/m,
    );
  }, 180_000);
});
