/**
 * perf_analyzer agreement: on one embedded server, the real perf_analyzer (`-f` CSV) and the suite's
 * `bench` (its perf_analyzer.csv) measure the same model at the same concurrency levels. The two files must
 * have the same header, units, rounding and row order rule, and the server-side columns (read by both from
 * the statistics extension) must agree. Runs only where perf_analyzer exists (CI has ../shared/tools).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { getPriority, setPriority, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import type { RunningServer } from '@k6-triton/server';
import { REPO_ROOT, referenceTool } from './reference-tools.ts';

const run = promisify(execFile);
const perfAnalyzer = referenceTool('perf_analyzer', 'PERF_ANALYZER');
const suiteName = `perf_analyzer and the suite agree${perfAnalyzer.path ? '' : ` (${perfAnalyzer.skipReason})`}`;

/** ResNeXt101 at time scale 1: ~16 ms of simulated compute per request, little client CPU per request. */
const MODEL = 'resnext101-32x4d';
const LEVELS = [1, 2];
const SERVER_COLUMNS = [
  'Server Queue',
  'Server Compute Input',
  'Server Compute Infer',
  'Server Compute Output',
];
/**
 * Measurement rounds at most. The two tools measure one after the other on 2 shared cores, and a burst of
 * other work during one of them makes the simulated compute's timers fire late; a further round tells
 * such a burst from a real disagreement, which shows in every round (three: make test runs files side by side).
 */
const MAX_ROUNDS = 3;

/** A CSV as header plus rows of raw cells (no quoting in either writer's output). */
interface Csv {
  header: string[];
  rows: string[][];
}

/** One measurement of both tools. */
interface Round {
  reference: Csv;
  suite: Csv;
  /** Server columns further apart than the tolerance, as readable lines; empty when they agree. */
  disagreements: string[];
  lines: string[];
}

function parseCsv(text: string): Csv {
  const lines = text.split('\n').filter((line) => line !== '');
  const [header = [], ...rows] = lines.map((line) => line.split(','));
  return { header, rows };
}

/** Cell of a row by column name. */
function cell(csv: Csv, row: string[], column: string): string {
  const i = csv.header.indexOf(column);
  if (i < 0) throw new Error(`no column ${column}`);
  return row[i] as string;
}

/** The row of a concurrency level. */
function levelRow(csv: Csv, level: number): string[] {
  const row = csv.rows.find((r) => r[0] === String(level));
  if (!row) throw new Error(`no row for concurrency ${level}`);
  return row;
}

/**
 * Compares the server columns level by level: each within 20% of perf_analyzer's, or within 2% of the level's
 * server time for columns of a few microseconds (compute input/output); their sum within 20%. A reading slip
 * (a unit, a per-batch count, the warm-up in the window) is a factor; late timers on a busy CI machine moved a
 * column 11% between the two tools' runs.
 *
 * Above c1 the queue column also measures the client: a request waits behind the one in compute for as long
 * as that one has left, so the sooner a client sends again, the longer its queue. The suite sends again
 * sooner than perf_analyzer (the fidelity benchmark): on resnext101's 18 ms compute its c2 queue read 13.6-15.1
 * ms against perf_analyzer's 8.3-9.6 ms in all three rounds of a loaded CI run, compute within 18%. There the
 * queue must agree within a factor of 2 (a reading slip is still caught) and stays out of the sum.
 */
function compareServerColumns(suite: Csv, reference: Csv): Pick<Round, 'disagreements' | 'lines'> {
  const disagreements: string[] = [];
  const lines: string[] = [];
  for (const level of LEVELS) {
    const ours = suite.rows.find((r) => r[0] === String(level));
    const theirs = reference.rows.find((r) => r[0] === String(level));
    if (!ours || !theirs) {
      disagreements.push(`c${level}: a row is missing`);
      continue;
    }
    const total = SERVER_COLUMNS.reduce((sum, c) => sum + Number(cell(reference, theirs, c)), 0);
    let sum = 0;
    let reference_sum = 0;
    for (const column of SERVER_COLUMNS) {
      const a = Number(cell(suite, ours, column));
      const b = Number(cell(reference, theirs, column));
      const line = `c${level} ${column}: suite ${a} us, perf_analyzer ${b} us`;
      lines.push(line);
      if (column === 'Server Queue' && level > 1) {
        if (Math.abs(a - b) > 0.02 * total && (a > 2 * b || b > 2 * a)) disagreements.push(line);
        continue;
      }
      sum += a;
      reference_sum += b;
      if (Math.abs(a - b) > Math.max(0.2 * b, 0.02 * total)) disagreements.push(line);
    }
    if (Math.abs(sum - reference_sum) > 0.2 * reference_sum)
      disagreements.push(
        `c${level} server total (the queue left out above c1): ${sum} vs ${reference_sum} us`,
      );
  }
  return { disagreements, lines };
}

/** perf_analyzer prints throughput with C++ ostream's default: %g, at most 6 significant digits. */
const PRINTF_G = /^(?:\d+(?:\.\d+)?|\d(?:\.\d+)?e[+-]\d\d)$/;
function significantDigits(text: string): number {
  return (text.split('e')[0] as string).replace('.', '').replace(/^0+/, '').length;
}

if (!perfAnalyzer.path) console.warn(`perf_analyzer agreement: ${perfAnalyzer.skipReason}`);

