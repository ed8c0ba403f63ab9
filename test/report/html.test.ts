import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HTML_CHARTS, reportHtml } from '../../report/html.ts';
import { writeRunReport } from '../../report/write.ts';
import { report } from './fixture.ts';
import { HTML_BUDGET, htmlRun } from './html-fixture.ts';

describe('report.html', () => {
  it('holds the tables, the verdicts, the generator section and one inline SVG per chart', async () => {
    const html = await reportHtml(htmlRun(), { budget: HTML_BUDGET });
    expect(html.startsWith('<!doctype html>')).toBe(true);
    // A tensor run: every chart but the generative run's tokens.
    for (const id of HTML_CHARTS.filter((id) => id !== 'tokens'))
      expect(html).toMatch(new RegExp(`<figure id="chart-${id}" data-chart="${id}"><svg`));
    expect(html).not.toContain('data-chart="tokens"');
    expect(html).toContain('id="breakdown"');
    expect(html).toContain('<th>Throughput (infer/s)</th>');
    expect(html).toContain('<td>1250.3</td>');
    expect(html).toContain('<strong>FAIL</strong>');
    expect(html).toContain('data-verdict="missed"');
    expect(html).toContain('load generator bound');
    expect(html).toContain('p95 budget 2 ms');
    expect(html).not.toContain('data-chart-error');
  });

  it('references nothing outside the file (no script, stylesheet, image or font to fetch)', async () => {
    const html = await reportHtml(htmlRun(), { budget: HTML_BUDGET });
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(/i);
    // The only absolute URLs are SVG namespace names, which are never fetched.
    const urls = [...html.matchAll(/https?:\/\/[^\s"')]+/g)].map((m) => m[0]);
    expect(urls.filter((url) => !url.startsWith('http://www.w3.org/'))).toEqual([]);
  });

  it('escapes the model name and says so when no level was measured', async () => {
    const empty = { ...report([]), model: '<b>m&1</b>' };
    const html = await reportHtml(empty);
    expect(html).toContain('&#60;b&#62;m&#38;1&#60;/b&#62;: throughput and latency');
    expect(html).not.toContain('<b>m');
    expect(html).toContain('No level completed a request');
    expect(html).not.toContain('<figure');
  });

  it('is written by writeRunReport beside the other files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'k6t-html-'));
    const written = await writeRunReport(dir, htmlRun(), {}, { budget: HTML_BUDGET });
    expect(written.errors).toEqual([]);
    expect(written.files['report.html']).toBe(join(dir, 'report.html'));
    expect(await readFile(join(dir, 'report.html'), 'utf8')).toContain('data-chart="components"');
  });
});
