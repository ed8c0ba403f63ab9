/**
 * The fidelity benchmark: how close the suite's load generator comes to perf_analyzer on one server.
 * Starts the embedded server, then at the same concurrency levels, HTTP and gRPC, runs perf_analyzer,
 * the model's scenario (`bench`) under the Node runtime and under real k6, and a minimal k6 script on
 * each runtime; prints throughput as a ratio to perf_analyzer, p50 at the first level, and the
 * client's CPU per request at the first and last levels. A tool that is absent is named in the output,
 * never silently skipped.
 *
 *   node --import tsx bench/fidelity/run.ts [--levels 1,2,3,4] [--seconds 5] [--warmup 2] [--protocols http,grpc]
 *     [--rows pa,scenario-node,scenario-k6,minimal-node,minimal-k6,lib] [--rounds 1] [--targets embedded,triton]
 *
 * --rows picks the clients (lib: the Node client libraries alone); --rounds repeats them, alternating (each
 * round starts one row later), and adds a table of each row's median per level: on shared cores one sitting
 * swings by ±30%. --seconds and --warmup default to the bench's own (5 s windows after 2 s of warm-up), so
 * the Node runtime is measured JIT-compiled, as users run it; perf_analyzer has no warm-up but measures until
 * three windows agree.
 *
 * --targets picks the servers, one after the other: the embedded server, real Triton (TRITONSERVER, else
 * ../shared/tools/bin/tritonserver, on the catalog's exported repository), or both; with both, a last table puts
 * each row's share of perf_analyzer on the two servers side by side.
 *
 * Tools: PERF_ANALYZER, else ../shared/tools/bin/perf_analyzer; K6_BIN, else ../shared/tools/bin/k6.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Papa from 'papaparse';
import { type CpuSample, cpuShare_pct, sampleCpu } from '../../measure/core/cpu.ts';
import { type LocalServer, startLocalServer } from '../../measure/core/local-server.ts';
import type { LevelResult } from '../../lib/summary/types.ts';
import { getModel } from '../../models/index.ts';
import { DEFAULT_WARMUP_S, DEFAULT_WINDOW_S } from '../../lib/load/shapes.ts';
import { medianRows, type Point, type Row, sideBySide, table } from './tables.ts';
import { us_to_ms } from '../../lib/units.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPTS = join(ROOT, 'bench', 'fidelity', 'scripts');

/** The rows --rows may pick, in the order they run. */
const ROW_KEYS = ['pa', 'scenario-node', 'scenario-k6', 'minimal-node', 'minimal-k6', 'lib'] as const;

const { values: args } = parseArgs({
  options: {
    levels: { type: 'string', default: '1,2,3,4' },
    // The bench's own defaults (models/types.ts): a JIT-compiled client measured cold is not what users run.
    seconds: { type: 'string', default: String(DEFAULT_WINDOW_S) },
    warmup: { type: 'string', default: String(DEFAULT_WARMUP_S) },
    protocols: { type: 'string', default: 'http,grpc' },
    rows: { type: 'string', default: ROW_KEYS.join(',') },
    rounds: { type: 'string', default: '1' },
    targets: { type: 'string', default: 'embedded' },
  },
});
const LEVELS = args.levels.split(',').map(Number);
const SECONDS = Number(args.seconds);
const WARMUP_S = Number(args.warmup);
const PROTOCOLS = args.protocols.split(',') as ('http' | 'grpc')[];
const ROWS = new Set(args.rows.split(','));
const ROUNDS = Number(args.rounds);
/** The servers measured, in order. */
const TARGET_KEYS = ['embedded', 'triton'] as const;
type TargetKey = (typeof TARGET_KEYS)[number];
const TARGETS = args.targets.split(',') as TargetKey[];
for (const key of TARGETS) {
  if (!(TARGET_KEYS as readonly string[]).includes(key)) {
    throw new Error(`unknown target "${key}" in --targets; expected some of ${TARGET_KEYS.join(',')}`);
  }
}
for (const key of ROWS) {
  if (!(ROW_KEYS as readonly string[]).includes(key)) {
    throw new Error(`unknown row "${key}" in --rows; expected some of ${ROW_KEYS.join(',')}`);
  }
}
if (!(WARMUP_S >= 0)) throw new Error(`invalid --warmup ${args.warmup}; expected seconds >= 0`);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1)
  throw new Error(`invalid --rounds ${args.rounds}; expected 1 or more`);
