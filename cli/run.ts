/**
 * `k6-triton run`: runs a k6 script on the Node runtime with k6's flags and semantics
 * (k6's exit codes; CLI flags and K6_* environment variables override the script's options, as in k6).
 */
import { type Command, CommanderError, InvalidArgumentError, Option } from 'commander';
// The supervisor, not the engine: the engine and the libraries it loads (esbuild, undici, HDR
// histograms) belong to the worker thread only, so the main thread stays small.
import {
  EXIT,
  type LogSettings,
  logColors,
  type OpenedArchive,
  parseSegment,
  parseSequence,
  parseStage,
  refusedEnv,
  runSupervised,
  parseWorkers,
  WORKERS_ENV,
} from '@k6-triton/runtime';
import { archiveEnv, archiveToRun } from './run-archive.ts';
import {
  addRefusedFlags,
  type ConfigFile,
  defined,
  EnvConfigError,
  type EnvOptions,
  envOptions,
  flagRefusals,
  readConfig,
  stageFlag,
  logOutput,
  summaryMode,
} from './run-k6-surface.ts';

export { envBool } from './run-k6-surface.ts';

/** Prints each line naming the command and sets k6's exit code for it. */
function refuse(lines: string[], code: number): void {
  for (const line of lines) process.stderr.write(`k6-triton: ${line}\n`);
  process.exitCode = code;
}
import { parseDuration_ms } from '@k6-triton/lib/duration.ts';

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`must be a whole number >= 0, got "${value}"`);
  return Number(value);
}

