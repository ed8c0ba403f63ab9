import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { packagePath } from '../measure/core/paths.ts';
import { registerArchive } from './archive.ts';
import { execute } from './execute.ts';
import { registerBench } from './bench.ts';
import { registerCapacity } from './capacity.ts';
import { registerCompare } from './compare.ts';
import { registerInspect } from './inspect.ts';
import { registerK8s } from './k8s.ts';
import { registerMerge } from './merge.ts';
import { registerModels } from './models.ts';
import { registerPayloads } from './payloads.ts';
import { registerRepository } from './repository.ts';
import { registerRescore } from './rescore.ts';
import { registerRun } from './run.ts';
import { registerServe } from './serve.ts';
import { registerSweep } from './sweep.ts';
// Subcommands: each cli/<name>.ts exports register<Name>(program); add one import and one call per command.

/** Builds the `k6-triton` program; each subcommand lives in its own file under cli/. */
export function program(): Command {
  const prog = new Command('k6-triton')
    .description('Load tests as code for Triton Inference Server and KServe v2 servers')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerArchive(prog);
  registerBench(prog);
  registerCapacity(prog);
  registerCompare(prog);
  registerInspect(prog);
  registerK8s(prog);
  registerMerge(prog);
  registerModels(prog);
  registerPayloads(prog);
  registerRepository(prog);
  registerRescore(prog);
  registerRun(prog);
  registerServe(prog);
  registerSweep(prog);
  withVersion(prog, packageVersion());
  return prog;
}

/** The package's version (package.json). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
}

/** --version on the program and every command (perf_analyzer's and k6's users type it after the command). */
function withVersion(command: Command, version: string): void {
  if (!command.options.some((o) => o.long === '--version'))
    command.version(version, '--version', 'print the k6-triton version');
  for (const sub of command.commands) withVersion(sub, version);
}

/** Runs the CLI and returns the process exit code; errors print as one line. */
export async function main(argv: string[]): Promise<number> {
  return execute(program(), argv);
}
