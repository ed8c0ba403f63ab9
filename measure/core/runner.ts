/**
 * Runs a bundled scenario under real k6 when there is one (K6_BIN, or `k6` on PATH), else under
 * the Node runtime (`k6-triton run`), both as child processes with the same k6 command line, so
 * the results cannot tell which ran.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { packagePath } from './paths.ts';
import { type CpuSample, sampleCpu } from './cpu.ts';
import { EXIT } from './exit-codes.ts';
import type { Interruption } from './interrupt.ts';
import { childCommand } from './process-group.ts';

/** Which runtime to use; auto prefers real k6. */
export type RuntimeChoice = 'auto' | 'k6' | 'node';

/** Where a run went and how it ended. */
export interface RunOutcome {
  runtime: 'k6' | 'node';
  exitCode: number;
  /** The runtime process's CPU over the run (empty where /proc is absent). */
  cpu: CpuSample[];
  /** When the runtime process ended, epoch ms. */
  ended_ms: number;
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
  const cli = packagePath('bin', 'k6-triton.js');
  return { runtime: 'node' as const, program: process.execPath, args: [cli, 'run'] };
}

/** Seconds between stopping a hung runtime and killing it. */
export const WATCHDOG_KILL_S = 20;

/** util-linux's setpriv, which can ask the kernel to kill a child when its parent dies; undefined elsewhere. */
function findSetpriv(): string | undefined {
  return process.platform === 'linux' && existsSync('/usr/bin/setpriv') ? '/usr/bin/setpriv' : undefined;
}

/**
 * Runs `script` with `env` in the runtime's process environment (k6 and the Node runtime read it into
 * __ENV, as k6 run does by default) and extra k6 flags; resolves with the exit code. Never as -e pairs: a
 * command line is readable by every local user (/proc/<pid>/cmdline), and HEADERS may hold a bearer token. With `interruption`, the
 * runtime runs in its own process group and hears a bench's SIGINT or SIGTERM once, from here (k6 takes a
 * second signal as "stop at once, no summary"), and is killed with its group on a second signal.
 */
export async function runScenario(options: {
  runtime: RuntimeChoice;
  script: string;
  env: Record<string, string>;
  k6Args?: string[];
  /** Extra environment of the runtime's process (SSL_CERT_FILE). */
  processEnv?: Record<string, string>;
  interruption?: Interruption;
  /** The runtime's stdout and stderr go to this file (appended) instead of the terminal: capacity's levels. */
  log?: string;
  /**
   * Seconds after which a runtime still running is hung (a VU that never returns holds k6 past its plan and
   * past a Ctrl-C): it is stopped as Ctrl-C would, killed with its group WATCHDOG_KILL_S later, and the run
   * fails (exit 1) with one line saying so; what it wrote so far stays. @default none
   */
  deadline_s?: number;
}): Promise<RunOutcome> {
  const command = runtimeCommand(options.runtime);
  const keepsEnvOut = (options.k6Args ?? []).find((a) =>
    /^--(no-include-system-env-vars|include-system-env-vars=(false|0))$/.test(a),
  );
  if (keepsEnvOut) {
    throw new Error(
      `${keepsEnvOut}: the run's settings reach the runtime through its environment (never argv, which may carry secrets); drop the flag`,
    );
  }
  const args = [...command.args, ...(options.k6Args ?? []), options.script];
  const own = options.interruption !== undefined;
  // In its own group the runtime no longer dies with the bench's group; the kernel kills it if the bench
  // itself is killed (SIGKILL cannot be handled), so it never goes on loading a stopped server.
  const setpriv = own ? findSetpriv() : undefined;
  const start = setpriv
    ? childCommand(setpriv, ['--pdeathsig', 'KILL', '--', command.program, ...args], own)
    : childCommand(command.program, args, own);
  const logFd = options.log === undefined ? undefined : openSync(options.log, 'a');
  const child = spawn(start.program, start.args, {
    stdio: logFd === undefined ? 'inherit' : ['inherit', logFd, logFd],
    detached: start.detached,
    env: { ...process.env, ...options.processEnv, ...options.env },
  });
  const cpu = child.pid === undefined ? undefined : sampleCpu(child.pid);
  let killed = false;
  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is empty: nothing left to stop.
    }
  };
  let hung = false;
  const timers: NodeJS.Timeout[] = [];
  if (options.deadline_s !== undefined) {
    const deadline_s = options.deadline_s;
    timers.push(
      setTimeout(() => {
        hung = true;
        console.error(
          `k6-triton: the runtime (${command.runtime}) is still running ${deadline_s}s after it started, past its plan: stopping it, and killing it in ${WATCHDOG_KILL_S}s if it does not stop (a VU that never returns)`,
        );
        child.kill('SIGINT');
        timers.push(setTimeout(killGroup, WATCHDOG_KILL_S * 1000));
      }, deadline_s * 1000),
    );
  }
  const unStop = options.interruption?.onStop((signal) => child.kill(signal));
  const unKill = options.interruption?.onKill(() => {
    killed = true;
    killGroup();
  });
  try {
    const exitCode = await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) =>
        resolve(
          code ?? (killed || signal === 'SIGINT' || signal === 'SIGTERM' ? EXIT.EXTERNAL_ABORT : EXIT.FAILED),
        ),
      );
    });
    return {
      runtime: command.runtime,
      exitCode: hung ? EXIT.FAILED : exitCode,
      cpu: cpu?.stop() ?? [],
      ended_ms: Date.now(),
    };
  } finally {
    for (const timer of timers) clearTimeout(timer);
    cpu?.stop();
    if (logFd !== undefined) closeSync(logFd);
    unStop?.();
    unKill?.();
    // Anything the runtime started in its group goes with it.
    if (own) killGroup();
  }
}
