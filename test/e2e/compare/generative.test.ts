/**
 * `compare` on two real `bench gpt2` runs against the embedded server: B's simulated gpt2 is five times slower
 * (its prefill and decode timing parameters, written into a model repository of its own), so its TTFT and ITL
 * rise and its output tokens/s fall far past any noise; compare exits 98 naming the token metrics, and 0 on a
 * run compared with itself.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../measure/core/exit-codes.ts';
import { pbtxtOf } from '../../../measure/repository/export.ts';
import { configFromGenerative } from '../../../measure/repository/generative-config.ts';
import { GENERATIVE } from '../../../models/generative.ts';
import { resultsDir, runCli, runFolder } from '../bench/run-cli.ts';

const SLOWER = 5;

/** A repository holding gpt2 with its prefill and decode times × SLOWER (the KV cache as it was). */
function slowGpt2Repository(): string {
  const config = configFromGenerative(GENERATIVE.gpt2!);
  for (const [key, value] of Object.entries(config.parameters ?? {}))
    if (key !== 'kv_cache_tokens') value.string_value = String(Number(value.string_value) * SLOWER);
  const dir = join(resultsDir(), 'repo');
  mkdirSync(join(dir, 'gpt2', '1'), { recursive: true });
  writeFileSync(join(dir, 'gpt2', 'config.pbtxt'), pbtxtOf(config));
  return dir;
}

/** A short c1 gpt2 bench; returns its run folder. */
async function benchGpt2(extra: string[] = []): Promise<string> {
  const results = resultsDir();
  const run = await runCli(
    [
      ...[
        'bench',
        'gpt2',
        '--runtime',
        'node',
        '--concurrency',
        '1',
        '--step-duration',
        '2s',
        '--warmup',
        '1s',
      ],
      ...['--metrics-url', 'off', '--no-progress', '--results-dir', results, ...extra],
    ],
    { INPUT_TOKENS: '20', OUTPUT_TOKENS: '12', TTFT_P95_MS: '60000', ITL_P95_MS: '60000' },
  );
  expect(run.code, run.stderr + run.stdout).toBe(EXIT.OK);
  return runFolder(results, 'gpt2');
}

/** Bounds that never fire on the tensor gates: only the token gates can fail. */
const TOKEN_GATES_ONLY = ['--max-throughput-drop', '100%', '--max-p99-rise', '1000000%'];

describe('k6-triton compare on generative runs', () => {
  it('exits 98 on a slowed gpt2 naming TTFT/ITL and output tokens/s, and 0 on a run against itself', async () => {
    const a = await benchGpt2();
    const b = await benchGpt2(['--model-repository', slowGpt2Repository()]);

    const same = await runCli(['compare', a, a]);
    expect(same.code, same.stderr).toBe(EXIT.OK);
    expect(same.stdout.trimEnd().split('\n').at(-1)).toBe('verdict: no regression');
    expect(same.stdout).toContain('| c1 | ');
    expect(same.stdout).toContain('TTFT p99 rise ≤ 10%');

    const slowed = await runCli([
      'compare',
      a,
      b,
      ...TOKEN_GATES_ONLY,
      '--junit',
      join(resultsDir(), 'c.xml'),
    ]);
    expect(slowed.code, slowed.stderr).toBe(EXIT.REGRESSION);
    const verdict = slowed.stdout.trimEnd().split('\n').at(-1)!;
    // ITL x5 and tokens/s / 5 at c1: far past a shared machine's noise; TTFT's p99 is left to the table.
    expect(verdict).toMatch(/^verdict: regression \(.*c1 ITL p99 \+\d+\.\d%/);
    expect(verdict).toMatch(/c1 output tokens\/s -\d+\.\d%/);
    expect(verdict).not.toMatch(/c1 (throughput|p99) /);

    // The user's bounds decide: loose enough, the same two runs pass.
    const loose = await runCli([
      ...['compare', a, b, ...TOKEN_GATES_ONLY, '--max-ttft-rise', '1000000%', '--max-itl-rise', '1000000%'],
      ...['--max-tokens-drop', '100%', '--max-goodput-drop', '100%'],
    ]);
    expect(loose.code, loose.stdout).toBe(EXIT.OK);

    const bad = await runCli(['compare', a, b, '--genai-percentile', 'p90']);
    expect(bad.code).toBe(EXIT.FAILED);
    expect(bad.stderr).toContain("'p90' is invalid");
  });
});
