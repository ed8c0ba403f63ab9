/**
 * Flag groups shared by the commands that run a model (bench, capacity, k8s): one spelling and one
 * help text per flag, each naming the environment variable it sets (see FLAG_ENV in cli/bench.ts).
 */
import { type Command, Option } from 'commander';
import { DEFAULT_VALIDATE_EVERY } from '../scenarios/kit/run-plan.ts';
import { PROTOCOLS, STREAM_PROTOCOLS } from '../scenarios/kit/settings.ts';

/** Where the requests go and what they carry: --url .. --headers. */
export function addTargetOptions(command: Command, urlHelp: string, withPayload = true): Command {
  command
    .option('--url <url>', urlHelp)
    .option('--grpc-url <host:port>', 'Triton gRPC endpoint (TRITON_GRPC_URL)')
    .addOption(
      new Option('--protocol <p>', 'PROTOCOL; a generative model: grpc (default) or SSE').choices([
        ...new Set<string>([...PROTOCOLS, ...STREAM_PROTOCOLS]),
      ]),
    )
    .option('--model-name <name>', 'served model name (MODEL_NAME)')
    .option('--model-version <v>', 'model version (MODEL_VERSION)')
    .option('--batch <n>', 'request batch size (BATCH)')
    .option('--precision <p>', 'FP32, FP16, INT32, INT64 (PRECISION)');
  if (withPayload) {
    command.option('--payload <file>', 'payload manifest or perf_analyzer input-data JSON (PAYLOAD)');
  }
  return command
    .option('--headers <list>', 'extra HTTP headers / gRPC metadata "k:v,k2:v2" (HEADERS)')
    .option(
      '--headers-file <file>',
      'more headers, one "Name: value" a line, e.g. a bearer token; values never printed (HEADERS_FILE)',
    )
    .option(
      '--insecure-skip-tls-verify',
      "don't verify the server's TLS certificate (INSECURE_SKIP_TLS_VERIFY)",
    )
    .option('--tls-ca <file>', "PEM file of the CA that signed the server's certificate (TLS_CA)");
}

/** What a level must meet and how much of it is checked: --p95-ms .. --thresholds. */
export function addBudgetOptions(command: Command): Command {
  return command
    .option('--p95-ms <ms>', 'override the p95 budget (P95_MS)')
    .option('--p99-ms <ms>', 'override the p99 budget (P99_MS)')
    .option('--ttft-p95-ms <ms>', 'generative models: override the TTFT p95 budget (TTFT_P95_MS)')
    .option('--itl-p95-ms <ms>', 'generative models: override the ITL p95 budget (ITL_P95_MS)')
    .option(
      '--validate-every <n>',
      `check outputs of 1 in n measured responses (VALIDATE_EVERY; default ${DEFAULT_VALIDATE_EVERY}; 1 = all, 0 = none); every response's status and content type are checked, and each VU's first warm-up outputs; an invalid response is a failed request`,
    )
    .option('--thresholds <file>', 'budget file (THRESHOLDS); default thresholds/<model>.json');
}

/** Where a local run goes: --runtime, --results-dir, --count and the embedded server's settings. */
export function addLocalRunOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--runtime <r>', 'k6 binary or the Node runtime (RUNTIME)')
        .choices(['auto', 'k6', 'node'])
        .default(process.env.RUNTIME || 'auto'),
    )
    .option('--results-dir <dir>', 'where run folders go', 'results')
    .option('--count <n>', 'requests in a generated payload set', Number)
    .option(
      '--tritonserver <path>',
      'start this real tritonserver binary instead of the embedded server (TRITONSERVER)',
    )
    .option('--time-scale <f>', 'embedded server: multiply simulated compute times', Number)
    .option('--tls', 'embedded server: serve HTTPS and gRPC over TLS, self-signed, trusted by the run (TLS)')
    .option(
      '--model-repository <dir>',
      'the started server (embedded or tritonserver): Triton-layout model repository',
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

/** bench's output options: --metrics-url, --verbose-csv, --no-progress. */
export function outputOptions(flags: Record<string, unknown>): {
  metricsUrl?: string;
  verboseCsv?: boolean;
  progress?: boolean;
} {
  return {
    ...(flags.metricsUrl ? { metricsUrl: String(flags.metricsUrl) } : {}),
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
