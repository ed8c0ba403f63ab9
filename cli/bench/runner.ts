/**
 * Runs a bundled scenario under real k6 when there is one (K6_BIN, or `k6` on PATH), else under
 * the Node runtime (`k6-triton run`), both as child processes with the same k6 command line, so
 * the results cannot tell which ran.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CpuSample, sampleCpu } from './cpu.ts';

/** Which runtime to use; auto prefers real k6. */
export type RuntimeChoice = 'auto' | 'k6' | 'node';

/** Where a run went and how it ended. */
export interface RunOutcome {
  runtime: 'k6' | 'node';
  exitCode: number;
  /** The runtime process's CPU over the run (empty where /proc is absent). */
  cpu: CpuSample[];
}

/** The k6 binary: K6_BIN, else the first `k6` on PATH; undefined when there is none. */
export function findK6(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.K6_BIN) return env.K6_BIN;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'k6');
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The command that runs a script: [program, ...args before the k6 flags]. */
export function runtimeCommand(choice: RuntimeChoice, env: NodeJS.ProcessEnv = process.env) {
  const k6 = choice === 'node' ? undefined : findK6(env);
  if (choice === 'k6' && !k6) {
    throw new Error('RUNTIME=k6 but no k6 binary was found; install k6, set K6_BIN, or use RUNTIME=node');
  }
  if (k6) return { runtime: 'k6' as const, program: k6, args: ['run'] };
  const cli = fileURLToPath(new URL('../../bin/k6-triton.js', import.meta.url));
  return { runtime: 'node' as const, program: process.execPath, args: [cli, 'run'] };
}

/** Runs `script` with -e pairs and extra k6 flags; resolves with the exit code (SIGINT reaches the child too). */
export async function runScenario(options: {
  runtime: RuntimeChoice;
  script: string;
  env: Record<string, string>;
  k6Args?: string[];
}): Promise<RunOutcome> {
  const command = runtimeCommand(options.runtime);
  const envFlags = Object.entries(options.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const args = [...command.args, ...envFlags, ...(options.k6Args ?? []), options.script];
  const child = spawn(command.program, args, { stdio: 'inherit' });
  const cpu = child.pid === undefined ? undefined : sampleCpu(child.pid);
  // The child handles Ctrl-C itself (stop, teardown, summary); we wait and then write the reports.
  const ignore = () => {};
  process.on('SIGINT', ignore);
  try {
    const exitCode = await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve(code ?? (signal === 'SIGINT' ? 105 : 1)));
    });
    return { runtime: command.runtime, exitCode, cpu: cpu?.stop() ?? [] };
  } finally {
    process.off('SIGINT', ignore);
  }
}
