/**
 * The bench's server columns against perf_analyzer's, on one real Triton, one model, the same concurrency
 * levels: perf_analyzer's CSV (`-f`) and the bench's perf_analyzer.csv share their header, and both read the
 * four server columns from Triton's statistics extension, differenced over their windows, in microseconds.
 * The two measure side by side (measureSideBySide), so both average the same requests.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import Papa from 'papaparse';

/** The columns compared, microseconds per request in both files. */
export const SERVER_COLUMNS = [
  'Server Queue',
  'Server Compute Input',
  'Server Compute Infer',
  'Server Compute Output',
] as const;

/** A column agrees when within this share of perf_analyzer's figure... */
export const RELATIVE_TOLERANCE = 0.2;
/**
 * ...or within this many microseconds. MNIST's compute input and output take 4-20 us per request here, and
 * both files truncate to whole microseconds: at 5 us a 20% band is under one unit. The columns that carry the
 * reading (queue, compute infer: tens to hundreds of us, read and differenced by the same code) keep the 20%.
 */
export const FLOOR_US = 5;

/** One CSV's rows by level: column name → value. */
export type CsvLevels = Map<number, Record<string, number>>;

/** Reads a perf_analyzer-format CSV (perf_analyzer's own or the bench's) into rows by its first column. */
export function readCsvLevels(text: string): CsvLevels {
  const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
  const first = parsed.meta.fields?.[0] ?? 'Concurrency';
  const rows: CsvLevels = new Map();
  for (const row of parsed.data) {
    rows.set(Number(row[first]), Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)])));
  }
  return rows;
}

/** One column at one level. */
export interface ColumnComparison {
  level: number;
  column: string;
  suite_us: number;
  reference_us: number;
  ok: boolean;
}

/** Compares the server columns level by level; a level missing from either file is a problem, not a pass. */
export function compareServerColumns(
  suite: CsvLevels,
  reference: CsvLevels,
  levels: readonly number[],
): { comparisons: ColumnComparison[]; missing: string[] } {
  const comparisons: ColumnComparison[] = [];
  const missing: string[] = [];
  for (const level of levels) {
    const ours = suite.get(level);
    const theirs = reference.get(level);
    if (!theirs) missing.push(`perf_analyzer has no row for c${level} (the level never stabilised)`);
    if (!ours) missing.push(`the bench has no row for c${level}`);
    if (!ours || !theirs) continue;
    for (const column of SERVER_COLUMNS) {
      const suite_us = ours[column] ?? Number.NaN;
      const reference_us = theirs[column] ?? Number.NaN;
      const allowed = Math.max(RELATIVE_TOLERANCE * reference_us, FLOOR_US);
      const ok = Math.abs(suite_us - reference_us) <= allowed;
      comparisons.push({ level, column, suite_us, reference_us, ok });
    }
  }
  return { comparisons, missing };
}

/** How perf_analyzer is run for the comparison. */
export interface PerfAnalyzerRun {
  binary: string;
  model: string;
  /** host:port of the protocol's endpoint. */
  target: string;
  protocol: 'http' | 'grpc';
  concurrency: number;
  /** Where its CSV goes. */
  csv: string;
  /** Its -p: each of its three windows lasts 1.2 times this. */
  window_ms: number;
}

/**
 * Runs perf_analyzer at one concurrency for exactly three windows: its stability rule is as loose as it goes
 * (1000%) and its trials capped at the three it judges, so it ends in a known time, inside the bench's
 * window. A level it still does not call stable has no row (perf_analyzer exits 0 all the same), which the
 * comparison reports.
 */
export function runPerfAnalyzer(run: PerfAnalyzerRun): Promise<CsvLevels> {
  const args = ['-m', run.model, '-u', run.target, '-i', run.protocol];
  args.push('--concurrency-range', String(run.concurrency), '-p', String(run.window_ms));
  args.push('--max-trials', '3', '-s', '1000', '-f', run.csv);
  return new Promise((resolve, reject) => {
    const child = spawn(run.binary, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (existsSync(run.csv)) resolve(readCsvLevels(readFileSync(run.csv, 'utf8')));
      else if (code === 0) resolve(new Map());
      else reject(new Error(`perf_analyzer exited ${code}:\n${out.split('\n').slice(-15).join('\n')}`));
    });
  });
}

/** About how long perf_analyzer takes from its start to its first request (0.35-0.5 s here, its wrapper included). */
const PA_START_UP_MS = 400;
/** perf_analyzer's time windows last 1.2 times -p (its Measure() sleeps measurement_window * 1.2). */
const PA_WINDOW_STRETCH = 1.2;

/** Inferences a model has served, from Triton's statistics extension. */
async function inferenceCount(url: string, model: string): Promise<number> {
  const response = await fetch(`${url}/v2/models/${model}/stats`);
  const body = (await response.json()) as { model_stats?: { inference_count?: number }[] };
  return body.model_stats?.reduce((sum, s) => sum + (s.inference_count ?? 0), 0) ?? 0;
}

/** What the side-by-side measurement takes. */
export interface SideBySide<T> {
  /** Triton's HTTP URL and the served model, to see when the bench's warm-up starts. */
  url: string;
  model: string;
  /** The bench's levels, warm-up and window; perf_analyzer measures inside each window. */
  levels: readonly number[];
  warmup_s: number;
  window_s: number;
  /** Starts the bench over those levels; resolves when it has ended. */
  bench(): Promise<T>;
  /** perf_analyzer at one level, with window_ms as its -p (three windows). */
  perfAnalyzer(concurrency: number, window_ms: number): Promise<CsvLevels>;
}

/**
 * The bench and perf_analyzer measuring the same seconds of one server: Triton's statistics are per model, so
 * over one window both average the same requests (both tools' own), and a burst of other work on the shared
 * cores reaches both figures alike. One after the other they measure different seconds: MNIST's server
 * columns are tens to hundreds of microseconds and follow the machine's load and the arrival rate (Triton's
 * and ONNX Runtime's threads sleep between requests), and on this shared 2-core machine the queue column moved
 * by up to 2x between two tools' runs at the same concurrency. perf_analyzer's three windows are fitted to each
 * bench window (its warm-up starts the requests; the window opens warmup_s later); side by side the columns
 * agreed within a few percent.
 */
export async function measureSideBySide<T>(
  options: SideBySide<T>,
): Promise<{ bench: T; reference: CsvLevels }> {
  const before = await inferenceCount(options.url, options.model);
  const running = options.bench();
  let ended = false;
  void running.finally(() => {
    ended = true;
  });
  const reference: CsvLevels = new Map();
  let started_ms: number | undefined;
  while (started_ms === undefined && !ended) {
    if ((await inferenceCount(options.url, options.model)) > before) started_ms = Date.now();
    else await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (started_ms !== undefined) {
    const level_ms = (options.warmup_s + options.window_s) * 1000;
    // Its three windows span the bench's; it starts a little early, as its first request follows its start-up
    // (connections, the model's metadata) by a few hundred milliseconds.
    const pa_window_ms = Math.floor((options.window_s * 1000) / 3 / PA_WINDOW_STRETCH);
    for (const [i, level] of options.levels.entries()) {
      const opens_ms = started_ms + i * level_ms + options.warmup_s * 1000;
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, opens_ms - PA_START_UP_MS - Date.now())),
      );
      if (ended) break;
      for (const [key, row] of await options.perfAnalyzer(level, pa_window_ms)) reference.set(key, row);
    }
  }
  return { bench: await running, reference };
}
