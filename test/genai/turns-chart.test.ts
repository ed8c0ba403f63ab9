/** report.html's per-turn chart: TTFT and latency p50/p95 by turn index for a multi-turn run, absent otherwise. */
import { describe, expect, it } from 'vitest';
import { turnsChartApplies, turnsSpec } from '../../report/genai-charts.ts';
import { reportHtml } from '../../report/html.ts';
import { generativeHtmlRun, htmlRun, timeStatsAt } from '../report/html-fixture.ts';

/** The fixture run's levels as a three-turn conversation run's: TTFT growing with the turn and the level. */
const conversationRun = () =>
  generativeHtmlRun((i) => ({
    conversation: {
      sessions: 10,
      failed_sessions: 0,
      session_duration_ms: timeStatsAt(900),
      turns: [1, 2, 3].map((turn) => ({
        turn,
        requests: 10,
        ttft_ms: timeStatsAt(10 * turn + i),
        latency_ms: timeStatsAt(100 * turn + i),
        isl_avg: 40 * turn,
      })),
    },
  }));

interface Panel {
  data: { values: { turn: number; level: string; percentile: string; ms: number }[] };
  encoding: { x: { title: string; axis: unknown }; y: { title: string } };
}

describe('the per-turn chart', () => {
  it('plots TTFT and latency p50 and p95 by turn, a line per level and percentile', () => {
    const run = conversationRun();
    const spec = turnsSpec(run.results) as unknown as { vconcat: Panel[] };
    expect(spec.vconcat.map((p) => p.encoding.y.title)).toEqual(['TTFT (ms)', 'Latency (ms)']);
    expect(spec.vconcat[0]!.encoding.x).toMatchObject({
      title: 'Turn',
      axis: { tickMinStep: 1, format: 'd' },
    });
    const [ttft, latency] = spec.vconcat.map((p) => p.data.values);
    const first = run.results[0]!.name;
    // 2 percentiles x 3 turns per level.
    expect(ttft).toHaveLength(run.results.length * 6);
    expect(ttft).toContainEqual({ turn: 3, level: first, percentile: 'p95', ms: 60 });
    expect(latency).toContainEqual({ turn: 2, level: first, percentile: 'p50', ms: 200 });
  });

  it('is drawn in report.html for a multi-turn run only', async () => {
    const html = await reportHtml(conversationRun());
    expect(html).toMatch(/<figure id="chart-turns" data-chart="turns"><svg/);
    expect(html).not.toContain('data-chart-error');
    const single = htmlRun();
    expect(turnsChartApplies(single.results)).toBe(false);
    expect(await reportHtml(single)).not.toContain('data-chart="turns"');
  });
});