const OUT = mkdtempSync(join(tmpdir(), 'k6t-fidelity-'));

function tool(envName: string, shared: string): string | undefined {
  const fromEnv = process.env[envName];
  if (fromEnv) return fromEnv;
  const path = join(ROOT, '..', 'shared', 'tools', 'bin', shared);
  return existsSync(path) ? path : undefined;
}

/** Runs a command to its end; resolves with its output and the CPU samples of its process. */
function exec(
  program: string,
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; out: string; cpu: CpuSample[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, argv, { env, cwd: ROOT });
    const cpu = sampleCpu(child.pid!, 100);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? 1, out, cpu: cpu.stop() }));
  });
}

/** Tool runs so far: each writes its own file, so a run that writes none cannot pass off an earlier round's. */
let runs = 0;

async function perfAnalyzer(pa: string, model: string, protocol: string, target: string): Promise<Row> {
  const csv = join(OUT, `pa-${protocol}-${++runs}.csv`);
  const range = `${Math.min(...LEVELS)}:${Math.max(...LEVELS)}`;
  const run = await exec(pa, [
    ...['-m', model, '-u', target, '-i', protocol, '--concurrency-range', range],
    ...['-p', String(SECONDS * 1000), '--max-trials', '6', '--stability-percentage', '15', '-f', csv],
  ]);
  const row: Row = { client: 'perf_analyzer', points: new Map() };
  if (!existsSync(csv)) return { ...row, missing: `perf_analyzer wrote no CSV (exit ${run.code})` };
  const parsed = Papa.parse<Record<string, string>>(readFileSync(csv, 'utf8'), {
    header: true,
    skipEmptyLines: true,
  });
  for (const r of parsed.data) {
    row.points.set(Number(r['Concurrency']), {
      infer_s: Number(r['Inferences/Second']),
      p50_ms: us_to_ms(Number(r['p50 latency'])),
    });
  }
  return row;
}

async function scenario(protocol: string, runtime: 'node' | 'k6', urls: Urls, k6?: string): Promise<Row> {
  const client = `bench mnist, ${runtime === 'k6' ? 'real k6' : 'Node runtime'}`;
  if (runtime === 'k6' && !k6) return { client, points: new Map(), missing: 'no k6 (set K6_BIN)' };
  const dir = join(OUT, `bench-${protocol}-${runtime}`);
  const run = await exec(
    process.execPath,
    [
      join(ROOT, 'bin', 'k6-triton.js'),
      ...['bench', 'mnist', '--url', urls.http, '--grpc-url', urls.grpc, '--protocol', protocol],
      ...['--runtime', runtime, '--concurrency', LEVELS.join(','), '--step-duration', `${SECONDS}s`],
      ...['--warmup', `${WARMUP_S}s`, '--results-dir', dir],
    ],
    { ...process.env, ...(k6 ? { K6_BIN: k6 } : {}) },
  );
  const levelsFile = run.out.match(/^results: (.*)$/m)?.[1];
  const path = levelsFile ? join(levelsFile, 'levels.json') : '';
  if (!existsSync(path)) return { client, points: new Map(), missing: `bench failed (exit ${run.code})` };
  // summary.json holds the written report, whose levels carry the generator's CPU share.
  const summary = JSON.parse(readFileSync(join(levelsFile!, 'summary.json'), 'utf8')) as {
    report?: { results: LevelResult[] };
  };
  const results = summary.report?.results ?? (JSON.parse(readFileSync(path, 'utf8')) as LevelResult[]);
  const points = new Map<number, Point>();
  for (const result of results) {
    const cpu = result.generator?.cpu_pct;
    points.set(result.level, {
      infer_s: result.throughput_infer_s,
      p50_ms: us_to_ms(result.latency_us.p50),
      ...(cpu !== undefined ? { cpu_us: ((cpu / 100) * 1e6) / result.throughput_infer_s } : {}),
    });
  }
  return { client, points };
}

