/** report.html's token chart: drawn for a generative run (TTFT, ITL, tokens/s per level), absent otherwise. */
import { describe, expect, it } from 'vitest';
import type { LevelResult } from '../../lib/summary/types.ts';
import { tokensSpec } from '../../report/genai-charts.ts';
import { reportHtml } from '../../report/html.ts';
import { generativeHtmlRun, htmlRun } from '../report/html-fixture.ts';

const generativeRun = () => generativeHtmlRun();

describe('the token chart', () => {
  it('plots TTFT and ITL p50/p95/p99 and output tokens/s against the level', () => {
    const run = generativeRun();
    const spec = tokensSpec(run.results) as unknown as {
      vconcat: { data: { values: Record<string, unknown>[] } }[];
    };
    const first = run.results[0]!;
    expect(spec.vconcat).toHaveLength(3);
    expect(spec.vconcat[0]!.data.values).toContainEqual({ level: first.level, series: 'p95', ms: 28 });
    expect(spec.vconcat[1]!.data.values).toContainEqual({ level: first.level, series: 'p50', ms: 1.9 });
    expect(spec.vconcat[2]!.data.values).toContainEqual({ level: first.level, tokens_per_s: 500 });
  });

  it('is drawn in report.html for a generative run only', async () => {
    const html = await reportHtml(generativeRun());
    expect(html).toMatch(/<figure id="chart-tokens" data-chart="tokens"><svg/);
    expect(html).not.toContain('data-chart-error');
    expect(await reportHtml(htmlRun())).not.toContain('data-chart="tokens"');
  });

  it('leaves out of report.html what a generative run has no figures for: the latency breakdown chart and table', async () => {
    const html = await reportHtml(generativeRun());
    expect(html).not.toContain('data-chart="components"');
    expect(html).not.toContain('id="breakdown"');
    // Its token table, as report.md's, instead.
    expect(html).toContain('<th>TTFT p50 / p95 / p99 (ms)</th>');
  });

  it('ticks the concurrency axis at whole numbers only, and drops a panel with no figure', () => {
    const run = generativeRun();
    const spec = tokensSpec(run.results) as unknown as {
      vconcat: { encoding: { x: { axis: { tickMinStep: number; format: string } } } }[];
    };
    expect(spec.vconcat[0]!.encoding.x.axis).toEqual({ tickMinStep: 1, format: 'd' });
    // One-token answers: no ITL anywhere, so two panels, TTFT and tokens/s.
    const noItl = run.results.map((r) => ({
      ...r,
      genai: { ...r.genai, itl_ms: { avg: Number.NaN, p50: Number.NaN, p95: Number.NaN, p99: Number.NaN } },
    })) as LevelResult[];
    expect((tokensSpec(noItl) as unknown as { vconcat: unknown[] }).vconcat).toHaveLength(2);
  });
});
