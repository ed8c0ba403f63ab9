/**
 * Starts and stops a real Triton Inference Server (`tritonserver`) on a model repository, on free
 * 127.0.0.1 ports, with the same handle the embedded server gives a bench run. Used where a user sets
 * TRITONSERVER=<path> and by the tests that hold the suite and the embedded server to the real server.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { EmbeddedServer } from './embedded.ts';
import type { Interruption } from './interrupt.ts';
import { childCommand } from './process-group.ts';

/** How a real tritonserver is started. */
export interface TritonserverOptions {
  /** The tritonserver binary (a user's TRITONSERVER). */
  binary: string;
  /** The model repository folder (`k6-triton repository <dir>` writes one for the catalog). */
  repository: string;
  /** Triton's --model-control-mode. @default 'none' (every model in the repository is loaded at start) */
  modelControl?: 'none' | 'explicit' | 'poll';
  /** Models loaded at start in explicit mode (--load-model); '*' for all. */
  loadModels?: string[];
  /** Further tritonserver flags, e.g. ['--log-verbose=1']. */
  args?: string[];
  /** Each line tritonserver prints (stdout and stderr); by default they are kept for error messages only. */
  log?: (line: string) => void;
  /** How long to wait for /v2/health/ready. @default 180 s (the first call unpacks the binary) */
  readyTimeout_ms?: number;
}

/** A running tritonserver: the bench's server handle plus its ports. */
export interface RealTriton extends EmbeddedServer {
  httpPort: number;
  grpcPort: number;
  metricsPort: number;
  /** The last lines it printed (for failure messages). */
  recentLog(): string;
}

/** Triton waits this long for in-flight requests on SIGTERM (its default is 30 s). */
const EXIT_TIMEOUT_S = 5;
/** After SIGTERM, how long before the server is killed. */
const STOP_GRACE_MS = 15_000;
const LOG_LINES_KEPT = 40;
const GUARD = fileURLToPath(new URL('./tritonserver-guard.sh', import.meta.url));

/** Three ports the kernel just handed out on 127.0.0.1 (closed again, so tritonserver can bind them). */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const s = createServer();
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** Starts tritonserver and resolves once /v2/health/ready answers 200; rejects with its last log lines if it exits first. */
export async function startTritonserver(
  opts: TritonserverOptions,
  interruption?: Interruption,
): Promise<RealTriton> {
  const [httpPort, grpcPort, metricsPort] = (await freePorts(3)) as [number, number, number];
  const args = [
    `--model-repository=${opts.repository}`,
    `--http-port=${httpPort}`,
    `--grpc-port=${grpcPort}`,
    `--metrics-port=${metricsPort}`,
    '--http-address=127.0.0.1',
    '--grpc-address=127.0.0.1',
    '--metrics-address=127.0.0.1',
    `--exit-timeout-secs=${EXIT_TIMEOUT_S}`,
    `--model-control-mode=${opts.modelControl ?? 'none'}`,
    ...(opts.loadModels ?? []).map((m) => `--load-model=${m}`),
    ...(opts.args ?? []),
  ];
  // In a process group of its own, so a terminal's Ctrl-C does not shut it down under a run's last requests
  // (the caller stops it), through a guard that stops it when the caller dies (tritonserver-guard.sh).
  const start = childCommand('/bin/sh', [GUARD, opts.binary, ...args], true);
  const child = spawn(start.program, start.args, {
    // stdin is the guard's lifeline: this process holds it open until it exits.
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: start.detached,
  });
  const kept: string[] = [];
  const onText = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (!line) continue;
      kept.push(line);
      if (kept.length > LOG_LINES_KEPT) kept.shift();
      opts.log?.(line);
    }
  };
  child.stdout!.on('data', onText);
  child.stderr!.on('data', onText);
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exitCode = code ?? (signal ? -1 : null);
      resolve();
    }),
  );
  let spawnError: Error | undefined;
  child.once('error', (err) => {
    spawnError = err;
  });
  // The whole group: the guard and the server (the group's id is the guard's pid).
  const kill = () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  const unKill = interruption?.onKill(kill);
  // It hears no signal the caller's group gets: it must not outlive the caller's exit either.
  process.once('exit', kill);
  void exited.then(() => {
    unKill?.();
    process.off('exit', kill);
  });
  const recentLog = () => kept.join('\n');
  const url = `http://127.0.0.1:${httpPort}`;

  const deadline = Date.now() + (opts.readyTimeout_ms ?? 180_000);
  for (;;) {
    if (spawnError) throw new Error(`tritonserver: cannot start ${opts.binary}: ${spawnError.message}`);
    if (exitCode !== undefined) {
      throw new Error(`tritonserver exited with code ${exitCode} before it was ready:\n${recentLog()}`);
    }
    if (Date.now() > deadline) {
      kill();
      throw new Error(
        `tritonserver was not ready within ${opts.readyTimeout_ms ?? 180_000} ms:\n${recentLog()}`,
      );
    }
    try {
      const res = await fetch(`${url}/v2/health/ready`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  return {
    url,
    grpcUrl: `127.0.0.1:${grpcPort}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    httpPort,
    grpcPort,
    metricsPort,
    recentLog,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(kill, STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
