/**
 * report.html in a real browser (Debian's chromium, driven by playwright-core): the page loads with no
 * console error and no request leaving the file, and every chart is drawn with its marks. A screenshot is
 * left in results/report-html-test/ for the developer. Skips, saying why, when chromium is absent.
 * By default the page is a fixture run's; REPORT_HTML=results/<model>/<run-id>/report.html checks a real
 * run's page instead (its levels read from the summary.json beside it).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTML_CHARTS } from '../../../report/html.ts';
import { writeRunReport } from '../../../report/write.ts';
import type { RunReport } from '../../../lib/summary/types.ts';
import { HTML_BUDGET, HTML_FAR_BUDGET, htmlFarUnderBudgetRun, htmlRun } from '../../report/html-fixture.ts';
import { launchChromium, NO_BROWSER } from './browser.ts';

const OUT_DIR = fileURLToPath(new URL('../../../results/report-html-test/', import.meta.url));
const REAL_PAGE = process.env.REPORT_HTML ? resolve(process.env.REPORT_HTML) : undefined;
/** The part of SVGGraphicsElement used here (tsconfig has no DOM lib; this runs in the page). */
interface SvgShape {
  getBBox(): { y: number; height: number };
}

if (NO_BROWSER) console.log(`report.html browser test skipped: ${NO_BROWSER}`);

