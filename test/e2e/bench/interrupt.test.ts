/**
 * A bench interrupted by SIGINT or SIGTERM, sent to its process alone or to its process group (as a
 * terminal's Ctrl-C does): every child stops, the finished levels are written, the level whose window
 * was cut is named as not measured (never reported as throughput), and the exit code is k6's 105.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import { startInflightProxy } from './inflight-proxy.ts';
import { alive, startCli, until, watchDescendants } from './processes.ts';
import { resultsDir, runFolder } from './run-cli.ts';

/** k6's exit code for a run stopped by a signal (errext ExternalAbort). */
const EXTERNAL_ABORT = 105;
const NODE_RUNTIME = ['--warmup', '0s', '--count', '2', '--runtime', 'node'];
const GENEROUS = { P95_MS: '60000', P99_MS: '60000' };

/** Inferences the model has served, from the statistics extension (0 while the server is not up). */
async function inferences(url: string, model: string): Promise<number> {
  const res = await fetch(`${url}/v2/models/${model}/stats`).catch(() => undefined);
  if (!res?.ok) return 0;
  const body = (await res.json()) as { model_stats: { inference_count: number }[] };
  return body.model_stats[0]?.inference_count ?? 0;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('bench interrupted', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s to the bench process alone stops the runtime and the embedded server, marks the cut level, exits 105',
    async (signal) => {
      const results = resultsDir();
      const bench = startCli(
        [
          ...['bench', 'mnist', ...NODE_RUNTIME, '--concurrency', '1', '--step-duration', '60s'],
          ...['--results-dir', results],
        ],
        GENEROUS,
      );
      cleanups.push(() => {
        if (bench.child.exitCode === null) process.kill(-bench.child.pid!, 'SIGKILL');
      });
      const watcher = watchDescendants(bench.child.pid!);
      // The window of c1 runs once the embedded server has served requests (no warm-up).
      const served = await until(async () => {
        const url = /embedded server on (http:\/\/127\.0\.0\.1:\d+)/.exec(bench.output())?.[1];
        return url !== undefined && (await inferences(url, 'onnx-mnist-cpu')) >= 50;
      });
      expect(served, bench.output()).toBe(true);
      process.kill(bench.child.pid!, signal);
      const code = await bench.exited;
      const children = watcher.stop();

      expect(code, bench.output()).toBe(EXTERNAL_ABORT);
      // The embedded server and the runtime, at least; none outlives the bench.
      expect(children.length).toBeGreaterThanOrEqual(2);
      expect(children.filter(alive)).toEqual([]);
      const dir = runFolder(results, 'mnist');
      expect(readFileSync(join(dir, 'perf_analyzer.csv'), 'utf8').trim().split('\n')).toHaveLength(1);
      const note = /c1: not measured \(interrupted after \d+(\.\d)? s of 60 s\)/;
      expect(readFileSync(join(dir, 'report.md'), 'utf8')).toMatch(note);
      expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/not measured \(interrupted after/);
    },
    120_000,
  );

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s to the process group keeps the finished level and names the cut one, exits 105',
    async (signal) => {
      const server = await startCatalogServer({ httpPort: 0, grpcPort: -1, metricsPort: -1 });
      cleanups.push(() => server.stop());
      const proxy = await startInflightProxy(`http://127.0.0.1:${server.httpPort}`);
      cleanups.push(() => proxy.close());
      const results = resultsDir();
      const bench = startCli(
        [
          ...['bench', 'mnist', ...NODE_RUNTIME, '--concurrency', '1,2', '--step-duration', '4s'],
          ...['--results-dir', results],
        ],
        { ...GENEROUS, TRITON_URL: proxy.url },
      );
      cleanups.push(() => {
        if (bench.child.exitCode === null) process.kill(-bench.child.pid!, 'SIGKILL');
      });
      const watcher = watchDescendants(bench.child.pid!);
      // Two requests in flight at once: c1 is over and c2's window has begun.
      expect(await until(() => proxy.peak() >= 2), bench.output()).toBe(true);
      process.kill(-bench.child.pid!, signal);
      const code = await bench.exited;
      const children = watcher.stop();

      expect(code, bench.output()).toBe(EXTERNAL_ABORT);
      expect(children.length).toBeGreaterThanOrEqual(1);
      expect(children.filter(alive)).toEqual([]);
      const dir = runFolder(results, 'mnist');
      const csv = readFileSync(join(dir, 'perf_analyzer.csv'), 'utf8');
      expect(csv).toMatch(/^1,/m);
      expect(csv).not.toMatch(/^2,/m);
      const report = readFileSync(join(dir, 'report.md'), 'utf8');
      expect(report).toMatch(/c2: not measured \(interrupted after \d+(\.\d)? s of 4 s\)/);
      const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
      expect(junit).toMatch(/classname="[^"]*\.c2"[\s\S]*not measured \(interrupted after/);
    },
    120_000,
  );
});
