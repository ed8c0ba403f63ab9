/**
 * Every chart kind as a person sees it, in headless chromium: a tensor run's report.html (mnist), a generative
 * run's (gpt2) and a sweep's pareto.svg (mnist). Each chart is screenshotted to a PNG in a temporary folder
 * (its path is printed, to look at) and checked for what the eye would: marks drawn, axis titles with units,
 * tick labels, level names, unstable levels in the legend, budgets with units, and no empty chart.
 *
 * The data are real short runs against the embedded server, kept in fixtures/ so the test takes seconds:
 *   bench mnist --concurrency 1:4:1 --step-duration 2s --warmup 1s --runtime node  (summary.json's report)
 *   bench gpt2 --concurrency 1:3:1 --step-duration 3s --warmup 1s --runtime node   (summary.json's report)
 *   bench gpt2 --concurrency 1,2 --step-duration 3s --warmup 1s --conversation-num 4
 *     --conversation-turn-mean 3 --runtime node                                    (summary.json's report)
 *   sweep mnist --instances 1,2 --max-queue-delay-us 0 --concurrency 1,2,4 --step-duration 2s --warmup 1s
 *     --runtime node                                                               (sweep.json)
 * Skips, saying why, when chromium is absent.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../../lib/summary/types.ts';
import { type SweepRecord, writeSweep } from '../../../measure/sweep/sweep-report.ts';
import { writeRunReport } from '../../../report/write.ts';
import { launchChromium, NO_BROWSER } from './browser.ts';

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as T;

/** What a person sees in one chart's SVG. */
interface Seen {
  /** Axis titles, x axes first. */
  xTitles: string[];
  yTitles: string[];
  xTicks: string[];
  yTicks: string[];
  /** Text drawn as marks: level names, budget labels. */
  markTexts: string[];
  legend: string[];
  symbols: number;
  lines: number;
  rects: number;
}

/** The part of the DOM used in the page (tsconfig has no DOM lib; this runs in the page). */
interface Node_ {
  querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }>;
}

async function seen(svg: Locator): Promise<Seen> {
  return svg.evaluate((root) => {
    const node = root as unknown as Node_;
    const texts = (selector: string) =>
      Array.from(node.querySelectorAll(selector)).map((e) => e.textContent ?? '');
    const count = (selector: string) => node.querySelectorAll(selector).length;
    return {
      xTitles: texts('g.role-axis[aria-label^="X-axis"] g.role-axis-title text'),
      yTitles: texts('g.role-axis[aria-label^="Y-axis"] g.role-axis-title text'),
      xTicks: texts('g.role-axis[aria-label^="X-axis"] g.role-axis-label text'),
      yTicks: texts('g.role-axis[aria-label^="Y-axis"] g.role-axis-label text'),
      markTexts: texts('g.role-mark.mark-text text'),
      legend: texts('g.role-legend text'),
      symbols: count('g.role-mark.mark-symbol path'),
      lines: count('g.role-mark.mark-line path'),
      rects: count('g.role-mark.mark-rect path'),
    };
  });
}

/** Screenshots an element to dir/name.png and returns the file's size: an empty crop is a few hundred bytes. */
async function shoot(element: Locator, dir: string, name: string): Promise<number> {
  const path = join(dir, `${name}.png`);
  await element.screenshot({ path });
  return statSync(path).size;
}

/** Tick labels of a whole-number axis: 1, 2, 3 (with thousands commas), never 1.2. */
const WHOLE = /^\d{1,3}(,\d{3})*$/;

if (NO_BROWSER) console.log(`chart screenshots skipped: ${NO_BROWSER}`);

