/**
 * `bench gpt2` end to end: the generative scenario streams to the embedded server's simulated gpt2 over gRPC
 * ModelStreamInfer under the Node runtime and, when present, real k6, and over SSE (generate_stream, OpenAI chat
 * and completions through k6/x/sse) under the Node runtime; the run's summary holds TTFT, ITL, latency and token
 * throughput per level. Real k6 without the SSE extension refuses an SSE protocol with one line. The checks are the metrics' arithmetic, not timing: every request
 * gets exactly OUTPUT_TOKENS tokens, so per level output tokens = requests x OSL, and since latency = TTFT +
 * (OSL - 1) x ITL holds per request it holds for the averages.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rescoreLevels } from '../../../lib/genai/rescore.ts';
import type { LevelResult } from '../../../lib/summary/types.ts';
import { readRecords } from '../../../measure/core/genai-records.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { type CliRun, resultsDir, runCli, runFolder } from './run-cli.ts';
import { EXIT } from '../../../measure/core/exit-codes.ts';

const k6 = referenceTool('k6', 'K6_BIN');
const OSL = 12;
const LEVELS = [1, 3];

async function benchGpt2(
  runtime: 'node' | 'k6',
  env: Record<string, string> = {},
  load: string[] = ['--concurrency', LEVELS.join(',')],
) {
  const results = resultsDir();
  const run = await runCli(
    [
      ...['bench', 'gpt2', '--runtime', runtime, ...load],
      ...['--step-duration', '2s', '--warmup', '1s', '--results-dir', results],
    ],
    { INPUT_TOKENS: '20', OUTPUT_TOKENS: String(OSL), TTFT_P95_MS: '60000', ITL_P95_MS: '60000', ...env },
  );
  return { run, results };
}

/** records.jsonl, scored again with the suite's defaults: the same requests, tokens and TTFT as the run's summary. */
async function checkRecords(dir: string, levels: readonly LevelResult[]): Promise<void> {
  const rescored = rescoreLevels(await readRecords(join(dir, 'records.jsonl')));
  expect(rescored.map((l) => l.level)).toEqual(levels.map((l) => l.name));
  for (const [i, { metrics: m }] of rescored.entries()) {
    const g = levels[i]!.genai!;
    expect(m.requests, levels[i]!.name).toBe(levels[i]!.requests);
    expect(m.completed * OSL).toBe(g.output_tokens);
    expect(m.ttft_ms!.avg).toBeCloseTo(g.ttft_ms.avg, 6);
    expect(m.latency_ms!.avg).toBeCloseTo(g.latency_ms.avg, 6);
  }
  // The raw sample file the records were read from is not left behind.
  expect(existsSync(join(dir, 'k6-samples.json'))).toBe(false);
}

async function checkLevels(results: string, planned: readonly number[] = LEVELS): Promise<void> {
  const dir = runFolder(results, 'gpt2');
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  const levels = summary.report.results as LevelResult[];
  expect(levels.map((l) => l.level)).toEqual(planned);
  for (const level of levels) {
    const g = level.genai!;
    expect(level.requests, level.name).toBeGreaterThan(0);
    expect(level.errors, level.name).toBe(0);
    expect(g.output_tokens, level.name).toBe(level.requests * OSL);
    expect(g.output_tokens_per_s).toBeCloseTo(g.requests_per_s * OSL, 9);
    expect(g.ttft_ms.p50).toBeGreaterThan(0);
    expect(g.ttft_ms.p99).toBeGreaterThanOrEqual(g.ttft_ms.p95);
    expect(g.itl_ms.p99).toBeGreaterThanOrEqual(g.itl_ms.p50);
    // Averages of a per-request identity with one OSL: exact up to floating point.
    expect(g.latency_ms.avg).toBeCloseTo(g.ttft_ms.avg + (OSL - 1) * g.itl_ms.avg, 6);
    // genai-perf's CSV of the level: every request had OSL output and 20 input tokens; TTFT's p25 <= p50 <= p75.
    const csv = readFileSync(join(dir, `profile_export_genai_perf-${level.name}.csv`), 'utf8').split('\r\n');
    expect(csv[0]).toBe('Metric,avg,min,max,p99,p95,p90,p75,p50,p25');
    expect(csv[4]).toBe(`Output Sequence Length,${Array(9).fill(`${OSL}.00`).join(',')}`);
    expect(csv[5]).toBe(`Input Sequence Length,${Array(9).fill('20.00').join(',')}`);
    const ttft = g.genai_perf!.ttft_ms;
    expect(ttft.p25).toBeGreaterThan(0);
    expect(ttft.p25).toBeLessThanOrEqual(ttft.p50);
    expect(ttft.p50).toBeLessThanOrEqual(ttft.p75);
    expect(csv[8]).toBe(`Output Token Throughput (per sec),${g.output_tokens_per_s.toFixed(2)}`);
    // genai-perf's JSON of the level: the same figures under genai-perf's names, p1 from the run's trends.
    const json = JSON.parse(readFileSync(join(dir, `profile_export_genai_perf-${level.name}.json`), 'utf8'));
    expect(json.output_token_throughput).toEqual({ unit: 'tokens/sec', avg: g.output_tokens_per_s });
    expect(json.output_sequence_length).toMatchObject({ unit: 'tokens', p1: OSL, avg: OSL, p99: OSL });
    expect(json.time_to_first_token.p1).toBeLessThanOrEqual(json.time_to_first_token.p50);
    expect(json.input_config.perf_analyzer.stimulus).toEqual({ concurrency: level.level });
  }
  await checkRecords(dir, levels);
  const report = readFileSync(join(dir, 'report.md'), 'utf8');
  expect(report).toContain('TTFT p50 / p95 / p99 (ms)');
  expect(report).toContain('Output tokens/s');
}

