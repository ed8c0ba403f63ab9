/**
 * The end of every command: result files not written are said last, one line each, and make the exit 94,
 * over any other outcome but a stopped run's 105 (exitAfterWrites).
 */
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { execute } from '../../cli/execute.ts';
import { noteNotWritten, takeNotWritten } from '../../report/not-written.ts';
import { EXIT, exitAfterWrites } from '../../measure/core/exit-codes.ts';

/** A program whose one command notes `files` as not written, prints a line, then ends with `code`. */
function program(files: string[], code: number | Error): Command {
  const prog = new Command('k6-triton').exitOverride();
  prog.command('bench').action(() => {
    for (const file of files) noteNotWritten(file, 'ENOSPC (no space left on device)');
    console.error('k6-triton: the run said this');
    if (code instanceof Error) throw code;
    process.exitCode = code;
  });
  return prog;
}

describe('execute', () => {
  afterEach(() => {
    process.exitCode = undefined;
    takeNotWritten();
    vi.restoreAllMocks();
  });

  it('prints the files not written last and exits 94 over a missed budget', async () => {
    const printed: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => printed.push(line));
    const code = await execute(program(['results/a/summary.json', 'results/a/report.html'], 99), [
      'node',
      'k6-triton',
      'bench',
    ]);
    expect(code).toBe(EXIT.RESULTS_NOT_WRITTEN);
    expect(printed).toEqual([
      'k6-triton: the run said this',
      'k6-triton: could not write results/a/summary.json: ENOSPC (no space left on device)',
      'k6-triton: could not write results/a/report.html: ENOSPC (no space left on device)',
    ]);
  });

  it("keeps a stopped run's 105, and a command's own code when everything was written", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const argv = ['node', 'k6-triton', 'bench'];
    expect(await execute(program(['r/summary.json'], EXIT.EXTERNAL_ABORT), argv)).toBe(EXIT.EXTERNAL_ABORT);
    expect(await execute(program([], EXIT.THRESHOLDS_FAILED), argv)).toBe(EXIT.THRESHOLDS_FAILED);
    expect(await execute(program(['r/summary.json'], new Error('broken')), argv)).toBe(
      EXIT.RESULTS_NOT_WRITTEN,
    );
  });
});

describe('exitAfterWrites', () => {
  it('puts 94 over every outcome but 105', () => {
    for (const code of [EXIT.OK, EXIT.FAILED, EXIT.INCONCLUSIVE, EXIT.NOT_MEASURED, EXIT.THRESHOLDS_FAILED])
      expect(exitAfterWrites(code, false)).toBe(EXIT.RESULTS_NOT_WRITTEN);
    expect(exitAfterWrites(EXIT.EXTERNAL_ABORT, false)).toBe(EXIT.EXTERNAL_ABORT);
    expect(exitAfterWrites(EXIT.THRESHOLDS_FAILED, true)).toBe(EXIT.THRESHOLDS_FAILED);
  });
});
