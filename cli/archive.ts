/**
 * `k6-triton archive script.js`: k6's `archive` on the Node runtime. The script is loaded as `run` loads it
 * (its remote modules fetched) and its init context runs once; the tar holds the script, its local and
 * remote modules, the files it open()s, its options with K6_* variables' and the flags' on top, and the -e environment, in
 * k6's layout, so real k6 runs it as well as `k6-triton run`.
 */
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import {
  archiveOf,
  checkOptions,
  collectTest,
  EXIT,
  layerShortcuts,
  parseStage,
  writeArchive,
} from '@k6-triton/runtime';
import { EnvConfigError, type EnvOptions, envOptions, stageFlag } from './run-k6-surface.ts';
import { keyValue, positiveInt } from './run.ts';

interface ArchiveFlags {
  vus?: number;
  duration?: string;
  iterations?: number;
  stage: string[];
  tag: Record<string, string>;
  env: Record<string, string>;
  archiveOut: string;
  excludeEnvVars?: boolean;
  includeSystemEnvVars?: boolean;
}

/** One tier of options over a lower one; the execution settings layer as k6's Options.Apply has them (layerShortcuts). */
function layer(lower: Record<string, unknown>, higher: Record<string, unknown>): Record<string, unknown> {
  const execution = layerShortcuts(lower, higher);
  const out = { ...lower, ...higher };
  for (const k of ['vus', 'duration', 'iterations', 'stages', 'scenarios'] as const) {
    if (execution[k] === undefined) delete out[k];
    else out[k] = execution[k];
  }
  return out;
}

/** The options an archive stores: the script's, then K6_* variables', then the flags' (k6's tiers). */
export function archiveOptions(
  script: Record<string, unknown> | undefined,
  env: EnvOptions,
  flags: Pick<ArchiveFlags, 'vus' | 'duration' | 'iterations' | 'stage' | 'tag'>,
): Record<string, unknown> {
  const fromEnv = { ...env.options, ...(Object.keys(env.tags).length > 0 ? { tags: env.tags } : {}) };
  const over: Record<string, unknown> = {};
  if (flags.vus !== undefined) over['vus'] = flags.vus;
  if (flags.duration !== undefined) over['duration'] = flags.duration;
  if (flags.iterations !== undefined) over['iterations'] = flags.iterations;
  if (flags.stage.length > 0) over['stages'] = flags.stage.map((s, i) => parseStage(s, i));
  if (Object.keys(flags.tag).length > 0) over['tags'] = { ...env.tags, ...flags.tag };
  return layer(layer(script ?? {}, fromEnv), over);
}

/** Adds the `archive` subcommand to the program. */
export function registerArchive(program: Command): void {
  program
    .command('archive')
    .description("Create a k6 archive of a script (k6's tar: real k6 and `k6-triton run` both run it)")
    .argument('<script>', 'k6 script (.js or .ts)')
    .addOption(new Option('-u, --vus <n>', 'number of virtual users').argParser(positiveInt).env('K6_VUS'))
    .addOption(new Option('-d, --duration <duration>', 'test duration limit').env('K6_DURATION'))
    .addOption(
      new Option('-i, --iterations <n>', 'script total iteration limit')
        .argParser(positiveInt)
        .env('K6_ITERATIONS'),
    )
    .option('-s, --stage <duration:target>', 'add a stage (repeatable)', stageFlag, [])
    .option('--tag <NAME=VALUE>', 'tag added to every sample (repeatable)', keyValue, {})
    .option('-e, --env <KEY=VALUE>', 'environment variable for __ENV (repeatable)', keyValue, {})
    .option('--include-system-env-vars', 'pass the real system environment to the script and the archive')
    .option('--exclude-env-vars', 'embed no environment variables in the archive metadata')
    .option('-O, --archive-out <file>', 'archive file; - writes it to stdout', 'archive.tar')
    .action(async (script: string, flags: ArchiveFlags) => {
      let fromEnv: EnvOptions;
      try {
        fromEnv = envOptions(process.env);
      } catch (err) {
        process.stderr.write(`k6-triton: ${(err as Error).message}\n`);
        process.exitCode = err instanceof EnvConfigError ? EXIT.INVALID_CONFIG : EXIT.GENERIC;
        return;
      }
      const env = {
        ...(flags.includeSystemEnvVars ? (process.env as Record<string, string>) : {}),
        ...flags.env,
      };
      let test: Awaited<ReturnType<typeof collectTest>>;
      try {
        test = await collectTest(resolve(script), env);
      } catch (err) {
        process.stderr.write(`k6-triton: ${(err as Error).message}\n`);
        process.exitCode = EXIT.SCRIPT_EXCEPTION;
        return;
      }
      const options = archiveOptions(test.options, fromEnv, flags);
      try {
        checkOptions(options);
      } catch (err) {
        process.stderr.write(`k6-triton: ${(err as Error).message}\n`);
        process.exitCode = EXIT.INVALID_CONFIG;
        return;
      }
      const archive = archiveOf(test, options, env);
      // k6 writes `"env": null` then.
      if (flags.excludeEnvVars) archive.metadata['env'] = null;
      await writeArchive(archive, flags.archiveOut === '-' ? process.stdout : flags.archiveOut);
      // The loaded script's timers or sockets must not hold the command open.
      setTimeout(() => process.exit(process.exitCode ?? EXIT.OK), 2000).unref();
    });
}
