/**
 * A level cut short: its window started (the stats probe's Gauge) but had not ended when the run stopped.
 * It is left out of the level results, the CSV and the tables, and named as not measured in report.md
 * and JUnit; a whole level, and a run that went to its end, are unchanged.
 */
import { describe, expect, it } from 'vitest';
import { levelsFromSummary } from '../../../lib/summary/from-summary.ts';
import { cutLevels, partialNote } from '../../../lib/summary/partial.ts';
import type { RunReport } from '../../../lib/summary/types.ts';
import { perfAnalyzerCsv } from '../../../report/csv.ts';
import { junitXml } from '../../../report/junit.ts';
import { reportMarkdown } from '../../../report/markdown.ts';
import { level, report, summary } from '../../report/fixture.ts';

/** c1's window started at 1,000,000 ms, c2's 5 s later; both are 5 s long. */
const START_MS = 1_000_000;
const withStarts = {
  ...summary,
  metrics: {
    ...summary.metrics,
    'k6_triton_window_start_ms{scenario:c1_stats}': { type: 'gauge', values: { value: START_MS } },
    'k6_triton_window_start_ms{scenario:c2_stats}': { type: 'gauge', values: { value: START_MS + 5000 } },
  },
};
const LEVELS = [
  { name: 'c1', mode: 'concurrency' as const, level: 1, window_s: 5, start_s: 0 },
  { name: 'c2', mode: 'concurrency' as const, level: 2, window_s: 5, start_s: 5 },
  { name: 'c4', mode: 'concurrency' as const, level: 4, window_s: 5, start_s: 10 },
];

describe('a level cut short', () => {
  it('is left out of the level results when the run stopped inside its window', () => {
    const cut = levelsFromSummary({
      summary: withStarts,
      batch: 1,
      levels: LEVELS,
      stopped_ms: START_MS + 8700,
    });
    expect(cut.map((r) => r.name)).toEqual(['c1']);
    const whole = levelsFromSummary({
      summary: withStarts,
      batch: 1,
      levels: LEVELS,
      stopped_ms: START_MS + 10_050,
    });
    expect(whole.map((r) => r.name)).toEqual(['c1', 'c2']);
  });

  it('is kept out when handleSummary runs mid-window, and a past run is whole', () => {
    // Without stopped_ms, "now" decides: these windows are long over.
    expect(levelsFromSummary({ summary: withStarts, batch: 1, levels: LEVELS }).map((r) => r.name)).toEqual([
      'c1',
      'c2',
    ]);
  });

  it('says how much of its window ran; levels never started are not named', () => {
    const cut = cutLevels(withStarts.metrics, LEVELS, START_MS + 8700);
    expect(cut).toEqual([{ name: 'c2', mode: 'concurrency', level: 2, window_s: 5, measured_s: 3.7 }]);
    expect(partialNote(cut[0]!)).toBe('not measured (interrupted after 3.7 s of 5 s)');
    expect(cutLevels(withStarts.metrics, LEVELS, START_MS + 10_000)).toEqual([]);
  });

  it('is named in report.md and JUnit as not measured, and is no CSV row', () => {
    const partial = [{ name: 'c2', mode: 'concurrency' as const, level: 2, window_s: 5, measured_s: 3.7 }];
    const run: RunReport = {
      ...report([level({ level: 1, throughput_infer_s: 700 })]),
      interrupted: 'SIGINT',
      partial,
    };
    const markdown = reportMarkdown(run);
    expect(markdown).toContain('**Run interrupted (SIGINT)**');
    expect(markdown).toContain('- c2: not measured (interrupted after 3.7 s of 5 s)');
    expect(markdown).not.toMatch(/^\| 2 \|/m);
    const junit = junitXml(run);
    expect(junit).toMatch(/errors="1"/);
    expect(junit).toMatch(
      /classname="mnist\.c2" name="measurement window"[^>]*>\s*<error message="c2: not measured \(interrupted after 3\.7 s of 5 s\)" type="Interrupted"/,
    );
    expect(perfAnalyzerCsv(run.results).trim().split('\n').slice(1)).toEqual([expect.stringMatching(/^1,/)]);
  });

  it('leaves a whole run as it was', () => {
    const met = {
      metric: 'http_req_duration{scenario:c1}',
      expr: 'p(95)<20',
      ok: true,
      measured: 2,
      state: 'met' as const,
    };
    const whole = report([level({ level: 1, throughput_infer_s: 700, budgets: [met] })]);
    expect(reportMarkdown(whole)).not.toContain('interrupted');
    expect(junitXml(whole)).toMatch(/errors="0"/);
  });
});