/** A level's ISL and OSL as the summary holds them, and where they came from. */
function tokenFigures(results: string) {
  const summary = JSON.parse(readFileSync(join(runFolder(results, 'gpt2'), 'summary.json'), 'utf8'));
  return (summary.report.results as LevelResult[]).map((level) => {
    const g = level.genai!;
    expect(level.requests, level.name).toBeGreaterThan(0);
    expect(level.errors, level.name).toBe(0);
    return { level, isl: g.genai_perf!.isl, osl: g.genai_perf!.osl, asked: g.requested_osl!, g };
  });
}

/** A JSONL dataset: given prompts (24 gpt2 words) and made ones of 24 tokens, each asking for 6 output tokens. */
function datasetFile(trace: boolean): string {
  const words = Array.from({ length: 24 }, (_, i) => ['kalo', 'mi', 'zzz', 'kaka'][i % 4]).join(' ');
  const lines = [0, 1, 2, 3, 4, 5].map((i) => ({
    ...(i % 2 === 0 ? { text: words } : { input_length: 24 }),
    output_length: 6,
    ...(trace ? { timestamp: 5000 + i * 150 } : {}),
  }));
  const file = join(mkdtempSync(join(tmpdir(), 'gpt2-dataset-')), 'prompts.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
  return file;
}

describe('bench gpt2 with a prompt workload', () => {
  const c2 = ['--concurrency', '2', '--step-duration', '2s'];
  const synthetic = [
    ...c2,
    '--input-tokens',
    '20:30',
    '--output-tokens',
    '8,2',
    '--prefix-tokens',
    '10',
    '--prompts',
    '7',
  ];

  async function benchWorkload(runtime: 'node' | 'k6', args: string[], env: Record<string, string> = {}) {
    const results = resultsDir();
    const run = await runCli(
      [...['bench', 'gpt2', '--runtime', runtime, '--warmup', '1s'], ...['--results-dir', results, ...args]],
      { TTFT_P95_MS: '60000', ITL_P95_MS: '60000', ...env },
    );
    return { run, results };
  }

  function checkSynthetic(results: string, stdout: string) {
    for (const { level, isl, osl, asked, g } of tokenFigures(results)) {
      // Every prompt tokenised to its drawn length in 20..30; every request produced what it asked for.
      expect([isl.min >= 20, isl.max <= 30], level.name).toEqual([true, true]);
      expect(osl, level.name).toEqual(asked);
      expect(g.osl_mismatches).toBe(0);
      expect(g.output_tokens).toBe(Math.round(osl.avg * level.requests));
      expect(g.token_sources).toEqual({ input: 'tokenizer', output: 'estimate' });
    }
    expect(stdout).toContain('token counts: ISL from tokenizer, OSL from estimate');
    expect(stdout).not.toContain('warning:');
  }

  it('synthetic prompts (ISL range, OSL mean/stddev, shared prefix) under the Node runtime', async () => {
    const { run, results } = await benchWorkload('node', synthetic);
    expect(run.code, run.stderr).toBe(0);
    checkSynthetic(results, run.stdout);
  }, 120_000);

  it('a dataset file: ISL and OSL are the lines asked', async () => {
    const { run, results } = await benchWorkload('node', [...c2, '--dataset', datasetFile(false)]);
    expect(run.code, run.stderr).toBe(0);
    for (const { isl, osl } of tokenFigures(results)) {
      expect([isl.min, isl.max, osl.min, osl.max]).toEqual([24, 24, 6, 6]);
    }
  }, 120_000);

  it('a trace replays its six requests at their times, one level', async () => {
    // No warm-up: a trace needs none, and with a 1 s one a loaded machine's level counted 10 or 12 requests
    // for the trace's 6 sends (the warm-up's streams are the run's only other requests).
    const { run, results } = await benchWorkload('node', ['--dataset', datasetFile(true), '--warmup', '0s']);
    // A trace is one request-rate level, which thresholds/gpt2.json (c1, c2, c4) does not judge.
    expectUnjudged(run);
    const levels = tokenFigures(results);
    expect(levels).toHaveLength(1);
    expect(levels[0]!.g.schedule?.sends).toBe(6);
    expect(levels[0]!.level.requests).toBe(6);
    expect([levels[0]!.isl.max, levels[0]!.osl.max]).toEqual([24, 6]);
  }, 120_000);

  it('a bad dataset line: one line naming it, non-zero exit', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gpt2-dataset-')), 'bad.jsonl');
    writeFileSync(file, '{"text": "kalo"}\nnot json\n');
    const { run } = await benchWorkload('node', [...c2, '--dataset', file]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`dataset ${file} line 2: not JSON;`);
  }, 120_000);

  it.skipIf(!k6.path)(
    `synthetic prompts under real k6 ${k6.skipReason}`,
    async () => {
      const { run, results } = await benchWorkload('k6', synthetic, { K6_BIN: k6.path! });
      expect(run.code, run.stderr).toBe(0);
      checkSynthetic(results, run.stdout);
    },
    120_000,
  );
});

