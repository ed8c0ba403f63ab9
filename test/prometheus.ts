/**
 * A real Prometheus for tests of the remote-write output: Debian's `prometheus` (PROMETHEUS_BIN to use another)
 * with its remote-write receiver, no scrape jobs, its own temporary storage, on 127.0.0.1 and a free port.
 * Where the binary is absent, `prometheusAbsent` says so and the tests skip with it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = process.env['PROMETHEUS_BIN'] ?? '/usr/bin/prometheus';

/** Why the Prometheus tests cannot run here, or null when they can. */
export const prometheusAbsent: string | null = existsSync(BIN)
  ? null
  : `no Prometheus at ${BIN} (apt-get install prometheus, or set PROMETHEUS_BIN)`;

/** A started Prometheus: its base URL, its remote-write URL, a query helper, and how to stop it. */
export interface Prometheus {
  url: string;
  writeUrl: string;
  /** GETs an HTTP API path (e.g. `/api/v1/series?...`) and returns its `data`. */
  api: (path: string) => Promise<unknown>;
  stop: () => Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Starts Prometheus and resolves once /-/ready answers 200 (up to 30 s); throws with its log otherwise. */
export async function startPrometheus(): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'k6t-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(config, 'global:\n  scrape_interval: 1h\n');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let log = '';
  const proc: ChildProcess = spawn(
    BIN,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      '--web.enable-remote-write-receiver',
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  proc.stdout!.on('data', (b: Buffer) => (log += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (log += b.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (proc.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not get ready:\n${log.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const api = async (path: string): Promise<unknown> => {
    const res = await fetch(url + path);
    const body = (await res.json()) as { status: string; data: unknown; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${path}: ${body.error}`);
    return body.data;
  };
  return { url, writeUrl: `${url}/api/v1/write`, api, stop };
}
