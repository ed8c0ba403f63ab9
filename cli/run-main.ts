/**
 * `k6-triton run` alone: the entry that build.ts bundles to build/run.js, so the load generator's
 * process starts from plain JavaScript, without the TypeScript loader or the other commands' modules
 * (bin/k6-triton.js uses it when it is newer than every source).
 */
import { Command } from 'commander';
import { execute } from './execute.ts';
import { registerRun } from './run.ts';

/** Runs `k6-triton run ...` and returns the exit code. */
export async function runMain(argv: string[]): Promise<number> {
  const program = new Command('k6-triton').showHelpAfterError('(run with --help for usage)').exitOverride();
  registerRun(program);
  return execute(program, argv);
}