describe.skipIf(NO_BROWSER !== undefined)('report.html in headless chromium', () => {
  const run: RunReport = REAL_PAGE
    ? JSON.parse(readFileSync(join(dirname(REAL_PAGE), 'summary.json'), 'utf8')).report
    : htmlRun();
  const pagePath = REAL_PAGE ?? join(OUT_DIR, 'report.html');
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];
  const outsideRequests: string[] = [];

  beforeAll(async () => {
    if (!REAL_PAGE) {
      const written = await writeRunReport(OUT_DIR, run, {}, { budget: HTML_BUDGET });
      expect(written.errors).toEqual([]);
    }
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    // The file must be self-contained: record, and refuse, anything that is not the file itself.
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      outsideRequests.push(url);
      return route.abort();
    });
    await page.goto(pathToFileURL(pagePath).href, { waitUntil: 'load' });
    const shot = join(OUT_DIR, REAL_PAGE ? 'real-run.png' : 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`report.html screenshot: ${shot}`);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('loads with no console error and no request outside the file', () => {
    expect(consoleErrors).toEqual([]);
    expect(outsideRequests).toEqual([]);
  });

  // The server-metrics chart exists when the run scraped the target's metrics (the fixture did); the tokens
  // chart for a generative run, the components chart for the others (charts-browser.test.ts looks at both).
  const generative = run.results.some((result) => result.genai);
  const charts = HTML_CHARTS.filter(
    (id) =>
      (id !== 'server-metrics' || run.server_timeline) &&
      (id !== 'tokens' || generative) &&
      (id !== 'components' || !generative),
  );

  it('draws every chart at a visible size', async () => {
    expect(charts).toContain(REAL_PAGE ? 'components' : 'server-metrics');
    for (const id of charts) {
      const box = await page.locator(`figure[data-chart="${id}"] > svg`).boundingBox();
      expect(box, `chart ${id}`).not.toBeNull();
      expect(box!.width, `chart ${id} width`).toBeGreaterThan(300);
      expect(box!.height, `chart ${id} height`).toBeGreaterThan(200);
    }
    expect(await page.locator('[data-chart-error]').count()).toBe(0);
  });

  it('draws the marks: a line and a point per level, four percentile lines and the budgets, 7 components per level', async () => {
    const marks = (id: string, selector: string) =>
      page.locator(`figure[data-chart="${id}"] g.role-mark.${selector}`).count();
    const levels = run.results.length;
    expect(await marks('throughput', 'mark-line > path')).toBe(1);
    expect(await marks('throughput', 'mark-symbol > path')).toBe(levels);
    expect(await marks('percentiles', 'mark-line > path')).toBe(4);
    // A point per percentile and level, and a red ring round each point of an unstable level.
    const unstable = run.results.filter((result) => result.stable === false).length;
    expect(await marks('percentiles', 'mark-symbol > path')).toBe(4 * levels + 4 * unstable);
    // The fixture has both budgets; a bench run draws its model's p95 and p99 budgets.
    expect(await marks('percentiles', 'mark-rule > line')).toBe(2);
    expect(await marks('components', 'mark-rect > path')).toBe(7 * levels);
    // A bar with height: the stacked components were laid out, not collapsed to zero.
    const tallest = await page
      .locator('figure[data-chart="components"] g.role-mark.mark-rect > path')
      .evaluateAll((paths) => Math.max(...paths.map((p) => (p as unknown as SvgShape).getBBox().height)));
    expect(tallest).toBeGreaterThan(50);
    const legend = await page.locator('figure[data-chart="components"] svg').textContent();
    for (const name of ['Client send', 'Network+server', 'Server queue', 'Compute infer', 'Client recv'])
      expect(legend).toContain(name);
    const budgetText = await page.locator('figure[data-chart="percentiles"] svg').textContent();
    expect(budgetText).toMatch(REAL_PAGE ? /p95 budget [\d.]+ ms/ : /p95 budget 2 ms/);
  });

  it.skipIf(!run.server_timeline)(
    'draws the server metrics over time: a shaded window per level in each panel, queue, compute and CPU lines',
    async () => {
      const marks = (selector: string) =>
        page.locator(`figure[data-chart="server-metrics"] g.role-mark.${selector}`).count();
      const timeline = run.server_timeline!;
      expect(await marks('mark-rect > path')).toBe(2 * timeline.windows.length);
      const served = (
        key: 'avg_queue_us' | 'avg_compute_infer_us' | 'cpu_utilization_pct' | 'gpu_utilization_pct',
      ) => (timeline.points.some((p) => p[key] !== undefined) ? 1 : 0);
      const lines =
        served('avg_queue_us') +
        served('avg_compute_infer_us') +
        served('cpu_utilization_pct') +
        served('gpu_utilization_pct');
      expect(await marks('mark-line > path')).toBe(lines);
      const text = await page.locator('figure[data-chart="server-metrics"] svg').textContent();
      for (const label of [
        'Per request (ms)',
        'Utilisation (%)',
        'Queue',
        'Compute infer',
        ...timeline.windows.map((w) => w.level),
      ])
        expect(text).toContain(label);
      // A line that rises: the queue grew with the level, so the drawn path spans some height.
      const tallest = await page
        .locator('figure[data-chart="server-metrics"] g.role-mark.mark-line > path')
        .evaluateAll((paths) => Math.max(...paths.map((p) => (p as unknown as SvgShape).getBBox().height)));
      expect(tallest).toBeGreaterThan(20);
    },
  );

  it.skipIf(REAL_PAGE)(
    'spreads the percentile lines of a run far under budget over the chart, the budgets at its top edge',
    async () => {
      // ~1 ms against 20 and 50 ms budgets: on an axis up to the budgets every line lay on the floor.
      const dir = join(OUT_DIR, 'far-under-budget');
      const written = await writeRunReport(dir, htmlFarUnderBudgetRun(), {}, { budget: HTML_FAR_BUDGET });
      expect(written.errors).toEqual([]);
      const far = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      try {
        await far.goto(pathToFileURL(join(dir, 'report.html')).href, { waitUntil: 'load' });
        await far.screenshot({ path: join(dir, 'report.png'), fullPage: true });
        const chart = far.locator('figure[data-chart="percentiles"]');
        // Each line's middle height in the plot (pixels from its top), p50 at the bottom to p99 at the top.
        const middles = await chart.locator('g.role-mark.mark-line > path').evaluateAll((paths) =>
          paths.map((p) => {
            const box = (p as unknown as SvgShape).getBBox();
            return box.y + box.height / 2;
          }),
        );
        expect(middles).toHaveLength(4);
        const sorted = [...middles].sort((a, b) => b - a);
        // The plot is 320 px high: the lines part by tens of pixels, p50 to p99 over a third of it.
        for (let i = 1; i < sorted.length; i++) expect(sorted[i - 1]! - sorted[i]!).toBeGreaterThan(15);
        expect(sorted[0]! - sorted[3]!).toBeGreaterThan(100);
        const text = await chart.locator('svg').textContent();
        expect(text).toContain('p95 budget 20 ms (above the chart)');
        expect(text).toContain('p99 budget 50 ms (above the chart)');
        expect(await chart.locator('g.role-mark.mark-rule > line').count()).toBe(2);
      } finally {
        await far.close();
      }
    },
  );

  it.skipIf(REAL_PAGE)('shows the tables and verdicts of the fixture as text', async () => {
    expect(await page.locator('table').count()).toBe(4);
    expect(await page.locator('[data-verdict]').textContent()).toContain('1 budget(s) missed');
    expect(await page.locator('body').textContent()).toContain('load generator bound');
    expect(await page.locator('table strong', { hasText: 'FAIL' }).count()).toBe(1);
  });
});
