/** perf_analyzer's -f: the run's own perf_analyzer CSV (report/csv.ts wrote it) copied where the user asked. */
import { copyFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { EXIT } from '../measure/core/exit-codes.ts';

/**
 * Copies the run's perf_analyzer.csv (perf_analyzer-verbose.csv with --verbose-csv or --collect-metrics, as
 * perf_analyzer's -f holds those columns then) to `file`; the run's exit code, or FAILED when it cannot.
 */
export async function copyCsv(
  outcome: { exitCode: number; dir: string },
  file: string,
  verbose: boolean,
): Promise<number> {
  const source = join(outcome.dir, verbose ? 'perf_analyzer-verbose.csv' : 'perf_analyzer.csv');
  try {
    await copyFile(source, resolve(file));
    return outcome.exitCode;
  } catch (err) {
    console.error(
      `k6-triton: -f ${file}: not written (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
    return outcome.exitCode === EXIT.OK ? EXIT.FAILED : outcome.exitCode;
  }
}
