/**
 * The bench's server columns against perf_analyzer's, on one real Triton, one model, the same concurrency
 * levels: perf_analyzer's CSV (`-f`) and the bench's perf_analyzer.csv share their header, and both read the
 * four server columns from Triton's statistics extension, differenced over their windows, in microseconds.
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
 * ...or within this many microseconds. MNIST's server columns on this CPU are tens of microseconds (compute
 * input and output a few), and they move with the arrival rate, not only with the reading: Triton's and ONNX
 * Runtime's threads sleep between requests, and perf_analyzer (C++) sends faster than a JavaScript runtime
 * at the same concurrency. perf_analyzer alone read compute infer 26 us at c1 (3,400 infer/s) and 57 us at a
 * fixed 1,500 req/s on the same server. A reading slip (ns taken for us, a cumulative count instead of the
 * window's, a per-execution average) is a factor, far outside 20% or this floor.
 */
export const FLOOR_US = 50;

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
  levels: readonly number[];
  /** Where its CSV goes. */
  csv: string;
  /** Each measurement window. @default 2000 */
  window_ms?: number;
}

/**
 * Runs perf_analyzer over the levels and reads its CSV. Its stability rule is loose (50%) and its trials
 * capped, so each level ends in bounded time; a level that still never stabilises has no row (perf_analyzer
 * exits 0 all the same), which the comparison reports.
 */
export function runPerfAnalyzer(run: PerfAnalyzerRun): Promise<{ rows: CsvLevels; out: string }> {
  const range = `${Math.min(...run.levels)}:${Math.max(...run.levels)}`;
  const args = ['-m', run.model, '-u', run.target, '-i', run.protocol, '--concurrency-range', range];
  args.push('-p', String(run.window_ms ?? 2000), '--max-trials', '8', '-s', '50', '-f', run.csv);
  return new Promise((resolve, reject) => {
    const child = spawn(run.binary, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0 || !existsSync(run.csv))
        reject(
          new Error(
            `perf_analyzer exited ${code} without its CSV:\n${out.split('\n').slice(-15).join('\n')}`,
          ),
        );
      else resolve({ rows: readCsvLevels(readFileSync(run.csv, 'utf8')), out });
    });
  });
}
