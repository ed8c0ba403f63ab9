/**
 * The suite against the real Triton Inference Server (tritonserver): on the catalog exported as a model
 * repository, `bench` of every catalog model over HTTP and gRPC under the Node runtime and under real k6,
 * each level with its server statistics and its Prometheus metrics (--metrics-url); the server columns
 * against perf_analyzer's on the same server, model and concurrency; then `sweep mnist` (explicit model
 * control) and `capacity mnist`, each starting its own tritonserver through TRITONSERVER. Prints one line
 * per check; exits 1 when any fails, 2 when there is no tritonserver. A run whose budget is missed (exit 99)
 * still passes: the server and the load generator share this machine's cores.
 *
 *   TRITONSERVER=... K6_BIN=... PERF_ANALYZER=... node --import tsx test/e2e/triton/suite-on-triton.ts [model ...]
 *     [--only matrix,agreement,sweep,capacity]
 *
 * Each tool defaults to ../shared/tools/bin/<name>; without k6 or perf_analyzer their checks say "not run".
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { getPriority, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type RealTriton, startTritonserver } from '../../../measure/core/tritonserver.ts';
import type { CapacityRecord } from '../../../measure/capacity/capacity-report.ts';
import type { SweepRecord } from '../../../measure/sweep/sweep-report.ts';
import type { RunReport } from '../../../lib/summary/types.ts';
import { getModel, modelIds } from '../../../models/index.ts';
import { writeCatalogRepository } from '../../../measure/repository/export.ts';
import { type CliRun, runCli } from '../bench/run-cli.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { reportProblems } from './level-checks.ts';
import { compareServerColumns, measureSideBySide, readCsvLevels, runPerfAnalyzer } from './pa-agreement.ts';

const PREFIX = 'suite-on-triton:';
/** Short levels: the matrix proves the suite runs and reads Triton, it does not measure it. */
const MATRIX_LEVELS = [1, 2];
const SHORT = ['--step-duration', '2s', '--warmup', '1s', '--count', '2'];
/** Models benched at once in the matrix. */
const MATRIX_LANES = 2;
/** The comparison with perf_analyzer: MNIST, the one catalog model with a real network behind it. */
const AGREEMENT_MODEL = 'mnist';
const AGREEMENT_LEVELS = [1, 2];
const AGREEMENT_ROUNDS = 3;
/** Each bench window holds perf_analyzer's three 2 s windows. */
const AGREEMENT_TIMES = { warmup_s: 1, window_s: 6 };
/** Both exit codes of a run that measured every level: budgets met, or a budget missed. */
const MEASURED = new Set([0, 99]);

const triton = referenceTool('tritonserver', 'TRITONSERVER');
const k6 = referenceTool('k6', 'K6_BIN');
const perfAnalyzer = referenceTool('perf_analyzer', 'PERF_ANALYZER');
const root = mkdtempSync(join(tmpdir(), 'k6t-on-triton-'));
let failed = 0;

function report(ok: boolean, line: string, detail?: string): void {
  console.log(`${PREFIX} ${ok ? '' : 'FAILED: '}${line}`);
  if (!ok) {
    failed++;
    if (detail) console.log(detail);
  }
}

/** The run folder a command printed last ("results: <dir>"). */
function resultsOf(run: CliRun): string | undefined {
  return [...run.stdout.matchAll(/^results: (.*)$/gm)].at(-1)?.[1];
}

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

function tail(run: CliRun): string {
  return `${run.stdout}\n${run.stderr}`.trim().split('\n').slice(-25).join('\n');
}

/** `bench` against the shared tritonserver; resolves with the run and its report. */
async function bench(
  server: RealTriton,
  model: string,
  args: string[],
): Promise<{ run: CliRun; report?: RunReport; dir?: string }> {
  const run = await runCli(
    [
      ...['bench', model, '--url', server.url, '--grpc-url', server.grpcUrl],
      ...['--results-dir', mkdtempSync(join(root, 'bench-')), ...args],
    ],
    k6.path ? { K6_BIN: k6.path } : {},
  );
  const dir = resultsOf(run);
  const summary = dir ? readJson<{ report: RunReport }>(join(dir, 'summary.json')) : undefined;
  return { run, ...(summary ? { report: summary.report } : {}), ...(dir ? { dir } : {}) };
}

