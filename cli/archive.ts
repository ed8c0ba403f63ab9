/**
 * `k6-triton archive script.js`: k6's `archive` on the Node runtime. The script is loaded as `run` loads it
 * (its remote modules fetched) and its init context runs once; the tar holds the script, its local and
 * remote modules, the files it open()s, its options with K6_* variables' and the flags' on top, and the -e environment, in
 * k6's layout, so real k6 runs it as well as `k6-triton run`.
 */
import { resolve } from 'node:path';
import { Command, type Option } from 'commander';
import {
  archiveOf,
  checkOptions,
  collectTest,
  EXIT,
  layerShortcuts,
  parseStage,
  writeArchive,
} from '@k6-triton/runtime';
import { EnvConfigError, type EnvOptions, envOptions } from './run-k6-surface.ts';
import { registerRun } from './run.ts';

/** run's flags that `k6 archive` takes too and that set options (their definitions are run's: cli/run.ts). */
const SHARED_FLAGS = [
  '--vus',
  '--duration',
  '--iterations',
  '--stage',
  '--execution-segment',
  '--execution-segment-sequence',
  '--no-setup',
  '--no-teardown',
  '--max-redirects',
  '--batch',
  '--batch-per-host',
  '--rps',
  '--user-agent',
  '--insecure-skip-tls-verify',
  '--no-connection-reuse',
  '--no-vu-connection-reuse',
  '--min-iteration-duration',
  '--throw',
  '--blacklist-ip',
  '--block-hostnames',
  '--summary-trend-stats',
  '--summary-time-unit',
  '--system-tags',
  '--tag',
  '--discard-response-bodies',
  '--env',
] as const;

/** The options each shared flag sets, by commander's attribute name; a flag left at its default sets none. */
const FLAG_OPTIONS: Record<string, (v: unknown) => Record<string, unknown>> = {
  vus: (v) => ({ vus: v }),
  duration: (v) => ({ duration: v }),
  iterations: (v) => ({ iterations: v }),
  stage: (v) => ((v as string[]).length ? { stages: (v as string[]).map((s, i) => parseStage(s, i)) } : {}),
  executionSegment: (v) => ({ executionSegment: v }),
  executionSegmentSequence: (v) => ({ executionSegmentSequence: v }),
  setup: (v) => (v === false ? { noSetup: true } : {}),
  teardown: (v) => (v === false ? { noTeardown: true } : {}),
  maxRedirects: (v) => ({ maxRedirects: v }),
  batch: (v) => ({ batch: v }),
  batchPerHost: (v) => ({ batchPerHost: v }),
  rps: (v) => ({ rps: v }),
  userAgent: (v) => ({ userAgent: v }),
  insecureSkipTlsVerify: () => ({ insecureSkipTLSVerify: true }),
  connectionReuse: (v) => (v === false ? { noConnectionReuse: true } : {}),
  vuConnectionReuse: (v) => (v === false ? { noVUConnectionReuse: true } : {}),
  minIterationDuration: (v) => ({ minIterationDuration: v }),
  throw: () => ({ throw: true }),
  blacklistIp: (v) => ((v as string[]).length ? { blacklistIPs: csv(v as string[]) } : {}),
  blockHostnames: (v) => ((v as string[]).length ? { blockHostnames: csv(v as string[]) } : {}),
  summaryTrendStats: (v) => ({ summaryTrendStats: csv([v as string]) }),
  summaryTimeUnit: (v) => ({ summaryTimeUnit: v }),
  systemTags: (v) => ({ systemTags: csv([v as string]) }),
  discardResponseBodies: () => ({ discardResponseBodies: true }),
};

/** A comma-separated flag's values, as k6's slice flags. */
const csv = (values: string[]) => values.flatMap((v) => v.split(',').map((x) => x.trim()));

interface ArchiveFlags {
  [attribute: string]: unknown;
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
  flags: ArchiveFlags,
  given: (attribute: string) => boolean,
): Record<string, unknown> {
  const fromEnv = { ...env.options, ...(Object.keys(env.tags).length > 0 ? { tags: env.tags } : {}) };
  const over: Record<string, unknown> = {};
  for (const [attribute, toOptions] of Object.entries(FLAG_OPTIONS))
    if (given(attribute) && flags[attribute] !== undefined) Object.assign(over, toOptions(flags[attribute]));
  if (Object.keys(flags.tag).length > 0) over['tags'] = { ...env.tags, ...flags.tag };
  return layer(layer(script ?? {}, fromEnv), over);
}

/** run's definitions of the shared flags (help, parsers, K6_* variables). */
function sharedOptions(): Option[] {
  const scratch = new Command();
  registerRun(scratch);
  const run = scratch.commands[0]!;
  return SHARED_FLAGS.map((long) => {
    const option = run.options.find((o) => o.long === long);
    if (!option) throw new Error(`archive: run has no ${long}`);
    return option;
  });
}

/** Adds the `archive` subcommand to the program. */
export function registerArchive(program: Command): void {
  const cmd = program
    .command('archive')
    .description("Create a k6 archive of a script (k6's tar: real k6 and `k6-triton run` both run it)")
    .argument('<script>', 'k6 script (.js or .ts)')
    .option('--include-system-env-vars', 'pass the real system environment to the script and the archive')
    .option('--exclude-env-vars', 'embed no environment variables in the archive metadata')
    .option('-O, --archive-out <file>', 'archive file; - writes it to stdout', 'archive.tar');
  for (const option of sharedOptions()) cmd.addOption(option);
  cmd.action(async (script: string, flags: ArchiveFlags) => {
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
    // Only what was given: a flag's default (run's --no-setup is setup=true) sets nothing.
    const given = (a: string) => {
      const source = cmd.getOptionValueSource(a);
      return source === 'cli' || source === 'env';
    };
    const options = archiveOptions(test.options, fromEnv, flags, given);
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
