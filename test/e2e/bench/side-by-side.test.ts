/**
 * Two bench commands at once, of two models that share one scenario (bert-base and bert-large: the same
 * bundle): each bench writes its bundle to files named by the bundle's hash under dist/, each written whole
 * and renamed into place, so neither reads a bundle the other is rewriting, and both go through.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUICK, resultsDir, runCli, runFolder } from './run-cli.ts';

/** Budgets are about speed, which this test does not judge: generous ones keep the verdict about errors. */
const LOOSE = { P95_MS: '60000', P99_MS: '60000' };

describe('bench runs side by side', () => {
  it('two bench commands of different models run at once and both pass', { timeout: 180_000 }, async () => {
    const models = ['bert-base', 'bert-large'];
    const results = resultsDir();
    const runs = await Promise.all(
      models.map((model) =>
        runCli(['bench', model, ...QUICK, '--concurrency', '1', '--results-dir', results], LOOSE),
      ),
    );
    for (const [i, run] of runs.entries()) {
      const model = models[i]!;
      expect(run.stderr, model).not.toMatch(/ERRO|Cannot find|ENOENT/);
      expect(run.code, `${model}: ${run.stderr}`).toBe(0);
      expect(existsSync(join(runFolder(results, model), 'perf_analyzer.csv'))).toBe(true);
    }
  });
});
