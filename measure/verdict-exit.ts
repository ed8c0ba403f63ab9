/**
 * A bench's exit code from how its runtime ended and what its report may claim: k6's own code when the run
 * broke (105 stopped, 107 script exception, ...), else the verdict's: 99 missed, 96 not measured, 95
 * inconclusive (0 with --allow-inconclusive), 0 met. docs/ci-gates-and-compare.md has the table.
 */
import type { RunReport } from '../lib/summary/types.ts';
import { EXIT } from '../runtime/exit-codes.ts';

/** The exit code of a run whose runtime exited `runExit` and whose report is `report`. */
export function verdictExitCode(report: RunReport, runExit: number): number {
  if (runExit !== EXIT.OK && runExit !== EXIT.THRESHOLDS_FAILED) return runExit;
  switch (report.verdict ?? (report.verdict_ok ? 'met' : 'missed')) {
    case 'missed':
      return EXIT.THRESHOLDS_FAILED;
    case 'not_measured':
      return EXIT.NOT_MEASURED;
    case 'inconclusive':
      return report.allow_inconclusive ? EXIT.OK : EXIT.INCONCLUSIVE;
    default:
      return EXIT.OK;
  }
}