async function minimal(protocol: string, runtime: 'node' | 'k6', urls: Urls, k6?: string): Promise<Row> {
  const client = `minimal script, ${runtime === 'k6' ? 'real k6' : 'Node runtime'}`;
  if (runtime === 'k6' && !k6) return { client, points: new Map(), missing: 'no k6 (set K6_BIN)' };
  const entry = getModel('mnist');
  const input = entry.inputs[0]!;
  const shape = entry.maxBatchSize > 0 ? [1, ...input.dims] : input.dims;
  const script = join(SCRIPTS, `minimal-${protocol}${runtime === 'node' ? '-async' : ''}.js`);
  const metric = protocol === 'grpc' ? 'grpc_req_duration' : 'http_req_duration';
  const points = new Map<number, Point>();
  for (const level of LEVELS) {
    const summaryPath = join(OUT, `min-${protocol}-${runtime}-c${level}-${++runs}.json`);
    const env = {
      URL: urls.http,
      GRPC_URL: urls.grpc,
      MODEL: entry.name,
      INPUT: input.name,
      OUTPUT: entry.outputs[0]!.name,
      SHAPE: JSON.stringify(shape),
      TENSOR_BYTES: String(shape.reduce((a, b) => a * b, 1) * 4),
      VUS: String(level),
      DURATION: `${SECONDS}s`,
      WARMUP: `${WARMUP_S}s`,
    };
    const flags = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const [program, pre] =
      runtime === 'k6' ? [k6!, ['run']] : [process.execPath, [join(ROOT, 'bin', 'k6-triton.js'), 'run']];
    const run = await exec(program, [...pre, '-q', ...flags, '--summary-export', summaryPath, script]);
    if (!existsSync(summaryPath)) return { client, points, missing: `run failed (exit ${run.code})` };
    const metrics = JSON.parse(readFileSync(summaryPath, 'utf8')).metrics as Record<
      string,
      Record<string, number>
    >;
    const duration = metrics[`${metric}{scenario:c}`] ?? {};
    const start_ms = metrics['k6_triton_window_start_ms']?.['value'];
    const infer_s = (duration['count'] ?? 0) / SECONDS;
    const cpu =
      start_ms === undefined ? undefined : cpuShare_pct(run.cpu, start_ms, start_ms + SECONDS * 1000);
    points.set(level, {
      infer_s,
      ...(duration['p(50)'] !== undefined ? { p50_ms: duration['p(50)'] } : {}),
      ...(cpu !== undefined && infer_s > 0 ? { cpu_us: ((cpu / 100) * 1e6) / infer_s } : {}),
    });
  }
  return { client, points };
}

/** Node's floor: a client library in a loop, no k6 runtime (raw-clients.ts), one process per level. */
async function raw(kind: 'undici' | 'grpc-js' | 'http2', urls: Urls): Promise<Row> {
  const client = `Node client alone (${kind}, no runtime)`;
  const entry = getModel('mnist');
  const input = entry.inputs[0]!;
  const shape = entry.maxBatchSize > 0 ? [1, ...input.dims] : input.dims;
  const target = kind === 'undici' ? urls.http : urls.grpc;
  const points = new Map<number, Point>();
  for (const level of LEVELS) {
    const run = await exec(process.execPath, [
      ...['--import', 'tsx', join(ROOT, 'bench', 'fidelity', 'raw-clients.ts'), kind, target, entry.name],
      ...[input.name, entry.outputs[0]!.name, JSON.stringify(shape), String(level), String(SECONDS)],
    ]);
    const line = run.out.split('\n').find((l) => l.startsWith('{'));
    if (!line) return { client, points, missing: `run failed (exit ${run.code})` };
    const result = JSON.parse(line) as { requests: number; seconds: number; cpu_s: number };
    points.set(level, {
      infer_s: result.requests / result.seconds,
      cpu_us: (result.cpu_s * 1e6) / result.requests,
    });
  }
  return { client, points };
}

interface Urls {
  http: string;
  grpc: string;
}

/**
 * One pass over the rows --rows picked. Round n starts at the n-th of them, so no row always runs right after
 * perf_analyzer (a level it could not stabilise leaves the machine in its slowest minute); the rows come back
 * in --rows order, perf_analyzer first, as the ratios' base.
 */
