/**
 * `k6-triton serve` in a child process, for the benchmarks that measure the server from outside (its own
 * event loop, its own /proc entry), as a user's k6 would see it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** A running `serve` and the ports it printed (-1 for a port turned off). */
export interface ServeProcess {
  child: ChildProcess;
  http: number;
  grpc: number;
  metrics: number;
}

/**
 * Starts `serve` on ephemeral ports, then `args` (e.g. `--model-repository DIR`; a later port flag wins),
 * with `env`; resolves once it printed its last "Started" line.
 */
export function startServeProcess(
  opts: { args?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'k6-triton.js'),
      ...['serve', '--http-port', '0', '--grpc-port', '0', '--metrics-port', '0'],
      ...(opts.args ?? []),
    ],
    { cwd: ROOT, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  const port = (service: string) =>
    Number(new RegExp(`Started ${service} at [^\\n]*:(-?\\d+)`).exec(out)![1]);
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      // serve prints gRPC, HTTP, then Metrics, each port even when it is off.
      if (!/Started Metrics Service at [^\n]*:-?\d+\n/.test(out)) return;
      // Later output (verbose logs) is drained, not kept.
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      resolve({
        child,
        http: port('HTTPService'),
        grpc: port('GRPCInferenceService'),
        metrics: port('Metrics Service'),
      });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`serve exited with ${code} before listening: ${out.trim()}`)),
    );
  });
}
