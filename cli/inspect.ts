/**
 * `k6-triton inspect script.js|x.tar`: k6's `inspect`, printing the options k6 would print: a script's
 * exported options (its init context runs once), or an archive's stored ones, as k6's Options JSON.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { collectTest, EXIT, executionRequirements, k6OptionsJson } from '@k6-triton/runtime';
import { archiveToRun } from './run-archive.ts';
import { keyValue } from './run.ts';

interface InspectFlags {
  env: Record<string, string>;
  includeSystemEnvVars?: boolean;
  type?: string;
  executionRequirements?: boolean;
}

/** k6's indented JSON (Go's encoder escapes <, > and & in strings). */
function goJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[<>&]/g,
    (c) => `\\u00${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/** Adds the `inspect` subcommand to the program. */
export function registerInspect(program: Command): void {
  program
    .command('inspect')
    .description("Print a script's or an archive's options as k6 inspect does")
    .argument('<file>', 'k6 script or archive (.tar)')
    .option('-e, --env <KEY=VALUE>', 'environment variable for __ENV (repeatable)', keyValue, {})
    .option('--include-system-env-vars', 'pass the real system environment to the script')
    .option('-t, --type <type>', 'js or archive (default: a tar is an archive)')
    .option(
      '--execution-requirements',
      'add the scenarios the options stand for, the total duration and max VUs',
    )
    .action(async (file: string, flags: InspectFlags) => {
      const fail = (message: string, code: number) => {
        process.stderr.write(`k6-triton: ${message}\n`);
        process.exitCode = code;
      };
      let options: Record<string, unknown>;
      try {
        const archive = await archiveToRun(file, flags.type);
        if (archive) {
          archive.close();
          options = archive.options;
        } else {
          const env = {
            ...(flags.includeSystemEnvVars ? (process.env as Record<string, string>) : {}),
            ...flags.env,
          };
          options = (await collectTest(resolve(file), env)).options ?? {};
        }
      } catch (err) {
        return fail((err as Error).message, EXIT.SCRIPT_EXCEPTION);
      }
      let printed: Record<string, unknown>;
      try {
        printed = flags.executionRequirements ? executionRequirements(options) : k6OptionsJson(options);
      } catch (err) {
        return fail((err as Error).message, EXIT.INVALID_CONFIG);
      }
      // k6 prints no newline after it.
      process.stdout.write(goJson(printed));
      setTimeout(() => process.exit(process.exitCode ?? EXIT.OK), 2000).unref();
    });
}