describe('bench gpt2 (generative, gRPC stream)', () => {
  it('measures TTFT, ITL and tokens per level under the Node runtime', async () => {
    const { run, results } = await benchGpt2('node');
    expect(run.code, run.stderr).toBe(0);
    expectNoMiss(run.stdout);
    await checkLevels(results);
  }, 120_000);

  it('exits 99 when the TTFT budget is missed', async () => {
    const { run } = await benchGpt2('node', { TTFT_P95_MS: '0.001' }, ['--concurrency', '1']);
    expect(run.code, run.stderr).toBe(99);
    expect(run.stdout).toMatch(/genai_ttft .*c1/);
  }, 120_000);

  it.skipIf(!k6.path)(
    `measures the same under real k6 ${k6.skipReason}`,
    async () => {
      // One level: the Node runtime's test above walks two; what real k6 proves is its own stream reading.
      const { run, results } = await benchGpt2('k6', { K6_BIN: k6.path! }, ['--concurrency', '2']);
      expect(run.code, run.stderr).toBe(0);
      await checkLevels(results, [2]);
    },
    180_000,
  );
});

/**
 * The closing verdict of a run that missed nothing: all met, or inconclusive (allowed by run-cli.ts: a few
 * seconds of streams carry no p95).
 */
function expectNoMiss(stdout: string): void {
  expect(stdout).toMatch(/^(all budgets met|verdict: inconclusive \(\d+ budget\(s\) inconclusive\))$/m);
}

/** A run at request-rate levels, which thresholds/gpt2.json (c1, c2, c4) does not judge: not measured, 96. */
function expectUnjudged(run: CliRun): void {
  expect(run.code, run.stderr).toBe(EXIT.NOT_MEASURED);
  expect(run.stdout).toMatch(/^verdict: not measured \(no budget judged a measured level\)$/m);
}

/** The run's level results from summary.json. */
function levelsOf(results: string): LevelResult[] {
  const dir = runFolder(results, 'gpt2');
  return JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).report.results as LevelResult[];
}

