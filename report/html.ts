/**
 * report.html: one self-contained page per run (inline CSS and inline SVG charts, no script, no network at
 * view time). The tables are report.md's own (markdown.ts, rendered by marked), so the page and report.md
 * never disagree about a cell; the charts are vega-lite rendered to SVG in Node.
 */
import { marked } from 'marked';
import { levelsWithFigures } from '../lib/summary/failure.ts';
import { generatorWarnings } from '../lib/summary/generator.ts';
import type { LevelResult, RunReport } from '../lib/summary/types.ts';
import { STATE_WORDS } from '../lib/summary/verdicts.ts';
import { verdictOf } from '../lib/summary/judge.ts';
import { componentsSpec, latencyBreakdownApplies, serverMetricsSpec } from './charts.ts';
import { tokensSpec, turnsChartApplies, turnsSpec } from './genai-charts.ts';
import { engineMetricsTable, errorBarSection, prefillTable, slicesTable } from './genai-tables.ts';
import {
  breakdownTable,
  failureNote,
  generativeTable,
  generatorTable,
  interruptedNote,
  levelTable,
  openLoopTable,
  serverMetricsTable,
  validationNote,
  unmeasuredNote,
  verdictTable,
} from './markdown.ts';
import { latencySpec, type PlotBudget, renderSvg, throughputSpec } from './plot.ts';

/** Options of reportHtml. */
export interface HtmlOptions {
  /** Budget lines on the latency chart. */
  budget?: PlotBudget;
}

/**
 * The charts of the page, by id: the browser test and the page's anchors use these ids. Only charts with data
 * are drawn: `components` for a run whose latency splits (latencyBreakdownApplies: not a generative run),
 * `tokens` for a generative run, `server-metrics` when the run has a server timeline (the bench scraped the
 * target's Prometheus metrics).
 */
