/**
 * Every script option, `k6 run` flag and K6_* environment variable of k6 v2.2.0, and what the Node runtime
 * does with it: honours it with k6's semantics, or refuses it at start naming it and the alternative. The one
 * source of truth: the CLI's refusals and the script options' check read it, `make docs-runtime-options` writes
 * docs/runtime-options.md from it, and test/e2e/runtime/k6-surface.test.ts walks it.
 */

/** honoured: k6's semantics; inert: accepted, and k6 itself does nothing observable with it on a local run; refused: exits at start. */
export type SurfaceStatus = 'honoured' | 'inert' | 'refused';

/** One k6 setting: its script option, flag and environment variable (each where k6 has one). */
export interface SurfaceRow {
  /** The script option (`options.<name>`, also the config file's key). */
  option?: string;
  /** The long flag of `k6 run`, e.g. `--max-redirects`. */
  flag?: string;
  /** The flag's short form, e.g. `-s`. */
  short?: string;
  /** Whether the flag takes a value (`optional`: `--http-debug[=full]`). */
  value?: 'none' | 'required' | 'optional';
  /** The environment variable k6 reads. */
  env?: string;
  status: SurfaceStatus;
  /** For a flag or variable honoured only for some values: those values (any other is refused). */
  honouredValues?: readonly string[];
  /** honoured/inert: what it does here; refused: the alternative, ending the refusal line. */
  note: string;
}

const RUN_WITH_K6 = 'run with k6';