describe.skipIf(NO_BROWSER !== undefined)('the charts in headless chromium, as a person sees them', () => {
  const shots = mkdtempSync(join(tmpdir(), 'k6-triton-charts-'));
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
    console.log(`chart screenshots: ${shots}`);
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Writes a run's report.html into the shots folder and opens it. */
  async function openRun(name: string, run: RunReport, budget: { p95_ms: number; p99_ms: number }) {
    const dir = join(shots, name);
    const written = await writeRunReport(dir, run, {}, { budget });
    expect(written.errors).toEqual([]);
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(pathToFileURL(join(dir, 'report.html')).href, { waitUntil: 'load' });
    await page.screenshot({ path: join(shots, `${name}-page.png`), fullPage: true });
    return page;
  }

  /** One chart of the page: screenshotted, and what it shows. */
  async function chart(page: Page, prefix: string, id: string): Promise<Seen> {
    const figure = page.locator(`figure[data-chart="${id}"]`);
    expect(await figure.count(), `chart ${id} drawn`).toBe(1);
    expect(await shoot(figure, shots, `${prefix}-${id}`), `${id} screenshot`).toBeGreaterThan(10_000);
    return seen(figure.locator('svg'));
  }

  describe('a tensor run (bench mnist, c1..c4, c4 unstable)', () => {
    const run = fixture<RunReport>('mnist-run.json');
    const names = run.results.map((result) => result.name);
    let page: Page;
    beforeAll(async () => {
      page = await openRun('mnist', run, { p95_ms: 20, p99_ms: 50 });
    });
    afterAll(async () => {
      await page?.close();
    });

    it('the fixture has what the charts must show: four levels, the last unstable', () => {
      expect(names).toEqual(['c1', 'c2', 'c3', 'c4']);
      expect(run.results.map((result) => result.stable)).toEqual([true, true, true, false]);
    });

    it('throughput: a point per level, named, whole-number concurrency ticks, "unstable" in the legend', async () => {
      const s = await chart(page, 'mnist', 'throughput');
      expect(s.xTitles).toEqual(['Concurrency']);
      expect(s.yTitles).toEqual(['Throughput (infer/s)']);
      expect(s.xTicks.length).toBeGreaterThanOrEqual(3);
      for (const tick of s.xTicks) expect(tick).toMatch(WHOLE);
      expect(s.yTicks.length).toBeGreaterThanOrEqual(3);
      expect(s.symbols).toBe(4);
      expect(s.lines).toBe(1);
      expect([...s.markTexts].sort()).toEqual(names);
      expect(s.legend).toContain('unstable');
    });

    it('latency vs throughput: four percentile lines, each level named once, the unstable one ringed, budgets in ms', async () => {
      const s = await chart(page, 'mnist', 'percentiles');
      expect(s.xTitles).toEqual(['Throughput (infer/s)']);
      expect(s.yTitles).toEqual(['Latency (ms)']);
      expect(s.xTicks.length).toBeGreaterThanOrEqual(3);
      expect(s.yTicks.length).toBeGreaterThanOrEqual(3);
      expect(s.lines).toBe(4);
      // 4 percentiles x 4 levels, and a ring round each of c4's 4 points.
      expect(s.symbols).toBe(16 + 4);
      for (const name of names) expect(s.markTexts.filter((t) => t === name)).toHaveLength(1);
      expect(s.legend).toEqual(expect.arrayContaining(['p50', 'p90', 'p95', 'p99', 'unstable']));
      // p99 near 10 ms on this run: the 20 and 50 ms budgets lie above the axis, said so with their units.
      expect(s.markTexts).toContain('↑ p95 budget 20 ms (above the chart)');
      expect(s.markTexts).toContain('↑ p99 budget 50 ms (above the chart)');
    });

    it('latency by component: a stacked bar per level with height, the components named', async () => {
      const s = await chart(page, 'mnist', 'components');
      expect(s.yTitles).toEqual(['Average latency (ms)']);
      expect(s.xTicks).toEqual(names);
      expect(s.rects).toBe(7 * 4);
      expect(s.legend).toEqual(expect.arrayContaining(['Client send', 'Compute infer', 'Client recv']));
      expect(await page.locator('#breakdown').count()).toBe(1);
    });

    it('server metrics: lines over time with units, each level window named', async () => {
      const s = await chart(page, 'mnist', 'server-metrics');
      expect(s.xTitles).toContain('Time since the first scrape (s)');
      expect(s.yTitles).toEqual(['Per request (ms)', 'Utilisation (%)']);
      expect(s.lines).toBeGreaterThanOrEqual(3);
      for (const name of names) expect(s.markTexts).toContain(name);
    });
  });

  describe('a generative run (bench gpt2, c1..c3)', () => {
    const run = fixture<RunReport>('gpt2-run.json');
    let page: Page;
    beforeAll(async () => {
      page = await openRun('gpt2', run, { p95_ms: 1000, p99_ms: 2000 });
    });
    afterAll(async () => {
      await page?.close();
    });

    it('draws only the charts with data: no latency-by-component chart nor breakdown table of zeros', async () => {
      const ids = await page
        .locator('figure[data-chart]')
        .evaluateAll((figures) =>
          figures.map((f) =>
            (f as unknown as { getAttribute(n: string): string }).getAttribute('data-chart'),
          ),
        );
      expect(ids).toEqual(['throughput', 'percentiles', 'tokens', 'server-metrics']);
      expect(await page.locator('#breakdown').count()).toBe(0);
      expect(await page.locator('[data-chart-error]').count()).toBe(0);
    });

    it('tokens: TTFT, ITL and tokens/s panels with units, concurrency ticked at whole numbers only', async () => {
      const s = await chart(page, 'gpt2', 'tokens');
      expect(s.yTitles).toEqual(['TTFT (ms)', 'ITL (ms)', 'Output tokens/s']);
      expect(s.xTitles).toEqual(['Concurrency', 'Concurrency', 'Concurrency']);
      // c1..c3: ticks 1, 2, 3 on each panel, not 1.0, 1.2, ...
      expect(s.xTicks).toEqual(['1', '2', '3', '1', '2', '3', '1', '2', '3']);
      // Three percentile lines in two panels, one tokens/s line; a point per level on each.
      expect(s.lines).toBe(7);
      expect(s.symbols).toBe(7 * 3);
      expect(s.legend).toEqual(expect.arrayContaining(['p50', 'p95', 'p99']));
    });

    it('throughput and latency charts name the levels and tick whole numbers', async () => {
      const t = await chart(page, 'gpt2', 'throughput');
      expect(t.xTicks).toEqual(['1', '2', '3']);
      expect([...t.markTexts].sort()).toEqual(['c1', 'c2', 'c3']);
      // Every level judged stable or not judged: the legend names no "unstable" it does not draw.
      expect(t.legend).not.toContain('unstable');
      const l = await chart(page, 'gpt2', 'percentiles');
      expect(l.yTitles).toEqual(['Latency (ms)']);
      expect(l.markTexts).toEqual(expect.arrayContaining(['c1', 'c2', 'c3']));
      expect(l.markTexts).toContain('↑ p95 budget 1000 ms (above the chart)');
    });

    it('words its budget values with units and two decimals', async () => {
      const budgets = await page.locator('#budgets + table').textContent();
      expect(budgets).toMatch(/genai_ttft.*?\d+\.\d\d ms/s);
      expect(budgets).not.toMatch(/\d+\.\d{4}/);
    });
  });

  describe('a multi-turn run (bench gpt2, c1 and c2, three-turn sessions)', () => {
    const run = fixture<RunReport>('gpt2-conversation-run.json');
    let page: Page;
    beforeAll(async () => {
      page = await openRun('gpt2-conversations', run, { p95_ms: 1000, p99_ms: 2000 });
    });
    afterAll(async () => {
      await page?.close();
    });

    it('the fixture has what the chart must show: two levels of three measured turns', () => {
      expect(run.results.map((r) => r.genai!.conversation!.turns.map((t) => t.turn))).toEqual([
        [1, 2, 3],
        [1, 2, 3],
      ]);
    });

    it('turns: TTFT and latency panels with units, turns ticked 1, 2, 3, a line per level and percentile', async () => {
      const s = await chart(page, 'gpt2-conversations', 'turns');
      expect(s.yTitles).toEqual(['TTFT (ms)', 'Latency (ms)']);
      expect(s.xTitles).toEqual(['Turn', 'Turn']);
      expect(s.xTicks).toEqual(['1', '2', '3', '1', '2', '3']);
      // Two levels x two percentiles in each of two panels; a point per turn on each line.
      expect(s.lines).toBe(8);
      expect(s.symbols).toBe(8 * 3);
      expect(s.legend).toEqual(expect.arrayContaining(['c1', 'c2', 'p50', 'p95']));
      expect(await page.locator('[data-chart-error]').count()).toBe(0);
    });
  });

  describe("a sweep's pareto.svg (sweep mnist, 2 configurations x c1, c2, c4)", () => {
    const record = fixture<SweepRecord>('mnist-sweep.json');
    const points = record.ranking.reduce((n, ranked) => n + ranked.levels.length, 0);

    /** Writes the sweep's files with this p95 budget and opens pareto.svg. */
    async function openPareto(name: string, p95_ms: number) {
      const dir = join(shots, name);
      expect(await writeSweep(dir, { ...record, budget: { ...record.budget, p95_ms } })).toEqual([]);
      const page = await browser.newPage({ viewport: { width: 900, height: 500 } });
      await page.goto(pathToFileURL(join(dir, 'pareto.svg')).href, { waitUntil: 'load' });
      const svg = page.locator('svg').first();
      expect(await shoot(svg, shots, name)).toBeGreaterThan(10_000);
      return { page, seen: await seen(svg) };
    }

    it('as run (budget 20 ms among the points): every point named by level, the budget drawn in place', async () => {
      const { page, seen: s } = await openPareto('sweep', record.budget.p95_ms);
      try {
        expect(points).toBe(6);
        expect(s.xTitles).toEqual(['p95 latency (ms)']);
        expect(s.yTitles).toEqual(['Throughput (infer/s)']);
        expect(s.xTicks.length).toBeGreaterThanOrEqual(4);
        expect(s.symbols).toBe(points);
        expect(s.markTexts.filter((t) => /^c\d+$/.test(t))).toHaveLength(points);
        expect(s.markTexts).toContain('p95 budget 20 ms');
        expect(s.legend).toEqual(expect.arrayContaining(['on the front', 'dominated']));
      } finally {
        await page.close();
      }
    });

    it('with a budget far beyond the points (200 ms): the axis fits the points, the budget at the right edge', async () => {
      const { page, seen: s } = await openPareto('sweep-far-budget', 200);
      try {
        expect(s.markTexts).toContain('p95 budget 200 ms (beyond the chart) →');
        // The axis ends near the highest p95 (about 24 ms), not at 200.
        const ticks = s.xTicks.map((t) => Number(t.replace(/,/g, '')));
        expect(Math.max(...ticks)).toBeLessThan(40);
        // The points spread over the plot: the rightmost sits past its middle.
        const xs = await page
          .locator('g.role-mark.mark-symbol path')
          .evaluateAll((paths) =>
            paths.map((p) =>
              Number(
                /translate\(([\d.]+)/.exec(
                  (p as unknown as { getAttribute(n: string): string }).getAttribute('transform'),
                )?.[1],
              ),
            ),
          );
        expect(xs).toHaveLength(points);
        expect(Math.max(...xs)).toBeGreaterThan(560 / 2);
      } finally {
        await page.close();
      }
    });
  });
});
