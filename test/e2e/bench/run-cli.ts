/** Runs `k6-triton <command>` as a child process, as a user would, and collects what it printed. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

const CLI = join(import.meta.dirname, '../../../bin/k6-triton.js');

/** Short sweeps: one or two levels of one second, no warm-up, two payload samples. */
export const QUICK = ['--step-duration', '1s', '--warmup', '0s', '--count', '2', '--runtime', 'node'];

/**
 * One-second windows on a shared 2-core machine carry no p99 and are seldom stable: the tests of a run's
 * mechanics take one pass and let an inconclusive budget pass; the tests of verdicts and trials
 * (verdicts.test.ts, test/report/judge.test.ts) set these themselves.
 */
export const MECHANICS: Readonly<Record<string, string>> = { MAX_TRIALS: '3', ALLOW_INCONCLUSIVE: 'true' };

/** A fresh results folder for one test. */
export function resultsDir(): string {
  return mkdtempSync(join(tmpdir(), 'k6-triton-results-'));
}

/** The single run folder a bench wrote under resultsDir/<model>/. */
export function runFolder(results: string, model: string): string {
  const runs = readdirSync(join(results, model));
  if (runs.length !== 1) throw new Error(`expected one run under ${model}, found ${runs.length}`);
  return join(results, model, runs[0]!);
}

/** Runs the CLI with args (from `cwd`, default this process's); never rejects on a non-zero exit. */
export function runCli(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      // The caller's shell settings must not reach the run: each test states what it sets.
      env: {
        ...process.env,
        RUNTIME: '',
        TRITON_URL: '',
        TRITON_GRPC_URL: '',
        P95_MS: '',
        P99_MS: '',
        ...MECHANICS,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
