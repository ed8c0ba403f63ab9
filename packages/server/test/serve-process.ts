/**
 * `k6-triton serve` in a process of its own on ephemeral ports of 127.0.0.1, for tests that need what only a
 * separate process shows: its exit code, its RSS, a heap limit, a crash.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../../bin/k6-triton.js', import.meta.url));

/** A running serve process. */
export interface ServeProcess {
  child: ChildProcess;
  httpPort: number;
  grpcPort: number;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once it exits. */
  exit: Promise<number | string>;
}

/** Starts serve with `args` (after ephemeral ports) and `nodeArgs` for node; resolves once it listens. */
export async function serveProcess(args: string[], nodeArgs: string[] = []): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [...nodeArgs, BIN, 'serve', '--http-port', '0', '--grpc-port', '0', '--metrics-port', '0', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d) => {
    out += d.toString();
  });
  const exit = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (out.includes('Started Metrics Service')) resolve();
      else if (child.exitCode !== null) reject(new Error(`serve exited early: ${out}`));
      else setTimeout(check, 50);
    };
    check();
  });
  const port = (what: string) =>
    Number(new RegExp(`Started ${what} at 127\\.0\\.0\\.1:(\\d+)`).exec(out)![1]);
  return {
    child,
    httpPort: port('HTTPService'),
    grpcPort: port('GRPCInferenceService'),
    output: () => out,
    exit,
  };
}

/** A process's resident set size now (VmRSS) or its peak so far (VmHWM), in bytes (Linux /proc). */
export function rssOf(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) * 1024;
}
