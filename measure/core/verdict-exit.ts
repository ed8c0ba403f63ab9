/**
 * A command's exit code from how its runtime ended and what its report may claim: k6's own code when the
 * run broke (105 stopped, 107 script exception, ...), else the verdict's: 99 missed, 96 not measured, 95
 * inconclusive (0 with --allow-inconclusive), 0 met. docs/ci-gates-and-compare.md has the table.
 */
import type { RunReport, RunVerdict } from '../../lib/summary/types.ts';
import { EXIT } from './exit-codes.ts';
import { verdictOf } from '../../lib/summary/judge.ts';

/** The exit code of a verdict reached by a runtime that exited `runExit`. */
export function exitForVerdict(verdict: RunVerdict, runExit: number, allowInconclusive = false): number {
  if (runExit !== EXIT.OK && runExit !== EXIT.THRESHOLDS_FAILED) return runExit;
  switch (verdict) {
    case 'missed':
      return EXIT.THRESHOLDS_FAILED;
    case 'not_measured':
      return EXIT.NOT_MEASURED;
    case 'inconclusive':
      return allowInconclusive ? EXIT.OK : EXIT.INCONCLUSIVE;
    default:
      return EXIT.OK;
  }
}

/** The exit code of a run whose runtime exited `runExit` and whose report is `report`. */
export function verdictExitCode(report: RunReport, runExit: number): number {
  return exitForVerdict(verdictOf(report), runExit, report.allow_inconclusive);
}
