/**
 * Flags shared by the commands that run a model (bench, capacity, sweep) that are not settings of the run (those
 * come from lib/settings/schema.ts: cli/settings-options.ts), and the run options read from them.
 */
import type { Command } from 'commander';

/**
 * Where a local run goes: --results-dir, --count and the started server's --time-scale and --model-repository
 * (--runtime, --tritonserver and --tls are settings: lib/settings/schema.ts).
 */
export function addLocalRunOptions(command: Command): Command {
  return command
    .option('--results-dir <dir>', 'where run folders go', 'results')
    .option('--count <n>', 'requests in a generated payload set', Number)
    .option('--time-scale <f>', 'embedded server: multiply simulated compute times', Number)
    .option(
      '--model-repository <dir>',
      'the started server (embedded or tritonserver): Triton-layout model repository',
    );
}

/** --metrics-url, for bench and capacity: the Prometheus endpoint scraped per level. */
export function addMetricsUrlOption(command: Command): Command {
  return command.option(
    '--metrics-url <url>',
    "Prometheus endpoint scraped per level, e.g. http://host:8002/metrics ('off': none); default: the embedded server's",
  );
}

/** The server and payload options of every measuring command: --time-scale, --model-repository, TRITONSERVER, --count. */
export function serverOptions(flags: Record<string, unknown>): {
  timeScale?: number;
  modelRepository?: string;
  tritonserver?: string;
  count?: number;
} {
  return {
    ...(flags.timeScale !== undefined ? { timeScale: flags.timeScale as number } : {}),
    ...(flags.modelRepository ? { modelRepository: String(flags.modelRepository) } : {}),
    ...tritonserverOption(flags),
    ...(flags.count ? { count: flags.count as number } : {}),
  };
}

/** bench's output options: --metrics-url (and perf_analyzer's --metrics-interval), --verbose-csv, --no-progress. */
export function outputOptions(flags: Record<string, unknown>): {
  metricsUrl?: string;
  metricsInterval_ms?: number;
  verboseCsv?: boolean;
  progress?: boolean;
} {
  return {
    ...(flags.metricsUrl ? { metricsUrl: String(flags.metricsUrl) } : {}),
    ...(flags.metricsInterval_ms ? { metricsInterval_ms: flags.metricsInterval_ms as number } : {}),
    ...(flags.verboseCsv ? { verboseCsv: true } : {}),
    ...(flags.progress === false ? { progress: false } : {}),
  };
}

/** capacity's search options: --start, --max, --attempts, --max-levels. */
export function searchOptions(flags: Record<string, unknown>): {
  start?: number;
  max?: number;
  attempts?: number;
  maxTrials?: number;
} {
  return {
    ...(flags.start !== undefined ? { start: flags.start as number } : {}),
    ...(flags.max !== undefined ? { max: flags.max as number } : {}),
    ...(flags.attempts !== undefined ? { attempts: flags.attempts as number } : {}),
    ...(flags.maxLevels !== undefined ? { maxTrials: flags.maxLevels as number } : {}),
  };
}

/** The run's tritonserver as a run option: --tritonserver, else TRITONSERVER; none for the embedded server. */
export function tritonserverOption(
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): { tritonserver?: string } {
  const flag = flags.tritonserver;
  const path = typeof flag === 'string' && flag !== '' ? flag : env.TRITONSERVER;
  return path ? { tritonserver: path } : {};
}