/** An open-loop level's own checks: tokens per request, a send lag per send, scheduled latency at least send's. */
function checkOpenLevel(level: LevelResult): void {
  const g = level.genai!;
  expect(level.mode).toBe('request-rate');
  expect(level.errors, level.name).toBe(0);
  expect(g.output_tokens, level.name).toBe(level.requests * OSL);
  const s = g.schedule!;
  expect(s.sends).toBeGreaterThanOrEqual(level.requests);
  expect(s.send_lag_ms.max).toBeGreaterThanOrEqual(s.send_lag_ms.p50);
  // Each request's scheduled latency is its send lag plus its latency; the lag is never negative by much.
  expect(s.send_lag_ms.min).toBeGreaterThan(-5);
  expect(level.scheduled_latency_us!.max).toBeGreaterThanOrEqual(level.latency_us.max - 5_000);
}

describe('bench gpt2 open loop (--request-rate)', () => {
  it('sends Poisson arrivals on schedule under the Node runtime and reports the lag per level', async () => {
    const { run, results } = await benchGpt2('node', {}, ['--request-rate', '2,4', '--arrivals', 'poisson']);
    expectUnjudged(run);
    const levels = levelsOf(results);
    expect(levels.map((l) => l.name)).toEqual(['r2', 'r4']);
    for (const level of levels) checkOpenLevel(level);
    expect(run.stdout).toMatch(/^r2: (schedule held|could not keep up)/m);
    expect(run.stdout).toMatch(/^r4: (schedule held|could not keep up)/m);
    const report = readFileSync(join(runFolder(results, 'gpt2'), 'report.md'), 'utf8');
    expect(report).toContain('## Open loop: latency from the scheduled start');
    expect(report).toMatch(/^- r4: (schedule held|could not keep up)/m);
  }, 120_000);

  it('says it could not keep up when --max-vus leaves one VU for streams longer than the gap', async () => {
    // 100 tokens take the simulated gpt2 at least 100 x 1.86 ms, four times the 50 ms between sends at 20/s.
    const { run, results } = await benchGpt2('node', { OUTPUT_TOKENS: '100' }, [
      ...['--request-rate', '20', '--max-vus', '1'],
    ]);
    expectUnjudged(run);
    const [level] = levelsOf(results);
    expect(level!.genai!.schedule).toMatchObject({ vus: 1, capped: true });
    expect(level!.genai!.schedule!.late_sends).toBeGreaterThan(0);
    expect(run.stdout).toMatch(
      /^r20: could not keep up: \d+ of \d+ sends left over 10 ms late.*its one VU \(--max-vus\) busy streaming/m,
    );
  }, 120_000);

  it.skipIf(!k6.path)(
    `sends gamma arrivals under real k6 ${k6.skipReason}`,
    async () => {
      const { run, results } = await benchGpt2('k6', { K6_BIN: k6.path! }, [
        ...['--request-rate', '4', '--arrivals', 'gamma:0.5'],
      ]);
      expectUnjudged(run);
      const [level] = levelsOf(results);
      checkOpenLevel(level!);
      expect(run.stdout).toMatch(/^r4: (schedule held|could not keep up)/m);
    },
    120_000,
  );
});

describe('bench gpt2 over SSE (k6/x/sse)', () => {
  // One level each: a run of several levels is the gRPC test's; these check each protocol's stream reading.
  for (const protocol of ['generate', 'openai-chat', 'openai-completions']) {
    it(`--protocol ${protocol}: TTFT, ITL and tokens under the Node runtime`, async () => {
      const { run, results } = await benchGpt2('node', {}, ['--concurrency', '2', '--protocol', protocol]);
      expect(run.code, run.stderr).toBe(0);
      expectNoMiss(run.stdout);
      await checkLevels(results, [2]);
    }, 120_000);
  }

  it.skipIf(!k6.path)(
    `real k6 without the extension: one line naming k6/x/sse and how to get it, exit 107 ${k6.skipReason}`,
    async () => {
      const { run } = await benchGpt2('k6', { K6_BIN: k6.path! }, [
        '--concurrency',
        '1',
        '--protocol',
        'generate',
      ]);
      expect(run.code, run.stderr).toBe(107);
      const lines = `${run.stdout}\n${run.stderr}`.split('\n').filter((l) => l.includes('k6/x/sse'));
      expect(lines, run.stderr).toHaveLength(1);
      expect(lines[0]).toContain(
        'PROTOCOL=generate streams over SSE with the k6 extension k6/x/sse, which this k6 binary lacks; build one with it (xk6 build --with github.com/phymbert/xk6-sse)',
      );
    },
    120_000,
  );
});