/** The table, in `k6 run --help`'s order, then options and variables without a flag. */
export const K6_SURFACE: readonly SurfaceRow[] = [
  {
    option: 'vus',
    flag: '--vus',
    short: '-u',
    value: 'required',
    env: 'K6_VUS',
    status: 'honoured',
    note: 'VUs of the default scenario',
  },
  {
    option: 'duration',
    flag: '--duration',
    short: '-d',
    value: 'required',
    env: 'K6_DURATION',
    status: 'honoured',
    note: 'test duration (constant-vus)',
  },
  {
    option: 'iterations',
    flag: '--iterations',
    short: '-i',
    value: 'required',
    env: 'K6_ITERATIONS',
    status: 'honoured',
    note: 'total iterations (shared-iterations)',
  },
  {
    option: 'stages',
    flag: '--stage',
    short: '-s',
    value: 'required',
    env: 'K6_STAGES',
    status: 'honoured',
    note: 'ramping-vus stages, `[duration]:[target]`, repeatable; `K6_STAGES=10s:5,20s:0`',
  },
  {
    option: 'executionSegment',
    flag: '--execution-segment',
    value: 'required',
    env: 'K6_EXECUTION_SEGMENT',
    status: 'honoured',
    note: 'run only this part of the test',
  },
  {
    option: 'executionSegmentSequence',
    flag: '--execution-segment-sequence',
    value: 'required',
    env: 'K6_EXECUTION_SEGMENT_SEQUENCE',
    status: 'honoured',
    note: 'the segments the test is split into',
  },
  {
    option: 'paused',
    flag: '--paused',
    short: '-p',
    value: 'none',
    env: 'K6_PAUSED',
    status: 'honoured',
    note: 'waits after initializing the VUs, before setup(), until PATCH /v1/status resumes it (needs --address)',
  },
  {
    option: 'noSetup',
    flag: '--no-setup',
    value: 'none',
    env: 'K6_NO_SETUP',
    status: 'honoured',
    note: 'setup() is not run',
  },
  {
    option: 'noTeardown',
    flag: '--no-teardown',
    value: 'none',
    env: 'K6_NO_TEARDOWN',
    status: 'honoured',
    note: 'teardown() is not run',
  },
  {
    option: 'maxRedirects',
    flag: '--max-redirects',
    value: 'required',
    env: 'K6_MAX_REDIRECTS',
    status: 'honoured',
    note: 'redirects k6/http follows (default 10)',
  },
  {
    option: 'batch',
    flag: '--batch',
    value: 'required',
    env: 'K6_BATCH',
    status: 'honoured',
    note: 'parallel requests of one http.batch() (default 20)',
  },
  {
    option: 'batchPerHost',
    flag: '--batch-per-host',
    value: 'required',
    env: 'K6_BATCH_PER_HOST',
    status: 'honoured',
    note: 'parallel requests of one http.batch() per host (default 6)',
  },
  {
    option: 'rps',
    flag: '--rps',
    value: 'required',
    env: 'K6_RPS',
    status: 'honoured',
    note: 'k6/http requests start at most this many a second, across all VUs (0: no limit)',
  },
  {
    option: 'userAgent',
    flag: '--user-agent',
    value: 'required',
    env: 'K6_USER_AGENT',
    status: 'honoured',
    note: "User-Agent of k6/http requests and WebSocket handshakes that set none; an empty string sends none (default: the runtime's own, `Grafana k6 (k6-triton Node runtime)`; k6's is `Grafana k6/<version>`)",
  },
  {
    option: 'httpDebug',
    flag: '--http-debug',
    value: 'optional',
    env: 'K6_HTTP_DEBUG',
    status: 'honoured',
    note: "each request and response logged (INFO, source=http-debug) in k6's layout; `full` adds the bodies",
  },
  {
    option: 'insecureSkipTLSVerify',
    flag: '--insecure-skip-tls-verify',
    value: 'none',
    env: 'K6_INSECURE_SKIP_TLS_VERIFY',
    status: 'honoured',
    note: "servers' TLS certificates are not verified",
  },
  {
    option: 'noConnectionReuse',
    flag: '--no-connection-reuse',
    value: 'none',
    env: 'K6_NO_CONNECTION_REUSE',
    status: 'honoured',
    note: 'each request opens its own connection',
  },
  {
    option: 'noVUConnectionReuse',
    flag: '--no-vu-connection-reuse',
    value: 'none',
    env: 'K6_NO_VU_CONNECTION_REUSE',
    status: 'honoured',
    note: "k6/http connections are not reused across a VU's iterations",
  },
  {
    option: 'minIterationDuration',
    flag: '--min-iteration-duration',
    value: 'required',
    env: 'K6_MIN_ITERATION_DURATION',
    status: 'honoured',
    note: 'an iteration shorter than this waits out the rest',
  },
  {
    option: 'throw',
    flag: '--throw',
    short: '-w',
    value: 'none',
    env: 'K6_THROW',
    status: 'honoured',
    note: 'k6/http throws on a transport error instead of returning a response with `error`',
  },
  {
    option: 'blacklistIPs',
    flag: '--blacklist-ip',
    value: 'required',
    env: 'K6_BLACKLIST_IPS',
    status: 'honoured',
    note: 'k6/http requests to an address in these CIDR ranges fail (1110 ip is blacklisted); a WebSocket or gRPC connection is refused while it is set',
  },
  {
    option: 'blockHostnames',
    flag: '--block-hostnames',
    value: 'required',
    env: 'K6_BLOCK_HOSTNAMES',
    status: 'honoured',
    note: 'k6/http requests to a matching hostname (exact or `*.domain`) fail (1111 hostname is blocked); a WebSocket or gRPC connection to one is refused naming the option',
  },
  {
    option: 'summaryTrendStats',
    flag: '--summary-trend-stats',
    value: 'required',
    env: 'K6_SUMMARY_TREND_STATS',
    status: 'honoured',
    note: "the summary's trend statistics",
  },
  {
    option: 'summaryTimeUnit',
    flag: '--summary-time-unit',
    value: 'required',
    env: 'K6_SUMMARY_TIME_UNIT',
    status: 'honoured',
    note: "the summary's time unit",
  },
  {
    option: 'systemTags',
    flag: '--system-tags',
    value: 'required',
    env: 'K6_SYSTEM_TAGS',
    status: 'honoured',
    note: 'the system tags kept on samples',
  },
  {
    option: 'tags',
    flag: '--tag',
    value: 'required',
    env: 'K6_TAGS',
    status: 'honoured',
    note: 'tags on every sample (`--tag NAME=VALUE`, repeatable)',
  },
  {
    option: 'consoleOutput',
    flag: '--console-output',
    value: 'required',
    env: 'K6_CONSOLE_OUTPUT',
    status: 'honoured',
    note: "the script's console lines go to this file (appended), not to the log",
  },
  {
    option: 'discardResponseBodies',
    flag: '--discard-response-bodies',
    value: 'none',
    env: 'K6_DISCARD_RESPONSE_BODIES',
    status: 'honoured',
    note: 'response bodies are read but not kept (responseType none)',
  },
  {
    option: 'localIPs',
    flag: '--local-ips',
    value: 'required',
    env: 'K6_LOCAL_IPS',
    status: 'honoured',
    note: 'k6/http dials from these addresses (a, a-b, CIDR), one per VU round-robin; a WebSocket or gRPC connection is refused while it is set',
  },
  {
    option: 'dns',
    flag: '--dns',
    value: 'required',
    env: 'K6_DNS',
    status: 'honoured',
    note: "k6/http's lookups: ttl (inf, 0 or a duration), select (first, random, roundRobin), policy (preferIPv4, preferIPv6, onlyIPv4, onlyIPv6, any); unset, the system's resolver picks as Node does; a WebSocket or gRPC connection is refused while it is set",
  },
  {
    flag: '--include-system-env-vars',
    value: 'none',
    env: 'K6_INCLUDE_SYSTEM_ENV_VARS',
    status: 'honoured',
    note: 'the process environment in __ENV (default true)',
  },
  {
    flag: '--compatibility-mode',
    value: 'required',
    env: 'K6_COMPATIBILITY_MODE',
    status: 'honoured',
    honouredValues: ['extended'],
    note: 'extended (the default) only; other modes: run with k6',
  },
  {
    flag: '--type',
    short: '-t',
    value: 'required',
    env: 'K6_TYPE',
    status: 'honoured',
    honouredValues: ['js', 'archive'],
    note: "js or archive (`k6 archive`'s tar, or ours); default: a tar is an archive",
  },
  {
    flag: '--env',
    short: '-e',
    value: 'required',
    status: 'honoured',
    note: '`VAR=value` in __ENV (repeatable)',
  },
  {
    flag: '--no-thresholds',
    value: 'none',
    env: 'K6_NO_THRESHOLDS',
    status: 'honoured',
    note: 'thresholds are not evaluated',
  },
  {
    flag: '--summary-mode',
    value: 'required',
    env: 'K6_SUMMARY_MODE',
    status: 'honoured',
    note: 'compact (default), full or disabled; any other mode is refused in k6\'s words ("invalid summary mode")',
  },
  {
    flag: '--summary-export',
    value: 'required',
    env: 'K6_SUMMARY_EXPORT',
    status: 'honoured',
    note: "the summary as JSON, k6's export format",
  },
  {
    flag: '--new-machine-readable-summary',
    value: 'none',
    env: 'K6_NEW_MACHINE_READABLE_SUMMARY',
    status: 'refused',
    note: 'use --summary-export (the legacy format), or run with k6',
  },
  {
    flag: '--traces-output',
    value: 'required',
    env: 'K6_TRACES_OUTPUT',
    status: 'honoured',
    honouredValues: ['none'],
    note: 'none (the default) only; otel: run with k6',
  },
  {
    flag: '--out',
    short: '-o',
    value: 'required',
    env: 'K6_OUT',
    status: 'honoured',
    note: 'json=FILE, csv=FILE and experimental-prometheus-rw (its K6_PROMETHEUS_RW_* settings; native histograms and SigV4 refused); any other output is refused naming it',
  },
  {
    flag: '--linger',
    short: '-l',
    value: 'none',
    env: 'K6_LINGER',
    status: 'honoured',
    note: 'after teardown, waits for SIGINT/SIGTERM before the summary; the REST API keeps answering',
  },
  {
    flag: '--no-usage-report',
    value: 'none',
    env: 'K6_NO_USAGE_REPORT',
    status: 'inert',
    note: 'the Node runtime never sends usage reports',
  },
  {
    flag: '--features',
    value: 'required',
    env: 'K6_FEATURES',
    status: 'refused',
    note: 'drop it (no feature flags here), or run with k6',
  },
  {
    flag: '--address',
    short: '-a',
    value: 'required',
    env: 'K6_ADDRESS',
    status: 'honoured',
    note: "k6's REST API (/v1/status, /v1/metrics, /v1/groups, GET /v1/setup); off when unset",
  },
  {
    flag: '--config',
    short: '-c',
    value: 'required',
    env: 'K6_CONFIG',
    status: 'honoured',
    note: "k6's JSON config file: its options rank below the script's",
  },
  {
    flag: '--log-format',
    value: 'required',
    env: 'K6_LOG_FORMAT',
    status: 'honoured',
    note: "json (an object per line) or raw (the message alone); any other value: k6's default text format, as k6",
  },
  {
    flag: '--log-output',
    value: 'required',
    env: 'K6_LOG_OUTPUT',
    status: 'honoured',
    note: 'stderr (default), stdout, none or file=PATH; loki is refused naming it (run with k6)',
  },
  {
    flag: '--no-color',
    value: 'none',
    env: 'K6_NO_COLOR',
    status: 'honoured',
    note: 'no colors in the output: log lines in logfmt on a terminal too; as in k6, any non-empty K6_NO_COLOR and any NO_COLOR',
  },
  {
    flag: '--profiling-enabled',
    value: 'none',
    status: 'refused',
    note: 'profile with node --cpu-prof, or run with k6',
  },
  { flag: '--quiet', short: '-q', value: 'none', status: 'honoured', note: 'no progress line' },
  {
    flag: '--secret-source',
    value: 'required',
    status: 'honoured',
    note: 'file=PATH and mock=KEY=VALUE; url and cloud are refused naming them',
  },
  {
    flag: '--verbose',
    short: '-v',
    value: 'none',
    status: 'honoured',
    note: 'console.debug is shown (the runtime has no debug lines of its own)',
  },
  {
    env: 'K6_WEB_DASHBOARD',
    status: 'refused',
    note: 'the Node runtime has no web dashboard; use --summary-export or --out json=FILE, or run with k6',
  },
  { option: 'scenarios', status: 'honoured', note: 'all six executors' },
  { option: 'thresholds', status: 'honoured', note: 'thresholds, abortOnFail and delayAbortEval' },
  {
    option: 'setupTimeout',
    env: 'K6_SETUP_TIMEOUT',
    status: 'honoured',
    note: 'setup() deadline (exit 100)',
  },
  {
    option: 'teardownTimeout',
    env: 'K6_TEARDOWN_TIMEOUT',
    status: 'honoured',
    note: 'teardown() deadline (exit 101)',
  },
  { option: 'tlsAuth', status: 'honoured', note: 'client certificates per domain' },
  { option: 'tlsVersion', status: 'honoured', note: 'TLS versions allowed (min/max)' },
  { option: 'tlsCipherSuites', status: 'honoured', note: 'TLS 1.2 cipher suites allowed (k6 names)' },
  {
    // k6 reads this variable as cipher suite numbers (Go's envconfig); names there exit 104 in k6 too.
    env: 'K6_TLS_CIPHER_SUITES',
    status: 'refused',
    note: "set tlsCipherSuites in the script's options, by name, or run with k6",
  },
  {
    option: 'hosts',
    status: 'honoured',
    note: 'k6/http dials the mapped address (`host`, `host:port` and `*.domain` keys; an address or name, with an optional port); a WebSocket or gRPC connection to a mapped host is refused naming the option',
  },
  {
    option: 'noCookiesReset',
    env: 'K6_NO_COOKIES_RESET',
    status: 'honoured',
    note: "a VU's cookie jar is kept across iterations",
  },
  {
    option: 'metricSamplesBufferSize',
    env: 'K6_METRIC_SAMPLES_BUFFER_SIZE',
    status: 'inert',
    note: "k6's internal sample buffer: there is none to size here, and results do not depend on it",
  },
  {
    option: 'cloud',
    status: 'inert',
    note: 'Grafana Cloud settings: k6 run uses them only with the cloud output, which is refused',
  },
  {
    option: 'ext',
    status: 'inert',
    note: "outputs' settings (ext.loadimpact): as k6 run does without the cloud output",
  },
];