/** A repeatable KEY=VALUE flag's values. */
export function keyValue(value: string, previous: Record<string, string>): Record<string, string> {
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

/** A repeatable, comma-separated flag's values (undefined when not given), as k6's slice flags. */
function list(values: string[]): string[] | undefined {
  return values.length > 0 ? values.flatMap((v) => v.split(',').map((x) => x.trim())) : undefined;
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
  summaryMode: 'compact' | 'full' | 'disabled';
  summaryTrendStats?: string;
  summaryTimeUnit?: string;
  thresholds: boolean;
  stage: string[];
  setup: boolean;
  teardown: boolean;
  maxRedirects?: number;
  batch?: number;
  batchPerHost?: number;
  userAgent?: string;
  connectionReuse: boolean;
  minIterationDuration?: string;
  throw?: boolean;
  systemTags?: string;
  discardResponseBodies?: boolean;
  config?: string;
  logOutput?: LogSettings['output'];
  logFormat?: string;
  consoleOutput?: string;
  verbose?: boolean;
  httpDebug?: string | true;
  vuConnectionReuse: boolean;
  blacklistIp: string[];
  dns?: string;
  localIps?: string;
  blockHostnames: string[];
  rps?: number;
  quiet?: boolean;
  color: boolean;
  includeSystemEnvVars: boolean;
  executionSegment?: string;
  executionSegmentSequence?: string;
  workers?: number;
  insecureSkipTlsVerify?: boolean;
  secretSource: string[];
  address?: string;
  paused?: boolean;
  linger?: boolean;
  type?: string;
}

/** Adds the `run` subcommand to the program. */
export function registerRun(program: Command): void {
  const run = program
    .command('run')
    .description('Run a k6 script (bundle, .js or .ts) on the k6-compatible Node runtime')
    .argument('<script>', 'k6 script (dist/<name>.js bundle, .js or .ts file) or archive (.tar)')
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
    // k6-triton's own (k6 has no such flag): K6_TRITON_WORKERS is read by the runtime (workers/plan.ts).
    .addOption(
      new Option(
        '--workers <n>',
        `k6-triton only: worker threads the test's VUs are split over by execution segment (default: ${WORKERS_ENV}, else the cores)`,
      ).argParser((v) => {
        try {
          return parseWorkers(v, '--workers');
        } catch (err) {
          throw new InvalidArgumentError((err as Error).message);
        }
      }),
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
      new Option('-o, --out <output>', 'output: json=FILE, csv=FILE, experimental-prometheus-rw (repeatable)')
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
      new Option('--summary-mode <mode>', 'end-of-test summary: compact, full or disabled')
        .argParser(summaryMode)
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
    .option('--no-thresholds', 'do not evaluate thresholds')
    .option('-q, --quiet', 'no banner and no progress line')
    .option('--no-color', 'no colors in the output')
    .option('--no-include-system-env-vars', 'keep the system environment out of __ENV')
    .option('-s, --stage <duration:target>', 'add a ramping-vus stage (repeatable)', stageFlag, [])
    .option('--no-setup', "don't run setup()")
    .option('--no-teardown', "don't run teardown()")
    .addOption(
      new Option('--max-redirects <n>', 'follow at most n redirects')
        .argParser(positiveInt)
        .env('K6_MAX_REDIRECTS'),
    )
    .addOption(
      new Option('--batch <n>', 'max parallel batch requests').argParser(positiveInt).env('K6_BATCH'),
    )
    .addOption(
      new Option('--batch-per-host <n>', 'max parallel batch requests per host')
        .argParser(positiveInt)
        .env('K6_BATCH_PER_HOST'),
    )
    .addOption(new Option('--user-agent <ua>', 'User-Agent of k6/http requests').env('K6_USER_AGENT'))
    .option('--no-connection-reuse', 'disable keep-alive connections')
    .option('--no-vu-connection-reuse', "don't reuse connections between iterations")
    .addOption(new Option('--local-ips <ranges>', 'source addresses of the VUs').env('K6_LOCAL_IPS'))
    .addOption(new Option('--dns <config>', 'DNS: ttl=5m,select=random,policy=preferIPv4').env('K6_DNS'))
    .option('--blacklist-ip <cidr>', 'fail requests to this IP range (repeatable)', collect, [])
    .option('--block-hostnames <pattern>', 'fail requests to this hostname pattern (repeatable)', collect, [])
    .addOption(new Option('--rps <n>', 'limit requests per second').argParser(positiveInt).env('K6_RPS'))
    .addOption(
      new Option('--min-iteration-duration <duration>', 'minimum duration of an iteration')
        .argParser(checked((v) => parseDuration_ms(v, '--min-iteration-duration')))
        .env('K6_MIN_ITERATION_DURATION'),
    )
    .option('-w, --throw', 'k6/http throws on transport errors')
    .addOption(new Option('--system-tags <tags>', 'only these system tags on samples').env('K6_SYSTEM_TAGS'))
    .option('--discard-response-bodies', "read but don't keep response bodies")
    .addOption(new Option('-c, --config <file>', "k6's JSON config file").env('K6_CONFIG'))
    .option('--compatibility-mode <mode>', 'JavaScript compatibility mode: extended')
    .option('-t, --type <type>', 'test type: js or archive (default: a tar is an archive)')
    .option('--traces-output <output>', 'traces output: none')
    .addOption(
      new Option('--log-output <output>', 'log output: stderr, stdout, none or file=PATH')
        .argParser(logOutput)
        .env('K6_LOG_OUTPUT'),
    )
    .addOption(new Option('--log-format <format>', 'log format: json or raw').env('K6_LOG_FORMAT'))
    .addOption(
      new Option('--console-output <file>', "the script's console lines to this file").env(
        'K6_CONSOLE_OUTPUT',
      ),
    )
    .option('-v, --verbose', 'show console.debug')
    .addOption(
      new Option('--http-debug [mode]', 'log requests and responses; =full adds the bodies').env(
        'K6_HTTP_DEBUG',
      ),
    )
    .option('--no-usage-report', 'no usage report (the Node runtime never sends one)')
    .addOption(
      new Option(
        '-a, --address <address>',
        "address of k6's REST API, e.g. localhost:6565 (off when unset)",
      ).env('K6_ADDRESS'),
    )
    // K6_PAUSED and K6_LINGER are read as k6 reads booleans (run-k6-surface.ts's envOptions).
    .option('-p, --paused', 'start the test paused (resume it with PATCH /v1/status)')
    .option('-l, --linger', 'keep the REST API up after the test until SIGINT/SIGTERM');
  addRefusedFlags(run);
  run.addHelpText(
    'after',
    "\nEvery option, flag and K6_* variable of k6 v2.2.0's run, honoured or refused at start: docs/runtime-options.md",
  );
  run.action(async (script: string, flags: RunFlags) => {
    const flagLines = flagRefusals(run);
    if (flagLines.length > 0) return refuse(flagLines, EXIT.GENERIC);
    const envLines = refusedEnv(process.env);
    if (envLines.length > 0) return refuse(envLines, EXIT.INVALID_CONFIG);
    let env: EnvOptions;
    try {
      env = envOptions(process.env);
    } catch (err) {
      // k6's words and exit codes for a variable it cannot read: 104 for an option's, 255 for a boolean flag's.
      return refuse(
        [(err as Error).message],
        err instanceof EnvConfigError ? EXIT.INVALID_CONFIG : EXIT.GENERIC,
      );
    }
    let config: ConfigFile;
    try {
      config = readConfig(flags.config);
    } catch (err) {
      return refuse([(err as Error).message], EXIT.INVALID_CONFIG);
    }
    const options: Record<string, unknown> = {
      ...env.options,
      ...defined({
        stages: flags.stage.length > 0 ? flags.stage.map((s, i) => parseStage(s, i)) : undefined,
        noSetup: flags.setup ? undefined : true,
        noTeardown: flags.teardown ? undefined : true,
        maxRedirects: flags.maxRedirects,
        batch: flags.batch,
        batchPerHost: flags.batchPerHost,
        userAgent: flags.userAgent,
        noConnectionReuse: flags.connectionReuse ? undefined : true,
        minIterationDuration: flags.minIterationDuration,
        throw: flags.throw,
        systemTags: flags.systemTags?.split(',').map((t) => t.trim()),
        discardResponseBodies: flags.discardResponseBodies,
        httpDebug: flags.httpDebug === true ? 'headers' : flags.httpDebug,
        noVUConnectionReuse: flags.vuConnectionReuse ? undefined : true,
        blacklistIPs: list(flags.blacklistIp),
        dns: flags.dns,
        localIPs: flags.localIps,
        blockHostnames: list(flags.blockHostnames),
        rps: flags.rps,
        paused: flags.paused,
      }),
    };
    // k6's REST API (--address, K6_ADDRESS): a port the flag names must bind; K6_ADDRESS's only warns.
    const api = flags.address
      ? { address: flags.address, explicit: run.getOptionValueSource('address') === 'cli' }
      : undefined;
    // The flag wins; else K6_INCLUDE_SYSTEM_ENV_VARS (k6's default: true).
    const includeSystemEnv =
      run.getOptionValueSource('includeSystemEnvVars') === 'cli'
        ? flags.includeSystemEnvVars
        : (env.includeSystemEnvVars ?? true);
    // k6: --no-color, a non-empty K6_NO_COLOR or any NO_COLOR (no-color.org) turns colors off.
    const noColor = !flags.color || env.noColor === true;
    const logOutput = flags.logOutput ?? { to: 'stderr' as const };
    let archive: OpenedArchive | null;
    try {
      archive = await archiveToRun(script, flags.type ?? process.env['K6_TYPE']);
    } catch (err) {
      return refuse([(err as Error).message], EXIT.SCRIPT_EXCEPTION);
    }
    const result = await runSupervised(
      {
        script: archive?.script ?? script,
        // The scenarios' stats probes record which runtime measured (lib/load/metrics.ts createWindowRecord),
        // so a merged report can say so; real k6 never sets it. A -e K6_TRITON_RUNTIME still wins.
        env: {
          K6_TRITON_RUNTIME: 'node',
          ...(archive ? archiveEnv(archive, includeSystemEnv) : {}),
          ...flags.env,
        },
        includeSystemEnv,
        ...(archive ? { archive: { dir: archive.dir, options: archive.options } } : {}),
        overrides: {
          vus: flags.vus,
          duration: flags.duration,
          iterations: flags.iterations,
          summaryTrendStats: flags.summaryTrendStats?.split(',').map((s) => s.trim()),
          summaryTimeUnit: flags.summaryTimeUnit,
          tags: Object.keys({ ...env.tags, ...flags.tag }).length ? { ...env.tags, ...flags.tag } : undefined,
          executionSegment: flags.executionSegment,
          executionSegmentSequence: flags.executionSegmentSequence,
          insecureSkipTLSVerify: flags.insecureSkipTlsVerify || env.insecureSkipTLSVerify || undefined,
          options,
          configFile: config.options,
        },
        workers: flags.workers,
        out: flags.out.length > 0 ? flags.out : config.out,
        summaryExport: flags.summaryExport,
        summaryMode: flags.summaryMode === 'disabled' ? 'compact' : flags.summaryMode,
        noSummary: flags.summaryMode === 'disabled',
        noThresholds: !flags.thresholds || env.noThresholds === true,
        quiet: flags.quiet,
        noColor,
        secretSources: flags.secretSource,
        log: {
          format: flags.logFormat === 'json' || flags.logFormat === 'raw' ? flags.logFormat : 'text',
          output: logOutput,
          colors: logColors(logOutput, noColor),
          consoleFile: flags.consoleOutput,
          verbose: flags.verbose === true,
        },
        linger: flags.linger ?? env.linger ?? config.linger ?? false,
      },
      api,
    );
    archive?.close();
    process.exitCode = result.exitCode;
    // A timer or socket the script left open must not keep the process alive after the test,
    // as k6 exits once the test is over; an unref'd timer only fires if something lingers.
    setTimeout(() => process.exit(result.exitCode), 2000).unref();
  });
  // k6's code (255) and words for a flag it cannot read; help keeps its 0.
  run.exitOverride((err) => {
    throw err.exitCode === 0 ? err : new CommanderError(EXIT.GENERIC, err.code, err.message);
  });
  // k6's `--http-debug` takes no value unless given with `=` (`--http-debug=full`); commander would take the
  // next word (the script) as its value.
  const parseOptions = run.parseOptions.bind(run);
  run.parseOptions = (argv: string[]) =>
    parseOptions(argv.map((a) => (a === '--http-debug' ? '--http-debug=headers' : a)));
  // k6's words for a flag it does not have (`--no-summary`, gone in k6 v2, among them).
  const internal = run as unknown as { unknownOption: (flag: string) => void };
  internal.unknownOption = (flag: string) =>
    run.error(`error: unknown flag: ${flag}`, { code: 'commander.unknownOption', exitCode: EXIT.GENERIC });
}
