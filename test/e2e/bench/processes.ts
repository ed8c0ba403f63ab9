/**
 * Process helpers for the interruption tests: start the bench as a user's shell would (its own process
 * group), list every process below it from /proc, and tell whether a pid is still alive afterwards.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MECHANICS } from './run-cli.ts';

const CLI = join(import.meta.dirname, '../../../bin/k6-triton.js');

/** A bench started in the background: its process, its output so far, and how it ended. */
export interface StartedCli {
  child: ChildProcess;
  output(): string;
  /** Its standard output alone, so whole lines stay whole. */
  stdout(): string;
  exited: Promise<number | null>;
}

/** Starts the CLI as the leader of its own process group, so a test can signal the group as a terminal does. */
export function startCli(args: string[], env: Record<string, string> = {}): StartedCli {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, RUNTIME: '', TRITON_URL: '', TRITON_GRPC_URL: '', ...MECHANICS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let text = '';
  let stdout = '';
  child.stdout?.on('data', (d) => {
    text += d;
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    text += d;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))),
  );
  return { child, output: () => text, stdout: () => stdout, exited };
}

/** Direct children of a process (all its threads), from /proc; empty once it is gone. */
function childrenOf(pid: number): number[] {
  try {
    const tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
    return tasks.split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Every process below `pid`, children first. */
export function descendants(pid: number): number[] {
  const found: number[] = [];
  for (const child of childrenOf(pid)) found.push(child, ...descendants(child));
  return found;
}

/** True while a process exists and is not a zombie. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Collects the descendants of `pid` every 100 ms until stop(): processes that come and go are caught too. */
export function watchDescendants(pid: number): { stop(): number[] } {
  const seen = new Set<number>();
  const take = () => {
    for (const child of descendants(pid)) seen.add(child);
  };
  take();
  const timer = setInterval(take, 100);
  return {
    stop() {
      clearInterval(timer);
      return [...seen];
    },
  };
}

/** Polls `check` every 100 ms up to `tries` times; true once it holds. */
export async function until(check: () => boolean | Promise<boolean>, tries = 600): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