describe.skipIf(!perfAnalyzer.path)(suiteName, () => {
  let server: RunningServer;
  let dir: string;
  const rounds: Round[] = [];

  /** perf_analyzer, then the suite's bench, on the same server and levels; both CSVs parsed. */
  async function measure(round: number): Promise<Round> {
    const url = `127.0.0.1:${server.httpPort}`;
    const paCsv = path.join(dir, `perf_analyzer-${round}.csv`);
    // 2 s windows, a loose stability rule and a trial cap: every level converges within a bounded time
    // (perf_analyzer exits 0 with a missing row when one does not; the row count is checked below).
    const range = `${LEVELS[0]}:${LEVELS.at(-1)}`;
    const paArgs = ['-m', MODEL, '-u', url, '-i', 'http', '--concurrency-range', range];
    paArgs.push('-p', '2000', '--max-trials', '8', '-s', '50', '-f', paCsv);
    await run(perfAnalyzer.path as string, paArgs, { timeout: 100_000 }).catch((err: { stderr?: string }) => {
      throw new Error(`perf_analyzer failed: ${err.stderr ?? err}`);
    });
    const reference = parseCsv(readFileSync(paCsv, 'utf8'));

    // Exit 99 is a missed latency budget: the CSV is written all the same.
    const results = path.join(dir, `suite-${round}`);
    const benchArgs = ['bin/k6-triton.js', 'bench', MODEL, '--url', `http://${url}`, '--runtime', 'node'];
    benchArgs.push('--concurrency', LEVELS.join(','), '--step-duration', '3s', '--warmup', '1s');
    // perf_analyzer's own rules above: 50% stability, 8 trials; 3 s windows carry no p99 (not judged here).
    benchArgs.push('--count', '2', '--results-dir', results);
    benchArgs.push('--stability-percentage', '50', '--max-trials', '8', '--allow-inconclusive');
    await run(process.execPath, benchArgs, { cwd: REPO_ROOT, timeout: 100_000 }).catch(
      (err: { code?: number; stdout?: string; stderr?: string }) => {
        if (err.code !== 99) throw new Error(`bench failed (${err.code}): ${err.stderr}\n${err.stdout}`);
      },
    );
    const runDir = path.join(results, MODEL, readdirSync(path.join(results, MODEL))[0] as string);
    const suite = parseCsv(readFileSync(path.join(runDir, 'perf_analyzer.csv'), 'utf8'));
    return { reference, suite, ...compareServerColumns(suite, reference) };
  }

  const priority = getPriority();
  beforeAll(async () => {
    // Best effort (root only): the in-process server's timers and both tools, which inherit the value, get
    // ahead of other work on the shared cores, so late timers disturb the comparison less often.
    try {
      setPriority(Math.max(-10, priority - 10));
    } catch {}
    server = await startCatalogServer({
      httpPort: 0,
      grpcPort: -1,
      metricsPort: -1,
      simulated: { timeScale: 1 },
    });
    dir = mkdtempSync(path.join(tmpdir(), 'k6t-pa-agree-'));
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      rounds.push(await measure(round));
      if ((rounds.at(-1) as Round).disagreements.length === 0) break;
    }
  }, 240_000);

  afterAll(async () => {
    try {
      setPriority(priority);
    } catch {}
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes the same header', () => {
    for (const { suite, reference } of rounds) {
      expect(suite.header).toEqual(reference.header);
      expect(reference.header[0]).toBe('Concurrency');
    }
  });

  it('has one row per level in both files', () => {
    const levels = (csv: Csv) => csv.rows.map((r) => Number(r[0])).sort((a, b) => a - b);
    for (const { suite, reference } of rounds) {
      expect(levels(reference), 'perf_analyzer rows (a level that never stabilised is missing)').toEqual(
        LEVELS,
      );
      expect(levels(suite)).toEqual(LEVELS);
    }
  });

  it('orders rows as perf_analyzer does: ascending Inferences/Second', () => {
    for (const csv of rounds.flatMap((r) => [r.reference, r.suite])) {
      const throughput = csv.rows.map((r) => Number(cell(csv, r, 'Inferences/Second')));
      expect(throughput).toEqual([...throughput].sort((a, b) => a - b));
    }
  });

  it('rounds alike: integer levels, %g throughput, truncated integer microseconds', () => {
    for (const csv of rounds.flatMap((r) => [r.reference, r.suite])) {
      for (const row of csv.rows) {
        expect(row.length).toBe(csv.header.length);
        expect(row[0]).toMatch(/^\d+$/);
        const throughput = cell(csv, row, 'Inferences/Second');
        expect(throughput).toMatch(PRINTF_G);
        expect(significantDigits(throughput)).toBeLessThanOrEqual(6);
        for (const value of row.slice(2)) expect(value).toMatch(/^\d+$/);
      }
    }
  });

  it('uses the same units: latency percentiles in microseconds of the same order', () => {
    const { suite, reference } = rounds.at(-1) as Round;
    for (const level of LEVELS) {
      const ours = Number(cell(suite, levelRow(suite, level), 'p50 latency'));
      const theirs = Number(cell(reference, levelRow(reference, level), 'p50 latency'));
      // A unit slip (ms vs us) would be a factor of 1000; load noise on shared cores stays far below 5x.
      expect(ours / theirs, `c${level} p50 ${ours} vs ${theirs}`).toBeGreaterThan(0.2);
      expect(ours / theirs, `c${level} p50 ${ours} vs ${theirs}`).toBeLessThan(5);
    }
  });

  it('agrees on the server-side columns within 20%', () => {
    const last = rounds.at(-1) as Round;
    const shown = rounds.map((r, i) => `round ${i + 1}:\n  ${r.lines.join('\n  ')}`).join('\n');
    console.log(`perf_analyzer agreement (${MODEL}, ${rounds.length} round(s)):\n${shown}`);
    expect(last.disagreements, shown).toEqual([]);
  });
});
