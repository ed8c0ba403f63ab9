/**
 * `k6-triton run`: runs a k6 script on the Node runtime with k6's flags and semantics
 * (k6's exit codes; CLI flags and K6_* environment variables override the script's options, as in k6).
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
// The supervisor, not the engine: the engine and the libraries it loads (esbuild, undici, HDR
// histograms) belong to the worker thread only, so the main thread stays small.
import { EXIT, parseSegment, parseSequence, runSupervised } from '@k6-triton/runtime';

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`must be a whole number >= 0, got "${value}"`);
  return Number(value);
}

function keyValue(value: string, previous: Record<string, string>): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected KEY=VALUE, got "${value}"`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/** Checks a flag value with a parser of packages/runtime/src/options/segment.ts, failing with k6's message. */
function checked(parse: (v: string) => unknown): (value: string) => string {
  return (value) => {
    try {
      parse(value);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
    return value;
  };
}

/** Go's strconv.ParseBool, as k6 reads a boolean K6_* variable (`false` means false); undefined when unset. */
export function envBool(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw new Error(
    `env var '${name}' is not a valid boolean value: strconv.ParseBool: parsing "${value}": invalid syntax`,
  );
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

interface RunFlags {
  vus?: number;
  duration?: string;
  iterations?: number;
  env: Record<string, string>;
  tag: Record<string, string>;
  out: string[];
  summaryExport?: string;
  summaryMode: 'compact' | 'full' | 'legacy';
  summaryTrendStats?: string;
  summaryTimeUnit?: string;
  summary: boolean;
  thresholds: boolean;
  quiet?: boolean;
  color: boolean;
  includeSystemEnvVars: boolean;
  executionSegment?: string;
  executionSegmentSequence?: string;
  insecureSkipTlsVerify?: boolean;
  secretSource: string[];
}

/** Adds the `run` subcommand to the program. */
export function registerRun(program: Command): void {
  program
    .command('run')
    .description('Run a k6 script (bundle, .js or .ts) on the k6-compatible Node runtime')
    .argument('<script>', 'k6 script: dist/<name>.js bundle, .js or .ts file')
    .addOption(new Option('-u, --vus <n>', 'number of virtual users').argParser(positiveInt).env('K6_VUS'))
    .addOption(new Option('-d, --duration <duration>', 'test duration, e.g. 30s, 1m30s').env('K6_DURATION'))
    .addOption(
      new Option('-i, --iterations <n>', 'total iterations (shared among VUs)')
        .argParser(positiveInt)
        .env('K6_ITERATIONS'),
    )
    .addOption(
      new Option('--execution-segment <segment>', 'run only this part of the test, e.g. 1/3:2/3 (k6 syntax)')
        .argParser(checked(parseSegment))
        .env('K6_EXECUTION_SEGMENT'),
    )
    .addOption(
      new Option(
        '--execution-segment-sequence <points>',
        'all segments the test is split into, e.g. 0,1/3,2/3,1',
      )
        .argParser(checked(parseSequence))
        .env('K6_EXECUTION_SEGMENT_SEQUENCE'),
    )
    // K6_INSECURE_SKIP_TLS_VERIFY and K6_NO_THRESHOLDS are read as k6 reads them (envBool), not by commander,
    // which takes any value of a boolean's variable, "false" included, as set.
    .option('--insecure-skip-tls-verify', "don't verify the servers' TLS certificates")
    .option('-e, --env <KEY=VALUE>', 'environment variable for __ENV (repeatable)', keyValue, {})
    .option(
      '--secret-source <type=config>',
      'secret source for k6/secrets: file=PATH or mock=KEY=VALUE,… (repeatable; name=N, default)',
      collect,
      [],
    )
    .option('--tag <NAME=VALUE>', 'tag added to every metric sample (repeatable)', keyValue, {})
    .addOption(
      new Option('-o, --out <output>', 'sample output: json=FILE or csv=FILE (repeatable)')
        .argParser(collect)
        .default([])
        .env('K6_OUT'),
    )
    .addOption(
      new Option(
        '--summary-export <file>',
        "write the end-of-test summary as JSON (k6's legacy export format)",
      ).env('K6_SUMMARY_EXPORT'),
    )
    .addOption(
      new Option('--summary-mode <mode>', 'end-of-test summary layout')
        .choices(['compact', 'full', 'legacy'])
        .default('compact')
        .env('K6_SUMMARY_MODE'),
    )
    .addOption(
      new Option(
        '--summary-trend-stats <stats>',
        'trend statistics, e.g. avg,min,med,max,p(90),p(95),p(99)',
      ).env('K6_SUMMARY_TREND_STATS'),
    )
    .addOption(
      new Option('--summary-time-unit <unit>', 'fixed time unit for summary values: s, ms or us').env(
        'K6_SUMMARY_TIME_UNIT',
      ),
    )
    .option('--no-summary', 'do not print the end-of-test summary')
    .option('--no-thresholds', 'do not evaluate thresholds')
    .option('-q, --quiet', 'no banner and no progress line')
    .option('--no-color', 'no colors in the output')
    .option('--no-include-system-env-vars', 'keep the system environment out of __ENV')
    .action(async (script: string, flags: RunFlags) => {
      let insecureEnv: boolean | undefined;
      let noThresholdsEnv: boolean | undefined;
      try {
        insecureEnv = envBool(process.env, 'K6_INSECURE_SKIP_TLS_VERIFY');
        noThresholdsEnv = envBool(process.env, 'K6_NO_THRESHOLDS');
      } catch (err) {
        // k6's words and exit code (255) for a variable it cannot read.
        process.stderr.write(`k6-triton: ${(err as Error).message}\n`);
        process.exitCode = EXIT.GENERIC;
        return;
      }
      const result = await runSupervised({
        script,
        // The scenarios' stats probes record which runtime measured (lib/load/metrics.ts createWindowRecord),
        // so a merged report can say so; real k6 never sets it. A -e K6_TRITON_RUNTIME still wins.
        env: { K6_TRITON_RUNTIME: 'node', ...flags.env },
        includeSystemEnv: flags.includeSystemEnvVars,
        overrides: {
          vus: flags.vus,
          duration: flags.duration,
          iterations: flags.iterations,
          summaryTrendStats: flags.summaryTrendStats?.split(',').map((s) => s.trim()),
          summaryTimeUnit: flags.summaryTimeUnit,
          tags: Object.keys(flags.tag).length ? flags.tag : undefined,
          executionSegment: flags.executionSegment,
          executionSegmentSequence: flags.executionSegmentSequence,
          insecureSkipTLSVerify: flags.insecureSkipTlsVerify || insecureEnv || undefined,
        },
        out: flags.out,
        summaryExport: flags.summaryExport,
        summaryMode: flags.summaryMode,
        noSummary: !flags.summary,
        noThresholds: !flags.thresholds || noThresholdsEnv === true,
        quiet: flags.quiet,
        noColor: !flags.color,
        secretSources: flags.secretSource,
      });
      process.exitCode = result.exitCode;
      // A timer or socket the script left open must not keep the process alive after the test,
      // as k6 exits once the test is over; an unref'd timer only fires if something lingers.
      setTimeout(() => process.exit(result.exitCode), 2000).unref();
    });
}
