/**
 * JUnit XML for CI systems: one testsuite per run, one testcase per budget verdict; a missed budget is a
 * <failure> whose message names the metric, the level, the budget and the measured value; an inconclusive
 * one a <failure> too (skipped with --allow-inconclusive); a budget or level not measured an <error>.
 * Built with junit-report-builder (xmlbuilder escapes the text).
 */
import junit from 'junit-report-builder';
import type { RunReport } from '../lib/summary/types.ts';
import { partialNote } from '../lib/summary/partial.ts';
import { splitMetricKey, verdictMessage } from '../lib/summary/verdicts.ts';
import { stateOf } from '../lib/summary/judge.ts';

/** Renders the run's verdicts (and each level cut short, as an error) as JUnit XML text. */
export function junitXml(report: RunReport): string {
  const builder = junit.newBuilder();
  const suite = builder
    .testSuite()
    .name(`k6-triton ${report.model}`)
    .property('protocol', report.protocol)
    .property('runtime', report.runtime)
    .property('batch', String(report.batch))
    .property('started_at', report.started_at);
  for (const result of report.results) {
    for (const verdict of result.budgets) {
      const { metric } = splitMetricKey(verdict.metric);
      const testCase = suite
        .testCase()
        .className(`${report.model}.${result.name}`)
        .name(`${metric} ${verdict.expr}`)
        .time(result.window_s);
      const state = stateOf(verdict);
      if (state === 'missed') testCase.failure(verdictMessage(verdict), 'BudgetMissed');
      if (state === 'not_measured') testCase.error(verdictMessage(verdict), 'NotMeasured');
      if (state === 'inconclusive') {
        // --allow-inconclusive: reported, not failed; CI systems show a skipped case with its reason.
        if (report.allow_inconclusive) testCase.skipped();
        else testCase.failure(verdictMessage(verdict), 'Inconclusive');
      }
    }
  }
  // A planned level with no request completed: an error, as is a run in which no budget judged anything.
  for (const name of report.unmeasured ?? []) {
    suite
      .testCase()
      .className(`${report.model}.${name}`)
      .name('measurement window')
      .error(`${name}: not measured: no request completed in its window`, 'NotMeasured');
  }
  const judged = report.results.some((result) => result.budgets.length > 0);
  if (!judged && !report.unmeasured?.length && !report.partial?.length) {
    suite
      .testCase()
      .className(report.model)
      .name('budgets')
      .error('not measured: no budget judged a measured level', 'NotMeasured');
  }
  // A level cut short was not measured: an error (the run did not finish), neither a pass nor a budget miss.
  for (const level of report.partial ?? []) {
    suite
      .testCase()
      .className(`${report.model}.${level.name}`)
      .name('measurement window')
      .time(level.measured_s)
      .error(`${level.name}: ${partialNote(level)}`, 'Interrupted');
  }
  return builder.build();
}
