/** One `bench repeat` run for the e2e tests: the delays each request asks for, the run's levels from its summary. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { LevelResult } from '../../../lib/summary/types.ts';
import { resultsDir, runCli, runFolder } from '../bench/run-cli.ts';

/** What each request asks of the repeat model: its responses and the delays before them, ms. */
export interface RepeatAsk {
  osl: number;
  firstDelay_ms: number;
  tokenDelay_ms: number;
}

/** Runs `bench repeat <args>` into a fresh results folder; expects exit 0 and returns the levels and stdout. */
export async function runRepeatBench(
  args: string[],
  ask: RepeatAsk,
  env: Record<string, string> = {},
): Promise<{ levels: LevelResult[]; stdout: string }> {
  const results = resultsDir();
  const run = await runCli(['bench', 'repeat', ...args, '--results-dir', results, '--no-progress'], {
    OUTPUT_TOKENS: String(ask.osl),
    FIRST_DELAY_MS: String(ask.firstDelay_ms),
    TOKEN_DELAY_MS: String(ask.tokenDelay_ms),
    ...env,
  });
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  const summary = JSON.parse(readFileSync(join(runFolder(results, 'repeat'), 'summary.json'), 'utf8'));
  return { levels: summary.report.results as LevelResult[], stdout: run.stdout };
}