/** One model's runs, over each protocol and runtime, one after the other. */
async function benchModel(server: RealTriton, model: string, runtimes: string[]): Promise<void> {
  for (const protocol of ['http', 'grpc']) {
    for (const runtime of runtimes) {
      const { run, report: written } = await bench(server, model, [
        ...['--protocol', protocol, '--runtime', runtime, '--metrics-url', server.metricsUrl],
        ...['--concurrency', MATRIX_LEVELS.join(','), '--no-progress', ...SHORT],
      ]);
      const levels = MATRIX_LEVELS.map((c) => `c${c}`);
      const found = MEASURED.has(run.code)
        ? reportProblems(written, { levels, metrics: true })
        : [`bench exited ${run.code}`];
      const verdict = run.code === 99 ? 'a budget missed on this shared machine' : 'budgets met';
      report(
        found.length === 0,
        `${model} ${protocol} ${runtime}: ${found.length === 0 ? `every level with server statistics and metrics, ${verdict}` : found.join('; ')}`,
        tail(run),
      );
    }
  }
}

/**
 * Every model, protocol and runtime: levels measured, server statistics and Prometheus metrics in each. Two
 * models at a time: Triton's statistics and metrics are per model, so neither run reads the other's requests,
 * and most of a short bench is starting up and writing its report, which two cores do side by side.
 */
async function matrix(server: RealTriton, models: string[]): Promise<void> {
  const runtimes = k6.path ? ['node', 'k6'] : ['node'];
  if (!k6.path) console.log(`${PREFIX} not run: the real-k6 rows: ${k6.skipReason}`);
  const queue = [...models];
  const lane = async () => {
    for (let model = queue.shift(); model !== undefined; model = queue.shift())
      await benchModel(server, model, runtimes);
  };
  await Promise.all(Array.from({ length: MATRIX_LANES }, lane));
}

/**
 * The bench's server columns against perf_analyzer's, both measuring the same seconds of the server at the
 * same concurrency (pa-agreement.ts says why side by side), up to AGREEMENT_ROUNDS times until a round agrees.
 */
async function agreement(server: RealTriton): Promise<void> {
  if (!perfAnalyzer.path) {
    console.log(`${PREFIX} not run: the perf_analyzer agreement: ${perfAnalyzer.skipReason}`);
    return;
  }
  const entry = getModel(AGREEMENT_MODEL);
  for (const protocol of ['http', 'grpc'] as const) {
    const lines: string[] = [];
    let agreed = false;
    for (let round = 1; round <= AGREEMENT_ROUNDS && !agreed; round++) {
      const { bench: ours, reference } = await measureSideBySide({
        url: server.url,
        model: entry.name,
        levels: AGREEMENT_LEVELS,
        ...AGREEMENT_TIMES,
        bench: () =>
          bench(server, AGREEMENT_MODEL, [
            ...['--protocol', protocol, '--runtime', 'node', '--concurrency', AGREEMENT_LEVELS.join(',')],
            ...[
              '--step-duration',
              `${AGREEMENT_TIMES.window_s}s`,
              '--warmup',
              `${AGREEMENT_TIMES.warmup_s}s`,
            ],
            ...['--count', '2', '--no-progress'],
          ]),
        perfAnalyzer: (concurrency, window_ms) =>
          runPerfAnalyzer({
            binary: perfAnalyzer.path!,
            model: entry.name,
            target: protocol === 'http' ? server.url.replace('http://', '') : server.grpcUrl,
            protocol,
            concurrency,
            window_ms,
            csv: join(root, `pa-${protocol}-${round}-c${concurrency}.csv`),
          }),
      });
      if (!MEASURED.has(ours.run.code) || !ours.dir) {
        lines.push(`round ${round}: bench exited ${ours.run.code}\n${tail(ours.run)}`);
        continue;
      }
      const suite = readCsvLevels(readFileSync(join(ours.dir, 'perf_analyzer.csv'), 'utf8'));
      const { comparisons, missing } = compareServerColumns(suite, reference, AGREEMENT_LEVELS);
      const cells = comparisons.map(
        (c) => `c${c.level} ${c.column} ${c.suite_us} vs ${c.reference_us} us${c.ok ? '' : ' (outside)'}`,
      );
      lines.push(`round ${round}: ${[...missing, ...cells].join(', ')}`);
      agreed = missing.length === 0 && comparisons.every((c) => c.ok);
    }
    report(
      agreed,
      `${AGREEMENT_MODEL} ${protocol}: the bench's server columns ${agreed ? 'agree' : 'disagree'} with perf_analyzer's`,
    );
    for (const line of lines) console.log(`  ${line}`);
  }
}

