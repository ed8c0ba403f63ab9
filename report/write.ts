/**
 * Writes a run's result files into one directory (results/<model>/<run-id>/): summary.json, the
 * perf_analyzer CSV, report.md, SVG plots and junit.xml. Each file is written whole and on its own
 * (not-written.ts), so a failing writer or a full disk never leaves half a file or loses the others;
 * what was not written is said at the end of the command's output.
 */
import { genaiPerfCsv, genaiPerfCsvName } from '../lib/genai/genai-perf-csv.ts';
import { genaiPerfJson, genaiPerfJsonName } from '../lib/genai/genai-perf-json.ts';
import { join } from 'node:path';
import { perfAnalyzerCsv } from './csv.ts';
import { reportHtml } from './html.ts';
import { junitXml } from './junit.ts';
import { reportMarkdown } from './markdown.ts';
import { noteNotWritten, writeResult } from './not-written.ts';
import { type PlotBudget, renderPlots } from './plot.ts';
import { levelsWithFigures } from '../lib/summary/failure.ts';
import type { RunReport } from '../lib/summary/types.ts';

/** Options of writeRunReport. */
export interface WriteOptions {
  /** Budget lines on the latency plot. */
  budget?: PlotBudget;
  /** Also write perf_analyzer-verbose.csv: the CSV with perf_analyzer's --verbose-csv columns. */
  verboseCsv?: boolean;
}

/** What was written: file name → path; and the files not written, one line each (also said at the end). */
export interface WrittenReport {
  dir: string;
  files: Record<string, string>;
  errors: string[];
}

/** Writes every result file; `summaryData` is k6's summary data, kept verbatim beside our per-level table. */
export async function writeRunReport(
  dir: string,
  report: RunReport,
  summaryData: unknown,
  options: WriteOptions = {},
): Promise<WrittenReport> {
  const written: WrittenReport = { dir, files: {}, errors: [] };
  const attempt = async (name: string, render: () => string | Promise<string>) => {
    const path = join(dir, name);
    const error = await writeResult(path, render);
    if (error === undefined) written.files[name] = path;
    else written.errors.push(error);
  };
  await attempt('summary.json', () => `${JSON.stringify({ report, k6: summaryData }, null, 2)}\n`);
  await attempt('perf_analyzer.csv', () => perfAnalyzerCsv(report.results));
  if (options.verboseCsv)
    await attempt('perf_analyzer-verbose.csv', () => perfAnalyzerCsv(report.results, { verbose: true }));
  await attempt('report.md', () => reportMarkdown(report));
  await attempt('junit.xml', () => junitXml(report));
  await attempt('report.html', () => reportHtml(report, { budget: options.budget }));
  // A generative level also as genai-perf's CSV and JSON exports, one file of each per level.
  for (const level of report.results) {
    const csv = genaiPerfCsv(level);
    if (csv !== undefined) await attempt(genaiPerfCsvName(level), () => csv);
    const json = genaiPerfJson(level, report.model);
    if (json !== undefined) await attempt(genaiPerfJsonName(level), () => json);
  }
  const plotted = levelsWithFigures(report.results);
  if (plotted.length > 0) {
    let plots: Record<string, string> = {};
    try {
      plots = await renderPlots(plotted, { title: report.model, budget: options.budget });
    } catch (error) {
      written.errors.push(noteNotWritten(join(dir, '*.svg'), error as Error));
    }
    for (const [name, svg] of Object.entries(plots)) await attempt(name, () => svg);
  }
  return written;
}
