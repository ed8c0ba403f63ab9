/**
 * perf_analyzer's command line, accepted by `bench` (and `capacity` where it applies) with perf_analyzer's
 * meaning: each flag is mapped onto the schema's own flag (lib/settings/schema.ts stays the one source of a
 * setting), so `bench -m onnx-mnist-cpu --concurrency-range 1:8` does what `bench mnist --concurrency 1:8`
 * does. Flags the suite cannot honour are refused by name with what to use instead, never silently taken.
 */
import { existsSync, statSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { getModel, servedModelId } from '../models/index.ts';
import { TRITON_PORTS } from '../scenarios/kit/endpoints.ts';

type Flags = Record<string, unknown>;

/** The commands that take them: bench all; capacity those that apply to a search (its ranges bound it). */
export type PaCommand = 'bench' | 'capacity';

const collect = (value: string, acc: string[] = []): string[] => [...acc, value];

/** Adds perf_analyzer's flags to `bench` or `capacity`; the refused ones hidden from --help. */
export function addPerfAnalyzerOptions(command: Command, name: PaCommand): Command {
  command
    .option(
      '-m <name>',
      "perf_analyzer's: the model's name on the server (as --model-name; picks its catalog entry)",
    )
    .option('-x <version>', "perf_analyzer's: model version (as --model-version)")
    .option('-u <host:port>', "perf_analyzer's: server URL (as --url, or --grpc-url with -i grpc)")
    .option('-i <protocol>', "perf_analyzer's: http or grpc (as --protocol)")
    .option('-H <Name:value>', "perf_analyzer's: a header, repeatable (as --headers)", collect)
    .option('-b <n>', "perf_analyzer's: batch size (as --batch)")
    .option('-p, --measurement-interval <ms>', "perf_analyzer's: window per level in ms (as --step-duration)")
    .option('-s <pct>', "perf_analyzer's: as --stability-percentage")
    .option(
      '-l, --latency-threshold <ms>',
      "perf_analyzer's: latency limit in ms, set as the p95 budget (p99 with --percentile 99)",
    )
    .option('--percentile <p>', "perf_analyzer's: 95 or 99, which budget -l sets")
    .option(
      '--input-data <data>',
      "perf_analyzer's: random (the default) or an input-data JSON (as --payload)",
    )
    .option(
      '--shape <name:dims>',
      "perf_analyzer's: an input's shape, repeatable; must match the model's",
      collect,
    )
    .option('-a, --async', "perf_analyzer's: accepted; each VU keeps one request in flight either way")
    .option('--sync', "perf_analyzer's: accepted; the default")
    .option('--service-kind <kind>', "perf_analyzer's: triton only")
    .option(
      '--input-tensor-format <f>',
      "perf_analyzer's: binary (the default) or json (as --protocol http-json)",
    );
  command
    .option(
      '-r <n>',
      name === 'bench'
        ? "perf_analyzer's: as --max-trials"
        : "perf_analyzer's: windows an unstable level may take in each measurement (bench's --max-trials; --attempts repeats the measurement)",
    )
    .option('-f <file>', "perf_analyzer's: also copy the run's perf_analyzer.csv here")
    .option(
      '--metrics-interval <ms>',
      "perf_analyzer's: how often the server's metrics are scraped (default 500)",
    );
  if (name === 'bench')
    command
      .option('--concurrency-range <start:end:step>', "perf_analyzer's: as --concurrency")
      .option('--request-rate-range <start:end:step>', "perf_analyzer's: as --request-rate")
      .option('--request-distribution <d>', "perf_analyzer's: constant or poisson (as --arrivals)")
      .option('--max-threads <n>', "perf_analyzer's: as --max-vus")
      .option('--collect-metrics', "perf_analyzer's: the server's metrics in the CSV (as --verbose-csv)");
  else
    command
      .option('--concurrency-range <start:end>', "perf_analyzer's: the search's --start and --max")
      .option('--request-rate-range <start:end>', "perf_analyzer's: as --request-rate --start --max")
      .option('--binary-search', "perf_analyzer's: accepted; capacity always searches");
  for (const refused of Object.keys(REFUSED))
    if (!command.options.some((o) => o.flags.split(' ')[0] === refused.split(' ')[0]))
      command.addOption(new Option(refused).hideHelp());
  return command;
}

/** perf_analyzer's flags the suite does not take, with its commander form and the one line saying what to use. */
export const REFUSED: Readonly<Record<string, string>> = {
  '-v': 'bench prints its progress and writes every figure to the results folder; drop -v',
  '-t <n>': 'perf_analyzer deprecated -t; use --concurrency-range',
  '-c <n>': 'perf_analyzer deprecated -c; use --concurrency-range',
  '-d': 'perf_analyzer deprecated -d; use --concurrency-range',
  '-z': 'perf_analyzer deprecated -z (zero data); bench sends generated data: use --input-data <file.json>',
  '--data-directory <dir>': 'use --input-data <file.json> (a perf_analyzer input-data JSON)',
  '--bls-composing-models <list>': 'BLS models are benched as generic models: bench -m <name>',
  '--model-signature-name <name>': 'tfserving is not supported; bench speaks KServe v2 (Triton)',
  '--endpoint <path>': 'for OpenAI endpoints bench a generative model with --protocol openai-chat',
  '--periodic-concurrency-range <range>': 'use --concurrency-range (one level per window)',
  '--request-period <n>': 'use --concurrency-range (one level per window)',
  '--session-concurrency <n>': 'multi-turn sessions are not supported; use --concurrency-range',
  '--request-parameter <p>': 'custom request parameters are not supported',
  '--serial-sequences': 'sequence models: bench keeps one request in flight per sequence already',
  '--binary-search': 'use k6-triton capacity <model>: it searches for the highest load within the budget',
  '--request-count <n>': 'use --measurement-mode count_windows --measurement-request-count <n>',
  '--warmup-request-count <n>': 'use --warmup <duration>',
  '--fixed-schedule': 'use --schedule <file> (JSON lines {"at_ms","model","payload"})',
  '--shared-memory <kind>': 'bench sends tensors in the request body; drop --shared-memory',
  '--output-shared-memory-size <bytes>': 'bench reads outputs from the response; drop it',
  '--string-length <n>': 'make the strings with k6-triton payloads, then --input-data <file.json>',
  '--string-data <s>': 'make the strings with k6-triton payloads, then --input-data <file.json>',
  '--output-tensor-format <f>': 'use --protocol http (binary) or http-json',
  '--profile-export-file <file>': "each run's summary.json and CSVs are in its results folder",
  '--streaming': 'generative models stream already: bench gpt2 (--protocol grpc or an SSE protocol)',
  '--grpc-compression-algorithm <a>': 'gRPC compression is not supported; drop it',
  '--grpc-method <m>': 'bench calls ModelInfer (ModelStreamInfer for generative models); drop it',
  '--trace-level <l>': "use the server's own trace settings",
  '--trace-rate <n>': "use the server's own trace settings",
  '--trace-count <n>': "use the server's own trace settings",
  '--log-frequency <n>': 'bench prints one progress line per level; drop it',
};

/** Commander's key of a flag form: '-t <n>' → t, '--data-directory <dir>' → dataDirectory. */
function keyOf(form: string): string {
  const flag = form.split(' ')[0]!.replace(/^--?/, '');
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** Throws one line for the first refused perf_analyzer flag given. */
export function refusePerfAnalyzer(flags: Flags): void {
  for (const [form, fix] of Object.entries(REFUSED)) {
    if (flags[keyOf(form)] === undefined) continue;
    throw new Error(`perf_analyzer's ${form.split(' ')[0]} is not supported: ${fix}`);
  }
}

/** Sets native flag `key` (spelled `flag`) from perf_analyzer's `pa`; both given and different is an error. */
function put(out: Flags, key: string, flag: string, pa: string, value: unknown): void {
  const given = out[key];
  if (given !== undefined && String(given) !== String(value))
    throw new Error(`${pa} ${String(value)} and ${flag} ${String(given)} disagree; give one of them`);
  out[key] = value;
}

/** perf_analyzer's start[:end[:step]]; end 0 (search to the latency threshold) is capacity's job. */
function range(pa: string, raw: string): string {
  const [, end] = raw.split(':');
  if (end !== undefined && Number(end) === 0)
    throw new Error(
      `${pa} ${raw}: an open end (search to the latency threshold) is k6-triton capacity <model> --max <n>`,
    );
  return raw;
}

/**
 * The HTTP URL beside a gRPC address: the run reads the model's metadata and statistics over HTTP, so -i grpc
 * -u host:8001 implies Triton's http://host:8000; another port needs --url.
 */
function httpBeside(grpc: string): string {
  const at = grpc.lastIndexOf(':');
  if (grpc.slice(at + 1) === String(TRITON_PORTS.grpc))
    return `http://${grpc.slice(0, at)}:${TRITON_PORTS.http}`;
  throw new Error(
    `-i grpc -u ${grpc}: bench also reads the model's metadata and statistics over HTTP; give --url http://host:port (implied only beside Triton's gRPC port ${TRITON_PORTS.grpc})`,
  );
}

/** perf_analyzer's -u as a URL: a bare host:port is http://host:port. */
function httpUrl(raw: string): string {
  return /^[a-z]+:\/\//i.test(raw) ? raw : `http://${raw}`;
}

/**
 * The flags with perf_analyzer's mapped onto the native ones (--model-name, --url, --concurrency, ...); throws
 * one line for a refused flag, a value the suite cannot honour, or a native flag saying otherwise.
 */
export function fromPerfAnalyzer(flags: Flags, env: NodeJS.ProcessEnv = process.env): Flags {
  refusePerfAnalyzer(flags);
  const out: Flags = { ...flags };
  const str = (key: string): string | undefined =>
    flags[key] === undefined ? undefined : String(flags[key]);
  if (str('serviceKind') !== undefined && str('serviceKind') !== 'triton')
    throw new Error(
      `perf_analyzer's --service-kind ${str('serviceKind')} is not supported: bench speaks KServe v2 (triton)`,
    );
  if (str('m') !== undefined) put(out, 'modelName', '--model-name', '-m', str('m'));
  if (str('x') !== undefined) put(out, 'modelVersion', '--model-version', '-x', str('x'));
  const protocol = str('i')?.toLowerCase();
  if (protocol !== undefined && protocol !== 'http' && protocol !== 'grpc')
    throw new Error(`perf_analyzer's -i ${str('i')}: expected http or grpc`);
  const format = str('inputTensorFormat');
  if (format !== undefined && format !== 'binary' && format !== 'json')
    throw new Error(`perf_analyzer's --input-tensor-format ${format}: expected binary or json`);
  if (format === 'json' && protocol === 'grpc')
    throw new Error("perf_analyzer's --input-tensor-format json applies to HTTP; drop it or -i grpc");
  const native = format === 'json' ? 'http-json' : protocol;
  if (native !== undefined)
    put(out, 'protocol', '--protocol', protocol ? '-i' : '--input-tensor-format', native);
  const url = str('u');
  if (url !== undefined) {
    if (protocol === 'grpc') {
      const grpc = url.replace(/^grpc:\/\//, '');
      put(out, 'grpcUrl', '--grpc-url', '-u', grpc);
      if (out.url === undefined && !env.TRITON_URL) out.url = httpBeside(grpc);
    } else put(out, 'url', '--url', '-u', httpUrl(url));
  }
  const headers = flags.H as string[] | undefined;
  if (headers?.length)
    // Added to the headers given otherwise (--headers, else HEADERS), as perf_analyzer's -H adds one.
    out.headers = [String(flags.headers ?? env.HEADERS ?? ''), ...headers].filter(Boolean).join(',');
  if (str('b') !== undefined) put(out, 'batch', '--batch', '-b', str('b'));
  const concurrency = str('concurrencyRange');
  if (concurrency !== undefined)
    put(
      out,
      'concurrency',
      '--concurrency',
      '--concurrency-range',
      range('--concurrency-range', concurrency),
    );
  const rate = str('requestRateRange');
  if (rate !== undefined)
    put(out, 'requestRate', '--request-rate', '--request-rate-range', range('--request-rate-range', rate));
  const distribution = str('requestDistribution');
  if (distribution !== undefined) {
    if (distribution !== 'constant' && distribution !== 'poisson')
      throw new Error(`perf_analyzer's --request-distribution ${distribution}: expected constant or poisson`);
    put(out, 'arrivals', '--arrivals', '--request-distribution', distribution);
  }
  if (str('maxThreads') !== undefined) put(out, 'maxVus', '--max-vus', '--max-threads', str('maxThreads'));
  const interval = str('measurementInterval');
  if (interval !== undefined) {
    if (!/^\d+$/.test(interval) || Number(interval) === 0)
      throw new Error(
        `perf_analyzer's -p ${interval}: expected a whole number of milliseconds > 0, e.g. -p 5000`,
      );
    put(out, 'stepDuration', '--step-duration', '-p', `${interval}ms`);
  }
  if (str('s') !== undefined) put(out, 'stabilityPercentage', '--stability-percentage', '-s', str('s'));
  if (str('r') !== undefined) put(out, 'maxTrials', '--max-trials', '-r', str('r'));
  latency(flags, out);
  inputData(str('inputData'), out);
  if (flags.collectMetrics) out.verboseCsv = true;
  const every = str('metricsInterval');
  if (every !== undefined) {
    if (!/^\d+$/.test(every) || Number(every) === 0)
      throw new Error(
        `perf_analyzer's --metrics-interval ${every}: expected a whole number of milliseconds > 0`,
      );
    out.metricsInterval_ms = Number(every);
  }
  const metrics = str('metricsUrl');
  if (metrics !== undefined && metrics !== 'off') out.metricsUrl = httpUrl(metrics);
  return out;
}

/**
 * capacity's flags with perf_analyzer's mapped: a range's start and end are the search's --start and --max
 * (an end of 0, perf_analyzer's open end, leaves capacity's own ceiling), --request-rate-range searches the rate.
 */
export function capacityFromPerfAnalyzer(flags: Flags): Flags {
  const { concurrencyRange, requestRateRange, binarySearch: _searches, ...rest } = flags;
  if (concurrencyRange !== undefined && requestRateRange !== undefined)
    throw new Error('give --concurrency-range or --request-rate-range, not both');
  const out = fromPerfAnalyzer(rest);
  const raw = concurrencyRange ?? requestRateRange;
  if (raw === undefined) return out;
  const pa = concurrencyRange !== undefined ? '--concurrency-range' : '--request-rate-range';
  const [start, end] = String(raw).split(':').map(Number);
  if (start === undefined || !Number.isFinite(start) || start <= 0 || (end !== undefined && !(end >= 0)))
    throw new Error(`${pa} ${String(raw)}: expected start:end with start > 0, e.g. ${pa} 1:64`);
  put(out, 'start', '--start', pa, start);
  if (end) put(out, 'max', '--max', pa, end);
  if (requestRateRange !== undefined) out.requestRate = true;
  return out;
}

/** -l with --percentile: the p95 budget (p99 with --percentile 99); -l 0 is perf_analyzer's "no threshold". */
function latency(flags: Flags, out: Flags): void {
  const percentile = flags.percentile === undefined ? undefined : String(flags.percentile);
  if (percentile !== undefined && percentile !== '95' && percentile !== '99')
    throw new Error(
      `perf_analyzer's --percentile ${percentile}: bench judges p95 and p99 budgets; give --percentile 95 or 99`,
    );
  const threshold = flags.latencyThreshold === undefined ? undefined : String(flags.latencyThreshold);
  if (threshold === undefined || Number(threshold) === 0) return;
  if (percentile === '99') put(out, 'p99Ms', '--p99-ms', '-l', threshold);
  else put(out, 'p95Ms', '--p95-ms', '-l', threshold);
}

/** --input-data: random is what bench generates; a JSON file is a payload; zero and folders are refused. */
function inputData(data: string | undefined, out: Flags): void {
  if (data === undefined || data === 'random') return;
  if (data === 'zero')
    throw new Error(
      "perf_analyzer's --input-data zero is not supported: bench sends generated data; give an input-data JSON of zeros",
    );
  if (existsSync(data) && statSync(data).isDirectory())
    throw new Error(
      `perf_analyzer's --input-data ${data}: a folder is not supported; give a perf_analyzer input-data JSON file`,
    );
  put(out, 'payload', '--payload', '--input-data', data);
}

/** The model operand: the one given, else -m's catalog entry, else generic (its name is --model-name). */
export function modelOperand(model: string | undefined, flags: Flags): string | undefined {
  if (model !== undefined || flags.m === undefined) return model;
  return servedModelId(String(flags.m)) ?? 'generic';
}

/**
 * perf_analyzer's --shape for a catalog model: each must name one of its inputs with its dims (perf_analyzer's
 * form, the batch dim first or not); one line otherwise. A generic model's shapes are the server's.
 */
export function checkShapes(model: string, shapes: readonly string[] | undefined): void {
  if (!shapes?.length || model === 'generic') return;
  const entry = getModel(model);
  for (const shape of shapes) {
    const at = shape.lastIndexOf(':');
    const name = shape.slice(0, at);
    const dims = shape
      .slice(at + 1)
      .split(',')
      .map(Number);
    const input = entry.inputs.find((t) => t.name === name);
    if (at < 1 || !input)
      throw new Error(
        `--shape ${shape}: ${entry.id} has inputs ${entry.inputs.map((t) => t.name).join(', ')}; give name:d1,d2`,
      );
    const own = input.dims.join(',');
    if (dims.join(',') !== own && dims.slice(1).join(',') !== own)
      throw new Error(
        `--shape ${shape}: ${entry.id}'s ${name} is ${own}; for other shapes make a set with k6-triton payloads --shape, then --input-data <manifest>`,
      );
  }
}