/** `sweep mnist` on a tritonserver it starts itself (explicit model control): configs applied, original back. */
async function sweep(): Promise<void> {
  const run = await runCli(
    [
      ...['sweep', 'mnist', '--instances', '1,2', '--max-queue-delay-us', '0', '--concurrency', '1'],
      ...['--runtime', 'node', '--results-dir', mkdtempSync(join(root, 'sweep-')), ...SHORT],
    ],
    { TRITONSERVER: triton.path! },
  );
  const dir = resultsOf(run);
  const record = dir ? readJson<SweepRecord>(join(dir, 'sweep.json')) : undefined;
  const found: string[] = [];
  if (!MEASURED.has(run.code)) found.push(`sweep exited ${run.code}`);
  if (!/^tritonserver on .*explicit model control/m.test(run.stdout))
    found.push('it did not start tritonserver in explicit model control');
  if (!record) found.push('no sweep.json');
  else {
    if (!record.restored) found.push('the original config was not loaded back');
    const instances = record.applied.map((a) => a.applied?.instances);
    if (instances.join(',') !== '1,2') found.push(`Triton took instance counts ${instances.join(',')}`);
    for (const r of record.ranking)
      if (r.error || !((r.levels[0]?.throughput_infer_s ?? 0) > 0))
        found.push(`${r.config.instances} instances: ${r.error ?? 'no throughput'}`);
  }
  report(
    found.length === 0,
    `sweep mnist: ${found.length === 0 ? 'two configs loaded through the repository API, measured, the original restored' : found.join('; ')}`,
    tail(run),
  );
}

/** `capacity mnist` on a tritonserver it starts itself: a short search to a level within budget. */
async function capacity(): Promise<void> {
  const run = await runCli(
    [
      ...['capacity', 'mnist', '--max', '2', '--attempts', '1', '--runtime', 'node'],
      ...['--results-dir', mkdtempSync(join(root, 'capacity-')), ...SHORT],
    ],
    { TRITONSERVER: triton.path! },
  );
  const dir = resultsOf(run);
  const record = dir ? readJson<CapacityRecord>(join(dir, 'capacity.json')) : undefined;
  const found: string[] = [];
  if (!MEASURED.has(run.code)) found.push(`capacity exited ${run.code}`);
  if (!/^tritonserver on /m.test(run.stdout)) found.push('it did not start tritonserver');
  if (!record) found.push('no capacity.json');
  else {
    if (record.path.length === 0) found.push('no level measured');
    if (record.path.some((t) => !(t.measurement.throughput_infer_s > 0)))
      found.push('a level with no throughput');
    if (record.answer.level === null) found.push('no level within budget');
  }
  report(
    found.length === 0,
    `capacity mnist: ${found.length === 0 ? `${record!.path.length} levels measured, answer ${record!.answer.level}` : found.join('; ')}`,
    tail(run),
  );
}

/** The parts, in the order they run; --only picks some. */
const PARTS = ['matrix', 'agreement', 'sweep', 'capacity'] as const;

/** Runs a part and says how long it took. */
async function timed(part: string, run: () => Promise<void>): Promise<void> {
  const from_ms = Date.now();
  await run();
  console.log(`${PREFIX} ${part} took ${Math.round((Date.now() - from_ms) / 1000)} s`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { only: { type: 'string', default: PARTS.join(',') } },
  });
  const parts = new Set(values.only.split(','));
  for (const part of parts)
    if (!(PARTS as readonly string[]).includes(part))
      throw new Error(`unknown part "${part}" in --only; expected some of ${PARTS.join(',')}`);
  if (!triton.path) {
    console.log(`${PREFIX} nothing run: ${triton.skipReason}`);
    process.exit(2);
  }
  // Best effort (root only), as test/e2e/tools/perf-analyzer.test.ts: tritonserver, the bench and perf_analyzer
  // inherit it, so other work on the two cores disturbs the server's microsecond columns less.
  try {
    setPriority(Math.max(-10, getPriority() - 10));
  } catch {}
  const started_ms = Date.now();
  const models = positionals.length > 0 ? positionals : modelIds();
  if (parts.has('matrix') || parts.has('agreement')) {
    const repository = join(root, 'repository');
    await writeCatalogRepository(repository, { models });
    const server = await startTritonserver({ binary: triton.path, repository });
    console.log(`${PREFIX} tritonserver ready on ${server.url} with ${models.join(', ')}`);
    try {
      if (parts.has('matrix')) await timed('matrix', () => matrix(server, models));
      if (parts.has('agreement') && models.includes(AGREEMENT_MODEL))
        await timed('agreement', () => agreement(server));
    } finally {
      await server.stop();
    }
  }
  if (parts.has('sweep')) await timed('sweep', sweep);
  if (parts.has('capacity')) await timed('capacity', capacity);
  const took_s = Math.round((Date.now() - started_ms) / 1000);
  console.log(
    failed === 0
      ? `${PREFIX} all checks passed in ${took_s} s`
      : `${PREFIX} ${failed} check(s) failed in ${took_s} s (files in ${root})`,
  );
  if (failed === 0) rmSync(root, { recursive: true, force: true });
  process.exit(failed === 0 ? 0 : 1);
}
