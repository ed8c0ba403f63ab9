/**
 * Garbage answers never pass: a proxy in front of the embedded server answers every inference 200 with a
 * gateway's HTML page, a JSON body cut short, or well-formed KServe JSON whose outputs the model does not have
 * (hostile-proxy.ts). `bench mnist --validate-every 1` through it, under the Node runtime and real k6, exits
 * non-zero with one line per level naming the cause, no stack trace, and every request of every level counted
 * failed and invalid in summary.json; the CSV has no row for a level where nothing succeeded.
 *
 * The error-rate budget is missed (exit 99); a latency budget with no successful request is not measured.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedServer, startEmbedded } from '../../../measure/core/embedded.ts';
import { EXIT } from '../../../measure/core/exit-codes.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { type HostileMode, startHostileProxy } from './hostile-proxy.ts';
import { resultsDir, runCli, runFolder } from './run-cli.ts';

const K6 = referenceTool('k6', 'K6_BIN');
/** Generous latency budgets: only the responses' validity can fail the run. */
const BUDGET = { P95_MS: '60000', P99_MS: '60000' };
const LEVELS = ['c1', 'c2'];

/** Each mode and the cause its level lines must name. */
const MODES: [HostileMode, RegExp][] = [
  ['html', /body is text\/html, not JSON/],
  ['broken-json', /body is not JSON/],
  ['wrong-outputs', /missing output "output"; unexpected output "not_an_output"/],
];

let server: EmbeddedServer;
beforeAll(async () => {
  server = await startEmbedded();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

/** Benches mnist through a hostile proxy in `mode` under `runtime`; returns the run and its run folder. */
async function benchThrough(mode: HostileMode, runtime: string) {
  const proxy = await startHostileProxy(server.url, mode);
  try {
    const results = resultsDir();
    const run = await runCli(
      [
        ...['bench', 'mnist', '--runtime', runtime, '--url', proxy.url, '--validate-every', '1'],
        ...['--concurrency', LEVELS.map((l) => l.slice(1)).join(','), '--step-duration', '1s'],
        ...['--warmup', '0s', '--count', '2', '--results-dir', results],
      ],
      { ...BUDGET, ...(K6.path ? { K6_BIN: K6.path } : {}) },
    );
    expect(proxy.inferences()).toBeGreaterThan(0);
    return { run, dir: runFolder(results, 'mnist') };
  } finally {
    await proxy.close();
  }
}

async function expectJudged(mode: HostileMode, cause: RegExp, runtime: string) {
  const { run, dir } = await benchThrough(mode, runtime);
  // Every request failed: the error-rate budget is missed (99); the latency budgets, with no success to
  // measure, are not measured, and a miss comes first.
  expect(run.code, run.stderr).toBe(EXIT.THRESHOLDS_FAILED);
  expect(run.stdout).toMatch(/^verdict: missed \(\d+ budget\(s\) missed; \d+ budget\(s\) not measured\)$/m);
  // No iteration threw: no stack trace (a line of its own, or escaped in a logfmt message), no script exception.
  expect(run.stderr).not.toMatch(/(^|\\n)\s+at /m);
  expect(run.stderr).not.toMatch(/script exception|TypeError|ReferenceError/);
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  const results = summary.report.results as {
    name: string;
    requests: number;
    errors: number;
    throughput_infer_s: number;
    responses_invalid: number;
    responses_checked: number;
  }[];
  expect(results.map((r) => r.name)).toEqual(LEVELS);
  const md = readFileSync(join(dir, 'report.md'), 'utf8');
  for (const level of results) {
    expect(level.requests).toBeGreaterThan(0);
    expect(level).toMatchObject({
      errors: level.requests,
      responses_invalid: level.requests,
      responses_checked: level.requests,
      throughput_infer_s: 0,
    });
    // One line per level, printed by the bench and in report.md: how many, of how many, the first cause.
    const line = new RegExp(
      `^${level.name}: ${level.requests.toLocaleString('en-US')} of ${level.requests.toLocaleString('en-US')} responses invalid: ${cause.source}`,
      'm',
    );
    expect(run.stdout).toMatch(line);
    expect(md).toMatch(new RegExp(`^- ${line.source.slice(1)}`, 'm'));
  }
  expect(md).not.toContain('all budgets met');
  // perf_analyzer writes no row for a level without a successful request: the CSV is its header alone.
  const csv = readFileSync(join(dir, 'perf_analyzer.csv'), 'utf8').trim().split('\n');
  expect(csv).toHaveLength(1);
}

describe('bench through a hostile proxy', () => {
  it.for(MODES)(
    'Node runtime: %s answers fail every level, named with their cause',
    { timeout: 120_000 },
    async ([mode, cause]) => {
      await expectJudged(mode, cause, 'node');
    },
  );

  it.skipIf(!K6.path).for(MODES)(
    'real k6: %s answers fail every level, named with their cause',
    { timeout: 120_000 },
    async ([mode, cause]) => {
      await expectJudged(mode, cause, 'k6');
    },
  );

  it('the proxy forwards everything but inference, and close() ends a hung inference', async () => {
    const proxy = await startHostileProxy(server.url, 'hang');
    const live = await fetch(`${proxy.url}/v2/health/live`);
    expect(live.status).toBe(200);
    const hung = fetch(`${proxy.url}/v2/models/mnist/infer`, { method: 'POST', body: '{}' }).then(
      (r) => r.status,
      (error: Error) => error.name,
    );
    while (proxy.inferences() === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await proxy.close();
    expect(await hung).toBe('TypeError');
  });
});
