/**
 * Every process exit code the project gives, in one table: k6's own codes (the Node runtime gives the
 * same, and bench, capacity, sweep and merge keep them) and the few that are k6-triton's alone. k6's
 * codes come from the runtime (packages/runtime/src/exit-codes.ts); the tool's are declared here, beside the one
 * rule that picks among them once result files are written.
 */
import { EXIT as K6_EXIT } from '@k6-triton/runtime';

export const EXIT = {
  ...K6_EXIT,
  /** A bad input or a broken run (k6-triton's commands; k6 itself says 255 for a generic error). */
  FAILED: 1,
  /** `serve`: --exit-timeout-secs passed with requests still in flight (Triton 2.60 exits 1 then too). */
  EXIT_TIMEOUT_EXPIRED: 1,
  /** A result file could not be written (ENOSPC, EACCES): one line names the file and the errno. */
  RESULTS_NOT_WRITTEN: 94,
  /** A budget could not be judged: too few samples beyond its percentile, or its level never stable. */
  INCONCLUSIVE: 95,
  /** Nothing to judge: no level had a successful request, or a budget's levels were none of those measured. */
  NOT_MEASURED: 96,
  /** `compare`: the new run regressed past its tolerances (distinct from a missed budget). */
  REGRESSION: 98,
} as const;

/**
 * A command's exit code once its result files are written, the one place 94 is decided: a run stopped
 * by a signal keeps 105 (the user stopped it and knows); otherwise a result file that could not be written
 * wins over every other outcome (99, 95, 96, 107, 1, ...), because the files that outcome is about are not
 * there to read.
 */
export function exitAfterWrites(code: number, allWritten: boolean): number {
  if (allWritten || code === EXIT.EXTERNAL_ABORT) return code;
  return EXIT.RESULTS_NOT_WRITTEN;
}
