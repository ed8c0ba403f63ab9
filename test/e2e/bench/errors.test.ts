/**
 * How the bench command fails: a missed budget exits 99 like k6, an unreachable server and an
 * unknown model each give one readable line and a non-zero exit, and a server lost mid-run still
 * leaves the finished levels' results and names the cause of the levels after it.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../../server/index.ts';
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

  it('gives one line naming the URL when the server is unreachable', async () => {
    const port = await closedPort();
    const run = await runCli(
      ['bench', 'mnist', ...QUICK, '--concurrency', '1', '--results-dir', resultsDir()],
      {
        TRITON_URL: `http://127.0.0.1:${port}`,
      },
    );
    expect(run.code).not.toBe(0);
    expect(`${run.stdout}\n${run.stderr}`).toContain(
      `server http://127.0.0.1:${port} is unreachable or not live`,
    );
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

  it('keeps the finished levels when the server goes away mid-run', async () => {
    const server = await startServer({ httpPort: 0, grpcPort: -1, metricsPort: -1 });
    const results = resultsDir();
    const running = runCli(
      [
        'bench',
        'mnist',
        ...QUICK,
        '--step-duration',
        '2s',
        // One level after the stop is enough to find nobody there; each one spins on refused connections.
        '--concurrency',
        '1,2',
        '--results-dir',
        results,
      ],
      { TRITON_URL: `http://127.0.0.1:${server.httpPort}` },
    );
    // Stop the server once the first level has served requests: later levels find nobody there.
    const seen = await waitForInferences(server.httpPort, 'onnx-mnist-cpu', 200);
    await server.stop();
    const run = await running;
    expect(seen).toBe(true);
    expect(run.code).not.toBe(0);
    const folder = runFolder(results, 'mnist');
    const csv = readFileSync(join(folder, 'perf_analyzer.csv'), 'utf8');
    const report = readFileSync(join(folder, 'report.md'), 'utf8');
    const output = `${run.stdout}\n--- report.md ---\n${report}`;
    // c1 served before the stop, so it keeps its row; c2 found nobody (when the stop came late on a busy
    // machine, few of its requests got through): either way, its cause on the console and in report.md.
    expect(csv, output).toMatch(/^1,/m);
    const verdict = '(server unreachable|all requests failed|[\\d.]+% of requests failed): \\S.*';
    expect(run.stdout, output).toMatch(new RegExp(`^c2: ${verdict}$`, 'm'));
    expect(report, output).toMatch(new RegExp(`^- c2: ${verdict}$`, 'm'));
    // A level with no successful request: no CSV row (perf_analyzer writes none) and no perf_analyzer line;
    // one where some got through keeps its row.
    if (/^c2: .*\(no request succeeded/m.test(run.stdout)) {
      expect(csv, output).not.toMatch(/^2,/m);
      expect(run.stdout, output).not.toMatch(/^Concurrency: 2,/m);
    } else {
      expect(csv, output).toMatch(/^2,/m);
    }
    // Failed requests are never blamed on the load generator.
    expect(run.stdout, output).not.toMatch(/^c2: load generator bound/m);
  });
});

/** Polls the statistics extension until the model has served `count` inferences. */
async function waitForInferences(port: number, model: string, count: number): Promise<boolean> {
  for (let i = 0; i < 600; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/v2/models/${model}/stats`).catch(() => undefined);
    if (res?.ok) {
      const body = (await res.json()) as { model_stats: { inference_count: number }[] };
      if ((body.model_stats[0]?.inference_count ?? 0) >= count) return true;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
