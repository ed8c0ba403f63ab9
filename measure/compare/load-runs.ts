/**
 * Reads a run's summary.json for `compare`. Accepts a run folder (results/<model>/<run-id>), a model folder
 * (its newest run, as run ids are ISO timestamps that sort by time) or the summary.json itself; anything else
 * fails with one line naming the path and the fix.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { levelsWithFigures } from '../../lib/summary/failure.ts';
import type { RunReport } from '../../lib/summary/types.ts';

/** A run folder's name as `bench` makes it: the start time, e.g. 2026-11-22T07-00-00-000. */
const RUN_ID = /^\d{4}-\d{2}-\d{2}T[\d-]+$/;

const FIX = 'pass a run folder written by `k6-triton bench` (results/<model>/<run-id>)';

/** The summary.json a path stands for, or a one-line error. */
export function summaryPath(path: string): string {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch {
    throw new Error(`compare: ${path} does not exist; ${FIX}`);
  }
  if (stats.isFile()) return path;
  const own = join(path, 'summary.json');
  if (statSync(own, { throwIfNoEntry: false })?.isFile()) return own;
  // A model folder: its run folders are named by `bench` with ISO timestamps, so the last in order is the newest.
  const runs = readdirSync(path, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && RUN_ID.test(entry.name))
    .filter((entry) => statSync(join(path, entry.name, 'summary.json'), { throwIfNoEntry: false })?.isFile())
    .map((entry) => entry.name)
    .sort();
  // The newest run that measured something: a run that measured nothing is no baseline nor candidate.
  for (const run of runs.reverse()) {
    const file = join(path, run, 'summary.json');
    const why = unmeasuredWhy(readReport(file));
    if (why === undefined) return file;
    console.error(`compare: skipped ${join(path, run)}: ${why}`);
  }
  throw new Error(
    `compare: ${path} has no summary.json of a run that measured its levels (nor a run folder holding one); ${FIX}`,
  );
}

/** Why a run cannot be compared (it measured nothing), or undefined when it can. */
export function unmeasuredWhy(report: RunReport | undefined): string | undefined {
  if (!report || !Array.isArray(report.results)) return 'not written by `k6-triton bench`';
  if (levelsWithFigures(report.results).length === 0) return 'no level completed a request';
  return undefined;
}

function readReport(file: string): RunReport | undefined {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { report?: RunReport } | null)?.report;
  } catch {
    return undefined;
  }
}

/** Loads the run a path stands for: its folder and its RunReport. */
export function loadRun(path: string): { path: string; report: RunReport } {
  const file = summaryPath(path);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `compare: ${file} is not readable JSON (${(error as Error).message.split('\n')[0]}); ${FIX}`,
    );
  }
  const report = (parsed as { report?: RunReport } | null)?.report;
  if (!report || !Array.isArray(report.results))
    throw new Error(
      `compare: ${file} has no report.results, so it was not written by \`k6-triton bench\`; ${FIX}`,
    );
  const why = unmeasuredWhy(report);
  if (why !== undefined)
    throw new Error(`compare: ${file} measured nothing (${why}); compare runs that measured their levels`);
  if (report.verdict === 'not_measured')
    console.error(
      `compare: ${file}: verdict not measured (${(report.verdict_reasons ?? []).join('; ')}); only its measured levels are compared`,
    );
  return { path: basename(file) === 'summary.json' ? dirname(file) : file, report };
}