export const HTML_CHARTS = ['throughput', 'percentiles', 'components', 'tokens', 'server-metrics'] as const;

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: .5rem 0; } th, td { border: 1px solid #ccc; padding: 3px 8px; }
th { background: #f3f3f3; } td { text-align: right; } td:first-child { text-align: left; }
.verdict { padding: .5rem .8rem; border-radius: 4px; display: inline-block; }
.ok { background: #e6f4ea; } .missed { background: #fce8e6; }
blockquote { margin: .5rem 0; padding: .4rem .8rem; background: #fff4e5; border-left: 4px solid #f0a020; }
figure { margin: 1rem 0; } figcaption { color: #555; }
`;

/** Escapes text for HTML element content and attribute values. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Markdown (our own tables and notes) to HTML; sync, as no async extension is used. */
function md(text: string): string {
  return text.trim() === '' ? '' : (marked.parse(text, { async: false }) as string);
}

/** One chart as a figure holding its SVG, or a line saying why it is missing. */
async function figure(id: string, caption: string, render: () => Promise<string>): Promise<string> {
  try {
    const svg = await render();
    return `<figure id="chart-${id}" data-chart="${id}">${svg}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
  } catch (error) {
    // One broken chart must not cost the page: say so where the chart would be.
    const reason = (error as Error).message.split('\n')[0] ?? '';
    return `<p data-chart-error="${id}">Chart ${id} could not be drawn: ${escapeHtml(reason)}</p>`;
  }
}

/** The charts section; empty when no level was measured. */
async function charts(report: RunReport, options: HtmlOptions): Promise<string> {
  const results = levelsWithFigures(report.results);
  if (results.length === 0) return '<p><em>No level completed a request: no charts.</em></p>';
  const plot = { title: report.model, ...(options.budget ? { budget: options.budget } : {}) };
  const parts = await Promise.all([
    figure(
      'throughput',
      'Throughput per load level, each point named by its level; unstable levels are hollow red rings.',
      () => renderSvg(throughputSpec(results, plot)),
    ),
    figure(
      'percentiles',
      'Latency percentiles against throughput, each line joining the levels in order (named at the top one); red rings mark unstable levels; dashed lines are the budgets.',
      () => renderSvg(latencySpec(results, { ...plot, percentiles: ['p50', 'p90', 'p95', 'p99'] })),
    ),
    ...(latencyBreakdownApplies(results)
      ? [
          figure(
            'components',
            'Average latency per level, split as perf_analyzer does (client, network+server, server queue and compute).',
            () => renderSvg(componentsSpec(results, plot)),
          ),
        ]
      : []),
    ...(results.some((result) => result.genai)
      ? [
          figure(
            'tokens',
            'A generative run: TTFT and ITL percentiles and output tokens/s per level; where tokens/s flattens while TTFT climbs is the knee.',
            () => renderSvg(tokensSpec(results, plot)),
          ),
        ]
      : []),
    ...(turnsChartApplies(results)
      ? [
          figure(
            'turns',
            'A multi-turn run: TTFT and latency p50 (solid) and p95 (dashed) by turn index, a line per level; later turns carry a longer history.',
            () => renderSvg(turnsSpec(results, plot)),
          ),
        ]
      : []),
    ...(report.server_timeline
      ? [
          figure(
            'server-metrics',
            "The target's Prometheus metrics per scrape interval: queue and compute time per request, CPU and GPU utilisation; shaded spans are the levels' measurement windows.",
            () => renderSvg(serverMetricsSpec(report.server_timeline!, plot)),
          ),
        ]
      : []),
  ]);
  return parts.join('\n');
}

/** The latency breakdown section: its heading and table (report.md's). */
function breakdown(measured: readonly LevelResult[]): string {
  return `<h2 id="breakdown">Latency breakdown (ms, averages per request)</h2>
${measured.length === 0 ? '<p><em>No data.</em></p>' : md(breakdownTable(measured))}`;
}

/** The whole report.html as one string. */
export async function reportHtml(report: RunReport, options: HtmlOptions = {}): Promise<string> {
  const state = verdictOf(report);
  const verdict =
    state === 'met'
      ? 'All budgets met'
      : `${STATE_WORDS[state][0]!.toUpperCase()}${STATE_WORDS[state].slice(1)}: ${(report.verdict_reasons ?? []).join('; ')}`;
  // data-verdict: ok or missed as before, or not_measured / inconclusive.
  const mark = state === 'met' ? 'ok' : state;
  const measured = levelsWithFigures(report.results);
  const empty = measured.length === 0;
  // As report.md: a generative run adds its token table; validation applies to tensor outputs only.
  const generative = report.results.some((result) => result.genai);
  const title = `${report.model}: throughput and latency`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>Protocol ${escapeHtml(report.protocol)}, runtime ${escapeHtml(report.runtime)}, batch ${report.batch}, started ${escapeHtml(report.started_at)}.</p>
<p class="verdict ${state === 'met' ? 'ok' : 'missed'}" data-verdict="${mark}">${escapeHtml(verdict)}${report.interrupted ? ' by the measured levels' : ''}.</p>
<h2 id="levels">Levels</h2>
${empty ? '<p><em>No level completed a request.</em></p>' : md(levelTable(measured))}
${generative ? md(generativeTable(measured)) : ''}
${md(failureNote(report))}
${md(unmeasuredNote(report))}
${md(interruptedNote(report))}
${md(errorBarSection(report))}
<h2 id="charts">Charts</h2>
${await charts(report, options)}
${latencyBreakdownApplies(measured) ? breakdown(measured) : ''}
<h2 id="generator">Load generator</h2>
${empty ? '<p><em>No data.</em></p>' : md(generatorTable(measured))}
${generatorWarnings(measured)
  .map((line) => md(`> ${line}`))
  .join('\n')}
${md(openLoopTable(measured))}
${md(serverMetricsTable(measured))}
${md(prefillTable(measured))}
${md(slicesTable(measured))}
${md(engineMetricsTable(measured))}
${generative ? '' : md(validationNote(report))}
<h2 id="budgets">Budgets</h2>
${md(verdictTable(report.results))}
</body>
</html>
`;
}