/** The row of a script option, if k6 has it. */
export function optionRow(name: string): SurfaceRow | undefined {
  return K6_SURFACE.find((r) => r.option === name);
}

/** The row of a long or short flag, if `k6 run` has it. */
export function flagRow(flag: string): SurfaceRow | undefined {
  return K6_SURFACE.find((r) => r.flag === flag || r.short === flag);
}

/** The one line that refuses `what` (`option "hosts"`, `flag "--rps"`, `environment variable "K6_RPS"`). */
export function refusalLine(what: string, row: SurfaceRow): string {
  const alt = row.note.endsWith(RUN_WITH_K6) ? row.note : `${row.note}; ${RUN_WITH_K6}`;
  return `${what} is not supported by the Node runtime; ${alt}`;
}

/** Whether a value turns a setting off (false, "false", null): a refused boolean left off is harmless. */
function isOff(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return typeof value === 'string' && ['0', 'f', 'F', 'FALSE', 'false', 'False', ''].includes(value);
}

/** The refusal of a row given `value`, or null when the row accepts it. */
function refuses(row: SurfaceRow, value: unknown): boolean {
  if (row.status === 'refused') return !isOff(value);
  if (row.honouredValues && value !== undefined && value !== true)
    return !row.honouredValues.includes(String(value));
  return false;
}

