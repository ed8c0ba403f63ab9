/**
 * `bench sequence` end to end on the embedded server: the sequence model (identity backend behind the sequence
 * batcher) benched under the Node runtime over HTTP and gRPC and, where present, real k6, in closed-loop levels
 * and at a request rate (live sequences sharing each level's sends); every sequence starts, completes and echoes
 * its steps in order, so nothing is out of order or orphaned. A server that fails some
 * requests leaves sequences orphaned, and the orphaned threshold fails the run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEQUENCE_METRICS } from '../../../lib/sequence/names.ts';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { resultsDir, runCli, runFolder } from './run-cli.ts';

const k6 = referenceTool('k6', 'K6_BIN');
const MODEL = 'sequence-identity';
/** One closed-loop level of 3 VUs: sequences interleave on the server; two levels run in the rate tests. */
const SHORT = ['--step-duration', '2s', '--warmup', '1s', '--concurrency', '3'];
const LINE = /^sequences: (\d+) started, (\d+) completed, (\d+) out of order, (\d+) orphaned$/m;

/** The summary's sequence counts: started, completed, out of order, orphaned. */
function counts(stdout: string): number[] {
  const match = LINE.exec(stdout);
  expect(match, stdout).not.toBeNull();
  return match!.slice(1).map(Number);
}

async function bench(runtime: string, protocol: string, env: Record<string, string> = {}, load = SHORT) {
  const results = resultsDir();
  const run = await runCli(
    ['bench', 'sequence', '--runtime', runtime, '--protocol', protocol, ...load, '--results-dir', results],
    // Latency budgets are far off: the test is about order, not speed on shared cores.
    { SEQUENCE_LENGTH: '6', P95_MS: '60000', P99_MS: '60000', ...env },
  );
  return { run, results };
}

/** Sequences live at once in every test here: 3 VUs, or 3 live sequences at a request rate. */
const LIVE = 3;

/**
 * Every sequence completed but those the run's end cut (at most one per live sequence: real k6 under load
 * stopped one mid-way, 59 of 60 completed), none out of order or orphaned, and every level without errors.
 */
function expectInOrder(run: { code: number; stdout: string; stderr: string }, results: string): void {
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  const [started, completed, outOfOrder, orphaned] = counts(run.stdout);
  expect(started).toBeGreaterThan(0);
  expect(completed).toBeLessThanOrEqual(started);
  expect(started - completed).toBeLessThanOrEqual(LIVE);
  expect(outOfOrder).toBe(0);
  expect(orphaned).toBe(0);
  const summary = JSON.parse(readFileSync(join(runFolder(results, MODEL), 'summary.json'), 'utf8'));
  for (const level of summary.report.results) {
    expect(level.requests, level.name).toBeGreaterThan(0);
    expect(level.errors, level.name).toBe(0);
  }
}

/** Request rate: 10 and 20 req/s for 2 s each, shared by 3 live sequences. */
const RATE = [
  '--step-duration',
  '2s',
  '--warmup',
  '1s',
  '--request-rate',
  '10,20',
  '--num-of-sequences',
  '3',
];

/** Every sequence in order, and each level sent exactly its planned sends (rate x window), lag measured. */
function expectRateHeld(run: { code: number; stdout: string; stderr: string }, results: string): void {
  expectInOrder(run, results);
  const summary = JSON.parse(readFileSync(join(runFolder(results, MODEL), 'summary.json'), 'utf8'));
  const levels = summary.report.results as {
    name: string;
    level: number;
    requests: number;
    scheduled_latency_us?: { p50: number };
  }[];
  expect(levels.map((l) => l.name)).toEqual(['r10', 'r20']);
  for (const level of levels) {
    expect(level.requests, level.name).toBe(level.level * 2);
    expect(level.scheduled_latency_us?.p50, level.name).toBeGreaterThanOrEqual(0);
  }
}

