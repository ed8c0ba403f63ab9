/**
 * How the bench command fails: a missed budget exits 99 like k6, an unreachable server and an
 * unknown model each give one readable line and a non-zero exit, and a server lost mid-run still
 * leaves the finished levels' results and names the cause of the levels after it.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServeProcess } from '../../../bench/serve-process.ts';
import { EXIT } from '../../../measure/core/exit-codes.ts';
import { startCli } from './processes.ts';
import { QUICK, resultsDir, runCli, runFolder } from './run-cli.ts';

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('bench failures', () => {
  it('exits 99 and names metric, level, budget and value when a budget is missed', async () => {
    const results = resultsDir();
    const run = await runCli(['bench', 'dlrm', ...QUICK, '--concurrency', '1', '--results-dir', results], {
      P95_MS: '0.001',
    });
    expect(run.code).toBe(99);
    expect(run.stdout).toMatch(
      /budget missed: http_req_duration at level c1: budget p\(95\)<0\.001 missed, measured [\d.]+ ms/,
    );
    const junit = readFileSync(join(runFolder(results, 'dlrm'), 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<failure/);
  });

  it('gives one line naming the URL when the server is unreachable, and writes no pass', async () => {
    const port = await closedPort();
    const results = resultsDir();
    const run = await runCli(['bench', 'mnist', ...QUICK, '--concurrency', '1', '--results-dir', results], {
      TRITON_URL: `http://127.0.0.1:${port}`,
    });
    expect(run.code).toBe(EXIT.SCRIPT_EXCEPTION);
    expect(`${run.stdout}\n${run.stderr}`).toContain(
      `server http://127.0.0.1:${port} is unreachable or not live`,
    );
    // What it writes says nothing was measured: report.md, summary.json and JUnit alike.
    const dir = runFolder(results, 'mnist');
    const report = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).report;
    expect(report).toMatchObject({ verdict: 'not_measured', verdict_ok: false, unmeasured: ['c1'] });
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(md).toContain('Verdict: **not measured** (not measured: c1)');
    expect(md).not.toContain('all budgets met');
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/tests="1" failures="0" errors="1"/);
    expect(run.stdout).toMatch(/^verdict: not measured \(not measured: c1\)$/m);
  });

  it('lists the known models for an unknown one', async () => {
    const run = await runCli(['bench', 'resnet18', '--results-dir', resultsDir()]);
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/unknown model "resnet18"; known models: bert-base, bert-large, dlrm, mnist/);
  });

  it('says which served model is missing when MODEL_NAME is wrong', async () => {
    const run = await runCli(['bench', 'generic', ...QUICK, '--results-dir', resultsDir()], {
      MODEL_NAME: 'no-such-model',
    });
    expect(run.code).not.toBe(0);
    expect(`${run.stdout}\n${run.stderr}`).toMatch(/no-such-model/);
  });

  it('names the cause of each level after the server dies, with no generator blame and no CSV row', {
    timeout: 120_000,
  }, async () => {
    // The server in its own process, killed as a crash would kill it, once the bench is past level 1.
    const server = await startServeProcess();
    try {
      const results = resultsDir();
      const bench = startCli(
        [
          'bench',
          'mnist',
          ...QUICK,
          '--step-duration',
          '3s',
          '--concurrency',
          '1,2,4',
          '--metrics-url',
          'off',
          '--results-dir',
          results,
        ],
        { TRITON_URL: `http://127.0.0.1:${server.http}` },
      );
      const pastLevel1 = await waitFor(() => /level 2 of 3/.test(bench.output()), bench.exited);
      server.child.kill('SIGKILL');
      const code = await bench.exited;
      const stdout = bench.stdout();
      expect(pastLevel1, stdout).toBe(true);
      expect(code, stdout).not.toBe(0);
      const folder = runFolder(results, 'mnist');
      const csv = readFileSync(join(folder, 'perf_analyzer.csv'), 'utf8');
      const report = readFileSync(join(folder, 'report.md'), 'utf8');
      const output = `${stdout}\n--- report.md ---\n${report}\n--- perf_analyzer.csv ---\n${csv}`;
      // c1 ran against a live server: its row stays.
      expect(csv, output).toMatch(/^1,/m);
      // c4 began after the kill: no request got an answer. Its one-line cause on the console and in report.md,
      // no CSV row and no perf_analyzer line (perf_analyzer writes none for a level it could not measure).
      const c4 =
        'c4: server unreachable: dial: connection refused (no request succeeded: no figures, no CSV row)';
      expect(stdout, output).toContain(`\n${c4}\n`);
      expect(report, output).toContain(`\n- ${c4}\n`);
      expect(csv, output).not.toMatch(/^4,/m);
      expect(stdout, output).not.toMatch(/^Concurrency: 4,/m);
      // c2 lost its server at some point of its window: its cause in whichever form the kill's moment gave it.
      const verdict = '(server unreachable|all requests failed|[\\d.]+% of requests failed): \\S.*';
      expect(stdout, output).toMatch(new RegExp(`^c2: ${verdict}$`, 'm'));
      expect(report, output).toMatch(new RegExp(`^- c2: ${verdict}$`, 'm'));
      // A failed request is never blamed on the load generator.
      expect(stdout, output).not.toMatch(/^c[24]: load generator bound/m);
      expect(report, output).not.toMatch(/^\| c[24] \|.*load generator bound/m);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});

/** Polls `done` every 100 ms until it holds (true) or `ended` settles first (false). */
async function waitFor(done: () => boolean, ended: Promise<unknown>): Promise<boolean> {
  let over = false;
  void ended.then(() => {
    over = true;
  });
  while (!over) {
    if (done()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return done();
}