/** Refusal lines for the script's (or config file's) options; unknown keys are k6's warning, not refused here. */
export function refusedOptions(options: Record<string, unknown>): string[] {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(options)) {
    const row = optionRow(name);
    if (row && refuses(row, value)) lines.push(refusalLine(`option "${name}"`, row));
  }
  return lines;
}

/** Refusal lines for the K6_* variables set in `env`. */
export function refusedEnv(env: Record<string, string | undefined>): string[] {
  const lines: string[] = [];
  for (const row of K6_SURFACE) {
    if (!row.env || env[row.env] === undefined) continue;
    const value = env[row.env];
    if (refuses(row, value)) lines.push(refusalLine(`environment variable "${row.env}=${value}"`, row));
  }
  return lines;
}

/** The refusal line for a flag given on the command line with `value` (true for a flag without one), or null. */
export function refusedFlag(row: SurfaceRow, value: unknown): string | null {
  if (!refuses(row, value)) return null;
  const shown = value === true || row.value === 'none' ? row.flag : `${row.flag} ${String(value)}`;
  return refusalLine(`flag "${shown}"`, row);
}

/** The script options k6 does not know (k6 warns about them and goes on). */
export function unknownOptions(options: Record<string, unknown>): string[] {
  return Object.keys(options).filter((k) => !optionRow(k));
}