async function measureRows(protocol: 'http' | 'grpc', round: number, urls: Urls): Promise<Row[]> {
  const target = protocol === 'http' ? urls.http.replace('http://', '') : urls.grpc;
  const jobs: Array<[string, () => Promise<Row[]>]> = [];
  if (ROWS.has('pa')) {
    jobs.push([
      'pa',
      async () => [
        pa
          ? await perfAnalyzer(pa, model, protocol, target)
          : { client: 'perf_analyzer', points: new Map(), missing: 'absent (set PERF_ANALYZER)' },
      ],
    ]);
  }
  if (ROWS.has('scenario-node'))
    jobs.push(['scenario-node', async () => [await scenario(protocol, 'node', urls)]]);
  if (ROWS.has('scenario-k6'))
    jobs.push(['scenario-k6', async () => [await scenario(protocol, 'k6', urls, k6)]]);
  if (ROWS.has('minimal-node'))
    jobs.push(['minimal-node', async () => [await minimal(protocol, 'node', urls)]]);
  if (ROWS.has('minimal-k6'))
    jobs.push(['minimal-k6', async () => [await minimal(protocol, 'k6', urls, k6)]]);
  if (ROWS.has('lib')) {
    jobs.push([
      'lib',
      async () =>
        protocol === 'http'
          ? [await raw('undici', urls)]
          : [await raw('grpc-js', urls), await raw('http2', urls)],
    ]);
  }
  const shift = (round - 1) % jobs.length;
  const measured = new Map<string, Row[]>();
  for (const [key, run] of [...jobs.slice(shift), ...jobs.slice(0, shift)]) measured.set(key, await run());
  return jobs.flatMap(([key]) => measured.get(key)!);
}

/** Starts the target's server with MNIST; undefined (and a line saying why) when it cannot. */
async function startTarget(target: TargetKey): Promise<LocalServer | undefined> {
  const mnist = getModel('mnist');
  const choice = { modelId: mnist.id, servedModel: mnist.name };
  if (target === 'embedded') return startLocalServer(choice);
  if (!tritonserver) {
    console.log('\ntriton: not run: no tritonserver (set TRITONSERVER)');
    return undefined;
  }
  return startLocalServer({ ...choice, tritonserver });
}

const pa = tool('PERF_ANALYZER', 'perf_analyzer');
const k6 = tool('K6_BIN', 'k6');
const tritonserver = TARGETS.includes('triton') ? tool('TRITONSERVER', 'tritonserver') : undefined;
console.log(`perf_analyzer: ${pa ?? 'absent (set PERF_ANALYZER): ratios cannot be computed'}`);
console.log(`k6: ${k6 ?? 'absent (set K6_BIN): real-k6 rows not run'}`);
if (TARGETS.includes('triton')) console.log(`tritonserver: ${tritonserver ?? 'absent (set TRITONSERVER)'}`);
const model = getModel('mnist').name;
const out: string[] = [];
/** Per protocol, the table each target's rows made (the median one when there are rounds). */
const finalRows = new Map<string, Map<TargetKey, Row[]>>();
const servedBy: string[] = [];
for (const target of TARGETS) {
  const server = await startTarget(target);
  if (!server) continue;
  console.log(`\n${server.description}`);
  servedBy.push(server.description);
  const urls: Urls = { http: server.url, grpc: server.grpcUrl };
  try {
    for (const protocol of PROTOCOLS) {
      const rounds: Row[][] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const rows = await measureRows(protocol, round, urls);
        rounds.push(rows);
        const text = table(protocol, rows, LEVELS);
        const title = `${target}${ROUNDS > 1 ? `, round ${round} of ${ROUNDS}` : ''}\n\n`;
        console.log(`\n${title}${text}`);
        out.push(`${title}${text}`);
      }
      const final = ROUNDS > 1 ? medianRows(rounds, LEVELS) : rounds[0]!;
      if (ROUNDS > 1) {
        const text = table(protocol, final, LEVELS);
        console.log(`\n${target}, median of ${ROUNDS} rounds\n\n${text}`);
        out.push(`${target}, median of ${ROUNDS} rounds\n\n${text}`);
      }
      const byTarget = finalRows.get(protocol) ?? new Map<TargetKey, Row[]>();
      byTarget.set(target, final);
      finalRows.set(protocol, byTarget);
    }
  } finally {
    await server.stop();
  }
}
for (const [protocol, byTarget] of finalRows) {
  if (byTarget.size < 2) continue;
  const text = sideBySide(protocol, byTarget, LEVELS);
  console.log(`\nboth servers\n\n${text}`);
  out.push(`both servers\n\n${text}`);
}
const resultsDir = join(ROOT, 'results', 'fidelity');
mkdirSync(resultsDir, { recursive: true });
const file = join(resultsDir, `${new Date().toISOString().replace(/[:.]/g, '-')}.md`);
writeFileSync(file, `${[...servedBy, ...out].join('\n\n')}\n`);
console.log(
  `\n${LEVELS.length} levels of ${SECONDS} s each after ${WARMUP_S} s of warm-up on ${TARGETS.join(' then ')} (${model}); written to ${file}`,
);
