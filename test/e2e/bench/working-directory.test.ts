/**
 * The CLI works from any folder, as `npx k6-triton` from another project runs it: the embedded server's
 * child process once resolved tsx from the working directory and exited before listening.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { QUICK, runCli, runFolder } from './run-cli.ts';

describe('bench from a folder outside the project', () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'k6-triton-cwd-'));
  afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

  it('starts the embedded server and writes its results under the given folder', async () => {
    const run = await runCli(
      ['bench', 'mnist', '--concurrency', '1', ...QUICK, '--results-dir', 'out'],
      {},
      elsewhere,
    );
    expect(run.stderr).not.toContain('ERR_MODULE_NOT_FOUND');
    // 99 is a missed budget on a busy machine: the run itself went through.
    expect([0, 99], run.stderr).toContain(run.code);
    expect(existsSync(join(runFolder(join(elsewhere, 'out'), 'mnist'), 'perf_analyzer.csv'))).toBe(true);
  });
});
