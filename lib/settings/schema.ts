/**
 * Every setting of a run, declared once: its environment name (k6's __ENV, the process environment), its
 * flags, its kind of value (kinds.ts), default, one doc line, and the commands that take it. The scenario's env
 * reading (read.ts), the commands' flags (cli/settings-options.ts), the docs table (docs-table.ts, into
 * docs/benchmarks.md) and the k8s runners' env (measure/k8s) all derive from this list. Runs inside k6.
 */
import {
  arrivals,
  bool,
  choice,
  duration,
  idRange,
  int,
  type Kind,
  levels,
  percent,
  positive,
  promptSalt,
  ramp,
  seconds,
  text,
  tokenLength,
} from './kinds.ts';

/** The commands whose flags come from the schema. */
export const COMMANDS = ['bench', 'capacity', 'sweep', 'k8s', 'merge'] as const;
export type CommandName = (typeof COMMANDS)[number];

/**
 * Who reads a setting: the scenario inside k6 (its k8s runners get it too), the tool on Node before the run
 * (handed over with the run's settings), or the tool from its own process environment only.
 */
export type Scope = 'scenario' | 'bench' | 'tool';

/** One setting. */
export interface Setting<T = unknown> {
  env: string;
  /** Its flags, long form; the first is the one --help and the docs name (others are aliases). */
  flags: readonly string[];
  kind: Kind<T>;
  /** What the default is, in words ('' when none). */
  default: string;
  /** One line: what it does. */
  doc: string;
  /** The commands whose flags include it. */
  commands: readonly CommandName[];
  scope: Scope;
  /** The page that says more, for the docs table. */
  more?: string;
  /** Set by the tool for the scenario (a shared scenario's entry, a mix slot), not taken from a user's shell. */
  byTool?: true;
}

/** How requests travel: binary tensor extension over HTTP, plain JSON over HTTP, or gRPC. */
export const PROTOCOLS = ['http', 'http-json', 'grpc'] as const;
/**
 * How a generative model streams (scenarios/llm.ts): gRPC ModelStreamInfer, or server-sent events from Triton's
 * generate_stream or OpenAI's chat or completions endpoints with `stream: true` (k6/x/sse).
 */
export const STREAM_PROTOCOLS = ['grpc', 'generate', 'openai-chat', 'openai-completions'] as const;
export type StreamProtocol = (typeof STREAM_PROTOCOLS)[number];
/** A generative model's text embedded, not generated: OpenAI's `POST /v1/embeddings` (scenarios/kit/genai/embeddings-test.ts). */
export const EMBEDDING_PROTOCOLS = ['openai-embeddings'] as const;
export type Protocol = (typeof PROTOCOLS)[number] | StreamProtocol | (typeof EMBEDDING_PROTOCOLS)[number];

/** perf_analyzer's --measurement-mode values. */
export const MEASUREMENT_MODES = ['time_windows', 'count_windows'] as const;
export type MeasurementMode = (typeof MEASUREMENT_MODES)[number];

/** How a Triton LLM backend is asked for an output length (lib/genai/length-controls.ts). */
export const LLM_BACKENDS = ['trtllm', 'vllm'] as const;
export type LlmBackend = (typeof LLM_BACKENDS)[number];

/** perf_analyzer's defaults, and the suite's, for the settings that take a number. */
export const DEFAULTS = {
  validateEvery: 1000,
  maxTrials: 10,
  measurementRequestCount: 50,
  stability_pct: 10,
  arrivalsSeed: 1,
  sequenceLength: 20,
  sequenceLengthVariation_pct: 20,
  numOfSequences: 4,
  promptCount: 100,
  promptSeed: 1,
} as const;

const RUN: readonly CommandName[] = ['bench', 'capacity', 'sweep', 'k8s'];
const LOCAL: readonly CommandName[] = ['bench', 'capacity', 'sweep'];
const RUN_AND_MERGE: readonly CommandName[] = [...RUN, 'merge'];

function setting<T>(s: Omit<Setting<T>, 'flags' | 'scope' | 'default'> & Partial<Setting<T>>): Setting<T> {
  return { flags: [], scope: 'scenario', default: '', ...s };
}

