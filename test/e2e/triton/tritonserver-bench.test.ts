/**
 * `bench` with TRITONSERVER: the bench starts real Triton instead of the embedded server, measures every level
 * with Triton's own statistics, and stops it at the end, at a Ctrl-C to the terminal's process group, and
 * when the process that started it is killed outright. Skipped where there is no tritonserver.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunReport } from '../../../lib/summary/types.ts';
import { alive, startCli, until, watchDescendants } from '../bench/processes.ts';
import { resultsDir, runCli, runFolder } from '../bench/run-cli.ts';
import { reportProblems } from './level-checks.ts';
import { answers, REAL_TRITON } from './servers.ts';

const SHORT = ['--step-duration', '2s', '--warmup', '1s', '--count', '2', '--runtime', 'node'];
/** k6's exit code for a run stopped by a signal. */
const EXTERNAL_ABORT = 105;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe.skipIf(!REAL_TRITON.path)(`bench on a tritonserver it starts ${REAL_TRITON.skipReason}`, () => {
  const env = { TRITONSERVER: REAL_TRITON.path ?? '' };

  it('measures every level with Triton statistics and stops the server at the end', async () => {
    const results = resultsDir();
    const run = await runCli(
      ['bench', 'mnist', '--concurrency', '1,2', ...SHORT, '--results-dir', results],
      env,
    );
    const output = `${run.stdout}\n${run.stderr}`;
    expect([0, 99], output).toContain(run.code);
    const url = /^tritonserver on (http:\/\/127\.0\.0\.1:\d+)/m.exec(run.stdout)?.[1];
    expect(url, output).toBeDefined();
    const summary = JSON.parse(readFileSync(join(runFolder(results, 'mnist'), 'summary.json'), 'utf8')) as {
      report: RunReport;
    };
    // The bench scrapes the server it started: Triton's metrics port, per level.
    expect(reportProblems(summary.report, { levels: ['c1', 'c2'], metrics: true })).toEqual([]);
    expect(await answers(`${url}/v2/health/live`)).toBe(false);
  }, 180_000);

  it('SIGINT to the process group stops the run and tritonserver, exit 105', async () => {
    const results = resultsDir();
    const bench = startCli(
      ['bench', 'mnist', '--concurrency', '1', ...SHORT, '--step-duration', '60s', '--results-dir', results],
      env,
    );
    cleanups.push(() => {
      if (bench.child.exitCode === null) process.kill(-bench.child.pid!, 'SIGKILL');
    });
    const watcher = watchDescendants(bench.child.pid!);
    const measuring = await until(() => /level 1 of 1 \(c1, measuring\)/.test(bench.output()), 1200);
    expect(measuring, bench.output()).toBe(true);
    process.kill(-bench.child.pid!, 'SIGINT');
    const code = await bench.exited;
    const children = watcher.stop();
    expect(code, bench.output()).toBe(EXTERNAL_ABORT);
    // The runtime, the guard and tritonserver at least; none outlives the bench.
    expect(children.length).toBeGreaterThanOrEqual(3);
    expect(await until(() => children.filter(alive).length === 0, 100)).toBe(true);
  }, 180_000);

  it('stops when the process that started it is killed outright', async () => {
    // A process that starts tritonserver, prints its URL and waits: killed with SIGKILL, it runs no handler.
    const script = [
      "import { startTritonserver } from './measure/core/tritonserver.ts';",
      "import { exportCatalogRepository } from './measure/core/catalog-repository.ts';",
      "import { mkdtempSync } from 'node:fs';",
      "const dir = await exportCatalogRepository({ modelId: 'mnist' }, mkdtempSync('/tmp/k6t-guard-'));",
      `const s = await startTritonserver({ binary: ${JSON.stringify(REAL_TRITON.path)}, repository: dir });`,
      'console.log(s.url);',
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const starter = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: join(import.meta.dirname, '../../..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    cleanups.push(() => starter.kill('SIGKILL'));
    let out = '';
    starter.stdout.on('data', (d) => (out += d));
    expect(await until(() => /^http:/m.test(out), 1800)).toBe(true);
    const url = out.trim();
    expect(await answers(`${url}/v2/health/live`)).toBe(true);
    starter.kill('SIGKILL');
    // Triton drains for up to its exit timeout (5 s) after the guard's SIGTERM.
    expect(await until(async () => !(await answers(`${url}/v2/health/live`)), 300)).toBe(true);
  }, 240_000);
});
