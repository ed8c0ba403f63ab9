/**
 * Issue 35 item 5: the target is the one the user named. `--url http://h:8000` implies gRPC on h:8001 and
 * metrics on h:8002 (Triton's ports); a URL on another port implies neither, so a gRPC run without --grpc-url
 * is refused before anything starts; the header names the three endpoints; hints name the flag the user used.
 * The implied case binds Triton's own ports on a loopback address of its own (127.x.y.z), so it does not meet
 * a server another process runs on 127.0.0.1.
 */
import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import type { RunningServer } from '@k6-triton/server';
import { QUICK, resultsDir, runCli } from './run-cli.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** gRPC inferences the server counted for mnist (the statistics extension counts both protocols). */
async function inferences(url: string): Promise<number> {
  const res = await fetch(`${url}/v2/models/onnx-mnist-cpu/stats`);
  const body = (await res.json()) as { model_stats: { inference_count: number }[] };
  return body.model_stats[0]?.inference_count ?? 0;
}

describe('the target is the one the user named', () => {
  it('--url on port 8000 implies gRPC on 8001 and metrics on 8002 of that host', async () => {
    const host = `127.${randomInt(1, 250)}.${randomInt(1, 250)}.${randomInt(2, 250)}`;
    let server: RunningServer;
    try {
      server = await startCatalogServer({ host, httpPort: 8000, grpcPort: 8001, metricsPort: 8002 });
    } catch (error) {
      // Only a process holding Triton's ports on every address (0.0.0.0) gets here.
      console.log(`implied-endpoints case skipped: ${host}:8000-8002 taken (${(error as Error).message})`);
      return;
    }
    cleanups.push(() => server.stop());
    const run = await runCli(
      [
        ...['bench', 'mnist', ...QUICK, '--concurrency', '1', '--protocol', 'grpc'],
        ...['--url', `http://${host}:8000`, '--results-dir', resultsDir()],
      ],
      { P95_MS: '60000', P99_MS: '60000' },
    );
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const header = run.stdout.split('\n').slice(0, 3).join('\n');
    expect(header).toContain(`endpoints: HTTP http://${host}:8000 (--url)`);
    expect(header).toContain(`gRPC ${host}:8001 (Triton's port beside --url)`);
    expect(header).toContain(`metrics http://${host}:8002/metrics (Triton's port beside --url)`);
    expect(await inferences(`http://${host}:8000`)).toBeGreaterThan(0);
  }, 120_000);

  it('refuses a gRPC run whose --url is not on port 8000, naming the flag to give, before anything starts', async () => {
    const port = await closedPort();
    const run = await runCli([
      ...['bench', 'mnist', ...QUICK, '--protocol', 'grpc', '--url', `http://127.0.0.1:${port}`],
      ...['--results-dir', resultsDir()],
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      `k6-triton: --url http://127.0.0.1:${port} is not on Triton's HTTP port 8000, so the gRPC endpoint is not implied; give --grpc-url host:port (TRITON_GRPC_URL)`,
    );
    expect(run.stdout).not.toMatch(/embedded server|endpoints:/);
  });

  it('names TRITON_URL when the URL came from the environment', async () => {
    const port = await closedPort();
    const run = await runCli(
      ['bench', 'mnist', ...QUICK, '--protocol', 'grpc', '--results-dir', resultsDir()],
      {
        TRITON_URL: `http://127.0.0.1:${port}`,
      },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`TRITON_URL=http://127.0.0.1:${port} is not on Triton's HTTP port 8000`);
  });

  it('an unreachable --url gets a hint that names --url, not TRITON_URL', async () => {
    const port = await closedPort();
    const run = await runCli([
      ...['bench', 'mnist', ...QUICK, '--concurrency', '1', '--url', `http://127.0.0.1:${port}`],
      ...['--results-dir', resultsDir()],
    ]);
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.code).not.toBe(0);
    expect(output).toContain(
      `server http://127.0.0.1:${port} is unreachable or not live; start it or check --url`,
    );
    expect(output).not.toContain('set TRITON_URL');
    expect(run.stdout).toContain(`metrics none (not implied off port 8000; give --metrics-url to scrape)`);
  });
});
