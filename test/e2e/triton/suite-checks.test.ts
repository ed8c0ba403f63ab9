/**
 * The rules test/triton/suite-on-triton.ts judges real Triton runs by: the server columns against
 * perf_analyzer's (20%, or 5 us for the few-microsecond columns) and what every level must carry.
 */
import { describe, expect, it } from 'vitest';
import type { LevelResult, RunReport } from '../../../lib/summary/types.ts';
import { reportProblems } from './level-checks.ts';
import { compareServerColumns, readCsvLevels } from './pa-agreement.ts';

const HEADER =
  'Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server Compute Input,Server Compute Infer,Server Compute Output,Client Recv';

describe('compareServerColumns', () => {
  const reference = readCsvLevels(`${HEADER}\n2,3000.5,80,300,400,6,50,6,10\n1,2000,70,200,100,5,40,5,9\n`);

  it('reads perf_analyzer rows by concurrency', () => {
    expect(reference.get(2)?.['Server Queue']).toBe(400);
    expect(reference.get(1)?.['Inferences/Second']).toBe(2000);
  });

  it('passes columns within 20%, or within 5 us, and fails the others', () => {
    const suite = readCsvLevels(`${HEADER}\n1,1900,70,200,119,9,49,11,9\n`);
    const { comparisons, missing } = compareServerColumns(suite, reference, [1]);
    expect(missing).toEqual([]);
    const ok = Object.fromEntries(comparisons.map((c) => [c.column, c.ok]));
    // 119 vs 100: within 20%; 9 vs 5: within 5 us; 49 vs 40: 22.5% and 9 us; 11 vs 5: 6 us.
    expect(ok).toEqual({
      'Server Queue': true,
      'Server Compute Input': true,
      'Server Compute Infer': false,
      'Server Compute Output': false,
    });
  });

  it("names a level missing from perf_analyzer's file, which it leaves out when the level never stabilised", () => {
    const suite = readCsvLevels(`${HEADER}\n1,1900,70,200,100,5,40,5,9\n3,1900,70,200,100,5,40,5,9\n`);
    const { missing } = compareServerColumns(suite, reference, [1, 3]);
    expect(missing).toEqual(['perf_analyzer has no row for c3 (the level never stabilised)']);
  });
});

describe('reportProblems', () => {
  const level = (name: string, over: Partial<LevelResult> = {}): LevelResult =>
    ({
      name,
      requests: 100,
      errors: 0,
      budgets: [{ metric: 'x', expr: 'p(95)<20', ok: true, measured: 1 }],
      server: {
        request_count: 100,
        queue_us: 100,
        compute_input_us: 5,
        compute_infer_us: 40,
        compute_output_us: 5,
      },
      server_metrics: {
        interval_s: 2,
        scrapes: 4,
        request_success: 100,
        request_failure: 0,
        avg_compute_infer_us: 40,
      },
      ...over,
    }) as LevelResult;
  const report = (results: LevelResult[]) => ({ results }) as RunReport;

  it('passes levels with statistics and metrics', () => {
    expect(
      reportProblems(report([level('c1'), level('c2')]), { levels: ['c1', 'c2'], metrics: true }),
    ).toEqual([]);
  });

  it('names a missing level, a zero stage, errors and absent metrics', () => {
    const bad = level('c2', {
      errors: 3,
      server: {
        request_count: 10,
        queue_us: 0,
        compute_input_us: 5,
        compute_infer_us: 40,
        compute_output_us: 5,
      },
    });
    delete bad.server_metrics;
    expect(reportProblems(report([bad]), { levels: ['c1', 'c2'], metrics: true })).toEqual([
      'c1 missing',
      'c2 has 3 failed requests',
      "c2's server statistics have queue_us at 0",
      'c2 has no server metrics (Prometheus)',
    ]);
  });

  it('does not ask for metrics when the run scraped none', () => {
    const noMetrics = level('c1');
    delete noMetrics.server_metrics;
    expect(reportProblems(report([noMetrics]), { levels: ['c1'], metrics: false })).toEqual([]);
  });
});