/** Every setting, by environment name. */
export const S = {
  TRITON_URL: setting({
    env: 'TRITON_URL',
    flags: ['--url'],
    kind: text('url', 'http://host:port, https:// for TLS'),
    default: 'the embedded server',
    doc: 'Triton HTTP endpoint; implies gRPC on 8001 and metrics on 8002 beside Triton port 8000 (k8s: as the runners reach it, required)',
    commands: RUN,
  }),
  TRITON_GRPC_URL: setting({
    env: 'TRITON_GRPC_URL',
    flags: ['--grpc-url'],
    kind: text('host:port', 'host:port, grpcs://host:port for TLS'),
    default: "implied by TRITON_URL on Triton's ports",
    doc: 'Triton gRPC endpoint',
    commands: RUN,
  }),
  PROTOCOL: setting({
    env: 'PROTOCOL',
    flags: ['--protocol'],
    kind: choice([...new Set<string>([...PROTOCOLS, ...STREAM_PROTOCOLS, ...EMBEDDING_PROTOCOLS])], 'p'),
    default: 'http; grpc for a generative model',
    doc: 'http (binary tensor extension), http-json or grpc; a generative model: grpc or SSE (generate, openai-chat, openai-completions), or openai-embeddings (POST /v1/embeddings, BATCH inputs a request)',
    commands: RUN_AND_MERGE,
  }),
  MODEL: setting({
    env: 'MODEL',
    kind: text('id'),
    default: "the scenario's model",
    doc: 'the catalog entry a shared scenario runs (bert, sequence, llm): `k6 run -e MODEL=bert-large`',
    commands: [],
    byTool: true,
  }),
  MODEL_NAME: setting({
    env: 'MODEL_NAME',
    flags: ['--model-name'],
    kind: text('name'),
    default: "the catalog's name",
    doc: 'served model name',
    commands: RUN_AND_MERGE,
  }),
  MODEL_VERSION: setting({
    env: 'MODEL_VERSION',
    flags: ['--model-version'],
    kind: text('v'),
    default: 'latest',
    doc: 'model version',
    commands: RUN,
  }),
  BATCH: setting({
    env: 'BATCH',
    flags: ['--batch'],
    kind: int(1),
    default: "the catalog's",
    doc: "request batch size (perf_analyzer's -b)",
    commands: RUN_AND_MERGE,
  }),
  PRECISION: setting({
    env: 'PRECISION',
    flags: ['--precision'],
    kind: text('p', 'FP32, FP16, INT32, INT64'),
    default: "the catalog's",
    doc: 'input precision',
    commands: RUN_AND_MERGE,
  }),
  PAYLOAD: setting({
    env: 'PAYLOAD',
    flags: ['--payload'],
    kind: text('file'),
    default: 'generated',
    doc: 'payload manifest or perf_analyzer input-data JSON (a generative model: a prompt workload)',
    commands: LOCAL,
  }),
  HEADERS: setting({
    env: 'HEADERS',
    flags: ['--headers'],
    kind: text('list', 'Name:value,Name:value'),
    default: 'none',
    doc: 'extra HTTP headers or gRPC metadata; keep secrets in the variable or HEADERS_FILE, not the flag (argv is readable)',
    commands: RUN,
  }),
  HEADERS_FILE: setting({
    env: 'HEADERS_FILE',
    flags: ['--headers-file'],
    kind: text('file'),
    default: 'none',
    doc: 'more headers, one "Name: value" a line (# comments), e.g. a bearer token; values never printed',
    commands: RUN,
  }),
  INSECURE_SKIP_TLS_VERIFY: setting({
    env: 'INSECURE_SKIP_TLS_VERIFY',
    flags: ['--insecure-skip-tls-verify'],
    kind: bool,
    default: 'off',
    doc: "don't verify the server's TLS certificate (k6's option of that name)",
    commands: RUN,
    scope: 'bench',
  }),
  TLS_CA: setting({
    env: 'TLS_CA',
    flags: ['--tls-ca'],
    kind: text('file'),
    default: "the system's",
    doc: "PEM file of the CA that signed the server's certificate (handed to the runtime as SSL_CERT_FILE)",
    commands: RUN,
    scope: 'bench',
  }),
  TLS_CLIENT_CERT: setting({
    env: 'TLS_CLIENT_CERT',
    kind: text('file'),
    default: 'none',
    doc: "a client certificate (PEM) for a server that asks for one; set by perf_analyzer's --ssl-* flags",
    commands: [],
  }),
  TLS_CLIENT_KEY: setting({
    env: 'TLS_CLIENT_KEY',
    kind: text('file'),
    default: 'none',
    doc: "the client certificate's private key (PEM, unencrypted); set by perf_analyzer's --ssl-* flags",
    commands: [],
  }),
  TLS: setting({
    env: 'TLS',
    flags: ['--tls'],
    kind: bool,
    default: 'off',
    doc: 'the started embedded server serves HTTPS and gRPC over TLS, self-signed, trusted by the run',
    commands: LOCAL,
    scope: 'bench',
  }),
  CONCURRENCY: setting({
    env: 'CONCURRENCY',
    flags: ['--concurrency'],
    kind: levels(true),
    default: "the model's levels",
    doc: 'closed loop: the levels (k8s: totals over all runners)',
    commands: ['bench', 'k8s', 'merge'],
  }),
  REQUEST_RATE: setting({
    env: 'REQUEST_RATE',
    flags: ['--request-rate'],
    kind: levels(false),
    default: 'off',
    doc: 'open loop (arrivals at a rate), requests/s: the levels',
    commands: ['bench', 'k8s', 'merge'],
  }),
  RAMP: setting({
    env: 'RAMP',
    flags: ['--ramp'],
    kind: ramp('VUs', '1:16'),
    default: 'off',
    doc: 'closed loop, tensor and generative models: VUs rising (or falling) from:to over --ramp-duration in one k6 ramping-vus scenario, judged per --step-duration window',
    commands: ['bench'],
    more: 'how-it-measures.md#ramps',
  }),
  RAMP_RATE: setting({
    env: 'RAMP_RATE',
    flags: ['--ramp-rate'],
    kind: ramp('requests/s', '10:200'),
    default: 'off',
    doc: 'open loop, tensor and generative models: arrival rate rising (or falling) from:to req/s over --ramp-duration in one k6 ramping-arrival-rate scenario (its startRate and target), judged per --step-duration window',
    commands: ['bench'],
    more: 'how-it-measures.md#ramps',
  }),
  RAMP_DURATION: setting({
    env: 'RAMP_DURATION',
    flags: ['--ramp-duration'],
    kind: duration(),
    default: '4 windows',
    doc: "the ramp's length (k6's stage duration): a whole number of --step-duration windows",
    commands: ['bench'],
  }),
  MAX_VUS: setting({
    env: 'MAX_VUS',
    flags: ['--max-vus'],
    kind: int(1, 'VUs per request-rate level'),
    default: '4 x the highest rate (paced levels: a quarter of the rate, at least 2)',
    doc: "open loop: most VUs per level (perf_analyzer's --max-threads)",
    commands: ['bench'],
  }),
  ARRIVALS: setting({
    env: 'ARRIVALS',
    flags: ['--arrivals'],
    kind: arrivals,
    default: 'constant',
    doc: "open loop gaps: constant, poisson or gamma:<k> (k<1 burstier; genai-perf's --burstiness)",
    commands: ['bench'],
  }),
  ARRIVALS_SEED: setting({
    env: 'ARRIVALS_SEED',
    flags: ['--arrivals-seed'],
    kind: int(0),
    default: String(DEFAULTS.arrivalsSeed),
    doc: 'seed of the Poisson or gamma gaps (same seed, same send times in both runtimes)',
    commands: ['bench'],
  }),
  SCHEDULE: setting({
    env: 'SCHEDULE',
    flags: ['--schedule'],
    kind: text('file'),
    default: 'off',
    doc: 'replay a recorded schedule once: JSON lines {"at_ms","model","payload"}',
    commands: ['bench'],
  }),
  SCHEDULE_SPEED: setting({
    env: 'SCHEDULE_SPEED',
    flags: ['--schedule-speed'],
    kind: positive('2', 'x'),
    default: '1',
    doc: 'replay the schedule this many times as fast (2: twice)',
    commands: ['bench'],
  }),
  REQUEST_INTERVALS: setting({
    env: 'REQUEST_INTERVALS',
    flags: ['--request-intervals'],
    kind: text('file'),
    default: 'off',
    doc: "perf_analyzer's --request-intervals file: one gap in microseconds per line, looped over the window",
    commands: ['bench'],
  }),
  STEP_DURATION: setting({
    env: 'STEP_DURATION',
    flags: ['--step-duration'],
    kind: duration(),
    default: '5s',
    doc: 'measurement window per level (a bare number other than 0 is refused)',
    commands: RUN_AND_MERGE,
  }),
  WARMUP_DURATION: setting({
    env: 'WARMUP_DURATION',
    flags: ['--warmup'],
    kind: duration({ allowZero: true }),
    default: '2s',
    doc: 'warm-up per level; its samples are never judged',
    commands: RUN_AND_MERGE,
  }),
  STABILITY: setting({
    env: 'STABILITY',
    flags: ['--stability', '--stability-percentage'],
    kind: positive('10', 'pct'),
    default: String(DEFAULTS.stability_pct),
    doc: "stability tolerance over the window's three thirds, percent (--stability-percentage: perf_analyzer's name)",
    commands: RUN_AND_MERGE,
    more: 'how-it-measures.md#stability',
  }),
  MAX_TRIALS: setting({
    env: 'MAX_TRIALS',
    flags: ['--max-trials'],
    kind: int(1),
    default: String(DEFAULTS.maxTrials),
    doc: "perf_analyzer's: windows an unstable level may take, measured again three at a time",
    commands: ['bench'],
    more: 'how-it-measures.md#stability',
  }),
  MEASUREMENT_MODE: setting({
    env: 'MEASUREMENT_MODE',
    flags: ['--measurement-mode'],
    kind: choice(MEASUREMENT_MODES, 'mode'),
    default: 'time_windows',
    doc: "perf_analyzer's: count_windows grows windows until each holds MEASUREMENT_REQUEST_COUNT requests",
    commands: ['bench'],
  }),
  MEASUREMENT_REQUEST_COUNT: setting({
    env: 'MEASUREMENT_REQUEST_COUNT',
    flags: ['--measurement-request-count'],
    kind: int(1),
    default: String(DEFAULTS.measurementRequestCount),
    doc: 'count_windows: the fewest requests per window',
    commands: ['bench'],
  }),
  ALLOW_INCONCLUSIVE: setting({
    env: 'ALLOW_INCONCLUSIVE',
    flags: ['--allow-inconclusive'],
    kind: bool,
    default: 'off',
    doc: 'an inconclusive budget (too few samples, unstable level) is printed but does not fail the run (exit 0, not 95)',
    commands: ['bench', 'merge'],
  }),
  P95_MS: setting({
    env: 'P95_MS',
    flags: ['--p95-ms'],
    kind: positive('20', 'ms'),
    default: "the budget file's",
    doc: 'override the p95 latency budget, ms',
    commands: RUN_AND_MERGE,
  }),
  P99_MS: setting({
    env: 'P99_MS',
    flags: ['--p99-ms'],
    kind: positive('40', 'ms'),
    default: "the budget file's",
    doc: 'override the p99 latency budget, ms',
    commands: RUN_AND_MERGE,
  }),
  TTFT_P95_MS: setting({
    env: 'TTFT_P95_MS',
    flags: ['--ttft-p95-ms'],
    kind: positive('50', 'ms'),
    default: "the budget file's",
    doc: 'generative models: override the TTFT p95 budget, ms',
    commands: RUN,
  }),
  ITL_P95_MS: setting({
    env: 'ITL_P95_MS',
    flags: ['--itl-p95-ms'],
    kind: positive('50', 'ms'),
    default: "the budget file's",
    doc: 'generative models: override the ITL p95 budget, ms',
    commands: RUN,
  }),
  VALIDATE_EVERY: setting({
    env: 'VALIDATE_EVERY',
    flags: ['--validate-every'],
    kind: int(0, '1 checks every response, 0 none'),
    default: String(DEFAULTS.validateEvery),
    doc: "check outputs of 1 in n measured responses (1 all, 0 none); status and content type always, and each VU's first warm-up outputs; an invalid response is a failed request",
    commands: RUN,
  }),
  THRESHOLDS: setting({
    env: 'THRESHOLDS',
    flags: ['--thresholds'],
    kind: text('file'),
    default: 'thresholds/<model>.json',
    doc: 'budget file',
    commands: RUN_AND_MERGE,
  }),
  SEQUENCE_LENGTH: setting({
    env: 'SEQUENCE_LENGTH',
    flags: ['--sequence-length'],
    kind: int(1),
    default: String(DEFAULTS.sequenceLength),
    doc: "sequence models: requests per sequence (perf_analyzer's --sequence-length)",
    commands: ['bench'],
    more: 'sequences.md#settings',
  }),
  SEQUENCE_LENGTH_VARIATION: setting({
    env: 'SEQUENCE_LENGTH_VARIATION',
    flags: ['--sequence-length-variation'],
    kind: percent,
    default: String(DEFAULTS.sequenceLengthVariation_pct),
    doc: 'sequence models: each sequence length drawn within ± this percent',
    commands: ['bench'],
  }),
  SEQUENCE_ID_RANGE: setting({
    env: 'SEQUENCE_ID_RANGE',
    flags: ['--sequence-id-range'],
    kind: idRange,
    default: '1 (ids 1 … 2^32 − 1)',
    doc: "sequence models: correlation ids, end excluded; start alone runs to perf_analyzer's default count",
    commands: ['bench'],
  }),
  NUM_OF_SEQUENCES: setting({
    env: 'NUM_OF_SEQUENCES',
    flags: ['--num-of-sequences'],
    kind: int(1),
    default: String(DEFAULTS.numOfSequences),
    doc: 'sequence models, request rate: live sequences sharing each level',
    commands: ['bench'],
  }),
  INPUT_TOKENS: setting({
    env: 'INPUT_TOKENS',
    flags: ['--input-tokens'],
    kind: tokenLength,
    default: "the model's calibration",
    doc: 'generative models: prompt tokens, n | mean,stddev (normal, rounded, >= 1) | min:max (uniform)',
    commands: ['bench'],
    more: 'payloads.md#prompt-workloads-generative-models',
  }),
  OUTPUT_TOKENS: setting({
    env: 'OUTPUT_TOKENS',
    flags: ['--output-tokens'],
    kind: tokenLength,
    default: "the model's calibration",
    doc: 'generative models: output tokens asked, n | mean,stddev | min:max',
    commands: ['bench'],
  }),
  PREFIX_TOKENS: setting({
    env: 'PREFIX_TOKENS',
    flags: ['--prefix-tokens', '--prefix-prompt-length'],
    kind: int(0),
    default: '0',
    doc: "generative models: a prefix of n tokens shared by every prompt (KV-cache reuse; AIPerf's --prefix-prompt-length)",
    commands: ['bench'],
    scope: 'bench',
  }),
  PREFIX_POOL: setting({
    env: 'PREFIX_POOL',
    flags: ['--prefix-pool', '--prefix-prompt-pool-size'],
    kind: int(1),
    default: '1',
    doc: "generative models: n distinct PREFIX_TOKENS prefixes, each prompt drawing one (AIPerf's --prefix-prompt-pool-size, inference-perf's shared_prefix num_groups)",
    commands: ['bench'],
    scope: 'bench',
    more: 'generative-metrics.md#cache-honest-prompts',
  }),
  PROMPT_SALT: setting({
    env: 'PROMPT_SALT',
    flags: ['--prompt-salt'],
    kind: promptSalt,
    default: 'random',
    doc: 'generative models: random makes every prompt of a run unique and runs differ; a whole number the same on a rerun; off sends the workload as it is (prompts repeat across levels and runs); conversations get one salt per session, a conversation dataset only when this is given',
    commands: ['bench'],
    more: 'generative-metrics.md#cache-honest-prompts',
  }),
  REQUEST_CANCELLATION_RATE: setting({
    env: 'REQUEST_CANCELLATION_RATE',
    flags: ['--request-cancellation-rate', '--cancel-rate'],
    kind: percent,
    default: '0',
    doc: "generative models: percent of requests cancelled on the wire after REQUEST_CANCELLATION_DELAY (AIPerf's)",
    commands: ['bench'],
    more: 'generative-metrics.md#cancelled-requests',
  }),
  REQUEST_CANCELLATION_DELAY: setting({
    env: 'REQUEST_CANCELLATION_DELAY',
    flags: ['--request-cancellation-delay', '--cancel-after'],
    kind: seconds,
    default: '0',
    doc: "generative models: how long after its send a cancelled request is cancelled, seconds (AIPerf's) or a duration (500ms)",
    commands: ['bench'],
    more: 'generative-metrics.md#cancelled-requests',
  }),
  SLICE_DURATION: setting({
    env: 'SLICE_DURATION',
    flags: ['--slice-duration'],
    kind: positive('2.5', 's'),
    default: 'off',
    doc: "generative models: cut each level into slices of this many seconds, per-slice figures in the results (AIPerf's --slice-duration)",
    commands: ['bench'],
    scope: 'bench',
    more: 'generative-metrics.md#time-slices',
  }),
  PREFLIGHT: setting({
    env: 'PREFLIGHT',
    flags: ['--preflight'],
    kind: choice(['on', 'off']),
    default: 'on',
    doc: "generative models: before the first level, measure the generator's own TTFT and token-gap error against a known-delay stream (a few seconds)",
    commands: ['bench', 'capacity'],
    scope: 'bench',
    more: 'generative-metrics.md#the-error-bar',
  }),
  PROMPT_COUNT: setting({
    env: 'PROMPT_COUNT',
    flags: ['--prompts'],
    kind: int(1),
    default: String(DEFAULTS.promptCount),
    doc: "generative models: distinct synthetic prompts (genai-perf's --num-dataset-entries)",
    commands: ['bench'],
  }),
  PROMPT_SEED: setting({
    env: 'PROMPT_SEED',
    flags: ['--prompt-seed'],
    kind: int(0),
    default: String(DEFAULTS.promptSeed),
    doc: 'generative models: seed of the prompts and lengths',
    commands: ['bench'],
  }),
  DATASET: setting({
    env: 'DATASET',
    flags: ['--dataset'],
    kind: text('file'),
    default: 'none',
    doc: 'generative models: JSON lines {"text"} or {"input_length"}, "output_length", "timestamp" ms for a trace; or ShareGPT "conversations" / OpenAI "messages" lines for multi-turn sessions',
    commands: ['bench'],
    scope: 'bench',
  }),
  CONVERSATION_NUM: setting({
    env: 'CONVERSATION_NUM',
    flags: ['--conversation-num', '--num-sessions'],
    kind: int(1),
    default: 'PROMPT_COUNT; all of a conversation dataset',
    doc: "generative models: multi-turn sessions to make (AIPerf's --conversation-num, genai-perf's --num-sessions); CONCURRENCY then counts sessions in flight, REQUEST_RATE sessions started per second",
    commands: ['bench'],
    scope: 'bench',
    more: 'generative-metrics.md#conversations-multi-turn-sessions',
  }),
  CONVERSATION_TURN_MEAN: setting({
    env: 'CONVERSATION_TURN_MEAN',
    flags: ['--conversation-turn-mean', '--session-turns-mean'],
    kind: int(1),
    default: '1',
    doc: "generative models: turns per synthetic session, mean (AIPerf's --conversation-turn-mean); setting it makes the run multi-turn",
    commands: ['bench'],
    scope: 'bench',
    more: 'generative-metrics.md#conversations-multi-turn-sessions',
  }),
  CONVERSATION_TURN_STDDEV: setting({
    env: 'CONVERSATION_TURN_STDDEV',
    flags: ['--conversation-turn-stddev', '--session-turns-stddev'],
    kind: int(0),
    default: '0',
    doc: "generative models: turns per synthetic session, standard deviation (AIPerf's --conversation-turn-stddev)",
    commands: ['bench'],
    scope: 'bench',
    more: 'generative-metrics.md#conversations-multi-turn-sessions',
  }),
  CONVERSATION_TURN_DELAY_MEAN: setting({
    env: 'CONVERSATION_TURN_DELAY_MEAN',
    flags: ['--conversation-turn-delay-mean', '--session-turn-delay-mean'],
    kind: int(0),
    default: '0',
    doc: "generative models: think time before each later turn of a session, ms, mean (AIPerf's --conversation-turn-delay-mean)",
    commands: ['bench'],
    scope: 'bench',
    more: 'generative-metrics.md#conversations-multi-turn-sessions',
  }),
  CONVERSATION_TURN_DELAY_STDDEV: setting({
    env: 'CONVERSATION_TURN_DELAY_STDDEV',
    flags: ['--conversation-turn-delay-stddev', '--session-turn-delay-stddev'],
    kind: int(0),
    default: '0',
    doc: "generative models: think time, ms, standard deviation of a normal draw seeded by PROMPT_SEED (AIPerf's --conversation-turn-delay-stddev)",
    commands: ['bench'],
    scope: 'bench',
    more: 'generative-metrics.md#conversations-multi-turn-sessions',
  }),
  TOKENIZER: setting({
    env: 'TOKENIZER',
    flags: ['--tokenizer'],
    kind: text('path'),
    default: "the model's own",
    doc: "generative models: the model's tokenizer.json or its folder",
    commands: ['bench'],
    scope: 'bench',
  }),
  LLM_BACKEND: setting({
    env: 'LLM_BACKEND',
    flags: ['--llm-backend'],
    kind: choice(LLM_BACKENDS),
    default: 'trtllm',
    doc: 'generative models: how the output length is asked (trtllm or vllm)',
    commands: ['bench'],
  }),
  FIRST_DELAY_MS: setting({
    env: 'FIRST_DELAY_MS',
    kind: int(0),
    default: "the model's calibration TTFT (20)",
    doc: 'the repeat model: ms its backend waits before the first response',
    commands: [],
  }),
  TOKEN_DELAY_MS: setting({
    env: 'TOKEN_DELAY_MS',
    kind: int(0),
    default: "the model's calibration ITL (5)",
    doc: 'the repeat model: ms its backend waits before each other response',
    commands: [],
  }),
  MIX_SLOT: setting({
    env: 'MIX_SLOT',
    kind: int(0),
    default: 'none',
    doc: "set by bench --mix: a mix model's slot of exported functions",
    commands: [],
    byTool: true,
  }),
  RUNTIME: setting({
    env: 'RUNTIME',
    flags: ['--runtime'],
    kind: choice(['auto', 'k6', 'node'], 'r'),
    default: 'auto',
    doc: 'the k6 binary or the Node runtime (auto: k6 when found)',
    commands: LOCAL,
    scope: 'tool',
  }),
  K6_BIN: setting({
    env: 'K6_BIN',
    kind: text('path'),
    default: 'k6 on PATH',
    doc: 'the k6 binary to use',
    commands: [],
    scope: 'tool',
  }),
  TRITONSERVER: setting({
    env: 'TRITONSERVER',
    flags: ['--tritonserver'],
    kind: text('path'),
    default: 'none',
    doc: 'start this real tritonserver binary instead of the embedded server',
    commands: LOCAL,
    scope: 'tool',
  }),
} satisfies Record<string, Setting<unknown>>;

/** Every setting, in the order declared. */
export const SETTINGS: readonly Setting[] = Object.values(S) as Setting[];

/** The setting named `env`, or undefined. */
export function settingNamed(env: string): Setting | undefined {
  return SETTINGS.find((s) => s.env === env);
}