describe('bench sequence at a request rate on the embedded server', () => {
  it('shares each level between the live sequences, in order, under the Node runtime over HTTP', async () => {
    const { run, results } = await bench('node', 'http', {}, RATE);
    expectRateHeld(run, results);
  }, 120_000);

  it('does so over gRPC with Poisson arrivals', async () => {
    const { run, results } = await bench('node', 'grpc', {}, [...RATE, '--arrivals', 'poisson']);
    expectInOrder(run, results);
  }, 120_000);

  it.skipIf(!k6.path)(
    // Over HTTP; real k6 keeps gRPC sequences in order in the closed-loop test below.
    `does so under real k6 over HTTP ${k6.skipReason}`,
    async () => {
      const { run, results } = await bench('k6', 'http', { K6_BIN: k6.path! }, RATE);
      expectRateHeld(run, results);
    },
    120_000,
  );

  it('refuses no live sequence and more live sequences than ids, in one line, before any load', async () => {
    const none = await runCli(['bench', 'sequence', '--request-rate', '10', '--num-of-sequences', '0']);
    expect(none.code).not.toBe(0);
    expect(none.stderr.trim()).toBe('k6-triton: invalid NUM_OF_SEQUENCES="0"; expected a whole number >= 1');
    const many = await runCli([
      'bench',
      'sequence',
      '--request-rate',
      '10',
      '--num-of-sequences',
      '5',
      '--sequence-id-range',
      '1:5',
    ]);
    expect(many.code).not.toBe(0);
    expect(many.stderr.trim()).toBe(
      'k6-triton: invalid NUM_OF_SEQUENCES=5: more live sequences than the 4 ids of SEQUENCE_ID_RANGE; widen the range or lower NUM_OF_SEQUENCES',
    );
  }, 60_000);
});

describe('bench sequence on the embedded server', () => {
  it('keeps every sequence in order under the Node runtime over HTTP', async () => {
    const { run, results } = await bench('node', 'http');
    expectInOrder(run, results);
  }, 120_000);

  it('keeps every sequence in order under the Node runtime over gRPC', async () => {
    const { run, results } = await bench('node', 'grpc');
    expectInOrder(run, results);
  }, 120_000);

  it.skipIf(!k6.path)(
    // Over gRPC; real k6 keeps HTTP sequences in order in the request-rate test above.
    `keeps every sequence in order under real k6 over gRPC ${k6.skipReason}`,
    async () => {
      const { run, results } = await bench('k6', 'grpc', { K6_BIN: k6.path! });
      expectInOrder(run, results);
    },
    120_000,
  );

  it('counts sequences a failed request cut short as orphaned, and their threshold fails the run', async () => {
    const server = await startCatalogServer({
      httpPort: 0,
      grpcPort: -1,
      metricsPort: -1,
      faults: { status: { 503: 0.1 } },
    });
    try {
      const results = resultsDir();
      const run = await runCli(
        [
          'bench',
          'sequence',
          '--runtime',
          'node',
          // Two levels: c1's measured requests let the orphaned threshold judge the run
          // (c3 alone, on a loaded machine, once completed no request in its window: not measured, 96).
          ...['--step-duration', '2s', '--warmup', '1s', '--concurrency', '1,3'],
          '--results-dir',
          results,
          '--metrics-url',
          'off',
        ],
        { SEQUENCE_LENGTH: '6', TRITON_URL: `http://127.0.0.1:${server.httpPort}` },
      );
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(99);
      const [started, completed, outOfOrder, orphaned] = counts(run.stdout);
      expect(orphaned).toBeGreaterThan(0);
      expect(completed + orphaned).toBe(started);
      expect(outOfOrder).toBe(0);
      const k6Summary = JSON.parse(readFileSync(join(runFolder(results, MODEL), 'k6-summary.json'), 'utf8'));
      const gate = k6Summary.metrics[SEQUENCE_METRICS.orphaned].thresholds['count==0'];
      expect(gate.ok ?? gate).toBe(false);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
