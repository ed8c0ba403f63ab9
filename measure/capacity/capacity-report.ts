/**
 * The capacity answer in words and tables, and the files of a capacity run. Only reads the search's
 * records; the bench's own writers produce the per-level files beside them.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { LoadMode } from '../../lib/load/shapes.ts';
import type { RunReport } from '../../lib/summary/types.ts';
import { reportMarkdown } from '../../report/markdown.ts';
import { writeResult } from '../../report/not-written.ts';
import { writeRunReport } from '../../report/write.ts';
import { type Confirmation, confirmationSentence } from './confirm.ts';
import type { Projection } from './projection.ts';
import {
  type Answer,
  type GenerativeMeasurement,
  type Measurement,
  misses,
  noiseWords,
  type SearchBudget,
  type Trial,
} from './search.ts';

/** Everything a capacity run found, as capacity.json stores it. */
export interface CapacityRecord {
  model: string;
  mode: LoadMode;
  batch: number;
  budget: SearchBudget;
  answer: Answer;
  /** Every measured level in order, with why it was measured and the bench folder it wrote. */
  path: (Trial & { dir: string })[];
  projection?: Projection;
  /** True when Ctrl-C or a failed level ended the search before it converged. */
  stopped_early?: string;
  /** The --confirm-sweep pass over the answer's range, when it ran. */
  confirmation?: Confirmation;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const num = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });
/** Budgets keep their decimals (a 0.5 ms budget is not 1 ms). */
const budgetMs = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 3 });
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');

function loadWords(mode: LoadMode, level: number, batch: number): string {
  return mode === 'concurrency'
    ? `${num(level)} concurrent request${level === 1 ? '' : 's'} of ${batch}`
    : `${num(level)} requests/s of ${batch}`;
}

/**
 * What limits the capacity as a clause: "limited by <limit_detail>", except when no level was within budget
 * and none within noise, where the detail says how the first level missed ("the first level, 1, missed it").
 */
export function limitClause(answer: Answer): string {
  const firstMissed =
    answer.level === null &&
    answer.noise.band === null &&
    (answer.limit === 'budget' || answer.limit === 'errors');
  return firstMissed ? answer.limit_detail : `limited by ${answer.limit_detail}`;
}

/**
 * The answer in one sentence, e.g. "dlrm: 8 concurrent requests of 4096, 1,054,310 inferences/s, p95 18.7 ms
 * (budget 20 ms), ...; 9-10 within noise of the budget; limited by the latency budget at 11 ...".
 */
export function capacitySentence(record: CapacityRecord): string {
  const { answer, budget } = record;
  const noise = noiseWords(answer.noise);
  if (answer.level === null || !answer.measurement) {
    const why = noise ? `${noise}; ${limitClause(answer)}` : limitClause(answer);
    const tokens = [
      budget.ttft_p95_ms !== undefined ? `, TTFT p95 ${budgetMs(budget.ttft_p95_ms)} ms` : '',
      budget.itl_p95_ms !== undefined ? `, ITL p95 ${budgetMs(budget.itl_p95_ms)} ms` : '',
    ].join('');
    return `${record.model}: no ${record.mode === 'concurrency' ? 'concurrency' : 'request rate'} within budget (p95 ${budgetMs(budget.p95_ms)} ms, p99 ${budgetMs(budget.p99_ms)} ms${tokens}); ${why}`;
  }
  const m = answer.measurement;
  if (m.genai) return generativeSentence(record, answer.level, m, m.genai, noise);
  return (
    `${record.model}: ${loadWords(record.mode, answer.level, record.batch)}, ${int(m.throughput_infer_s)} inferences/s, ` +
    `p95 ${ms(m.p95_ms)} ms (budget ${budgetMs(budget.p95_ms)} ms), p99 ${ms(m.p99_ms)} ms (budget ${budgetMs(budget.p99_ms)} ms); ` +
    (noise ? `${noise}; ` : '') +
    limitClause(answer) +
    // An unstable answer is the last of its attempts; say so rather than let it pass for a steady figure.
    (m.stable === false ? '; the level did not stabilise, the figures are its last measurement' : '')
  );
}

/**
 * A generative model's answer, e.g. "gpt2: 4 concurrent requests, 19.6 requests/s and 1,960 output tokens/s
 * with goodput 19.6 requests/s (100.0% of requests met every SLO: TTFT p95 41.2 ms (budget 150 ms), ...)".
 */
function generativeSentence(
  record: CapacityRecord,
  level: number,
  m: Measurement,
  g: GenerativeMeasurement,
  noise: string | undefined,
): string {
  const { budget } = record;
  const load =
    record.mode === 'concurrency'
      ? `${num(level)} concurrent request${level === 1 ? '' : 's'}`
      : `${num(level)} requests/s asked`;
  const good =
    g.good_fraction === undefined
      ? ''
      : ` with goodput ${num(g.goodput_per_s ?? 0)} requests/s (${(g.good_fraction * 100).toFixed(1)}% of requests met every SLO)`;
  const slo = [
    `TTFT p95 ${ms(g.ttft_p95_ms)} ms${budget.ttft_p95_ms !== undefined ? ` (budget ${budgetMs(budget.ttft_p95_ms)} ms)` : ''}`,
    `ITL p95 ${ms(g.itl_p95_ms)} ms${budget.itl_p95_ms !== undefined ? ` (budget ${budgetMs(budget.itl_p95_ms)} ms)` : ''}`,
    `latency p95 ${ms(m.p95_ms)} ms (budget ${budgetMs(budget.p95_ms)} ms)`,
  ].join(', ');
  return (
    `${record.model}: ${load}, ${num(m.throughput_infer_s)} requests/s and ${int(g.output_tokens_per_s)} output tokens/s${good}; ` +
    `${slo}; ${noise ? `${noise}; ` : ''}${limitClause(record.answer)}` +
    (m.stable === false ? '; the level did not stabilise, the figures are its last measurement' : '')
  );
}

/** The answer as a markdown table row under capacityHeader(). */
export function capacityRow(record: CapacityRecord): string {
  const m = record.answer.measurement;
  const level = record.answer.level === null ? 'none' : num(record.answer.level);
  if (!m) return `| ${record.model} | ${level} | 0 | n/a | n/a | n/a | ${record.answer.limit} |`;
  return `| ${record.model} | ${level} | ${int(m.throughput_infer_s)} | ${ms(m.p95_ms)} | ${ms(m.p99_ms)} | ${(m.error_rate * 100).toFixed(2)}% | ${record.answer.limit} |`;
}

/** The header of capacityRow's table. */
export function capacityHeader(mode: LoadMode): string {
  return [
    `| Model | ${mode === 'concurrency' ? 'Concurrency' : 'Request rate (req/s)'} | Throughput (infer/s) | p95 (ms) | p99 (ms) | Errors | Limit |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
  ].join('\n');
}

/** The planning line for --target-rate. */
export function projectionSentence(p: Projection): string {
  return (
    `${int(p.target_infer_s)} inferences/s needs ${p.servers} server${p.servers === 1 ? '' : 's'} at ${int(p.per_server_infer_s)} inferences/s each ` +
    `(${int(p.total_infer_s)} in all): headroom ${p.headroom_pct.toFixed(0)}%, each server at ${p.utilisation_pct.toFixed(0)}% of its measured capacity` +
    (p.level === undefined ? '' : `; from the stable measurement of ${num(p.level)} within budget`)
  );
}

/** The planning line when no server count is given: nothing within budget, or nothing stable within it. */
export function noProjectionSentence(record: CapacityRecord): string {
  return record.answer.level === null
    ? 'no capacity within budget was measured, so no number of servers meets --target-rate'
    : 'no stable measurement within budget, so no server count is given (an unstable level may be off by its spread); measure longer windows (--step-duration) or on a quieter machine';
}

function verdict(m: Measurement, budget: SearchBudget): string {
  const missed = misses(m, budget);
  return missed.length === 0 ? 'within budget' : `**missed ${missed.join(', ')}**`;
}

/** The start of a measurement's console line; measurementText ends it once the level is measured. */
export function trialHead(n: number, level: number, purpose: string): string {
  return `capacity #${n} ${num(level)} (${purpose}): `;
}

/** One line per measured level for the console: the level, its numbers and the verdict. */
export function trialLine(n: number, trial: Trial, budget: SearchBudget): string {
  return `${trialHead(n, trial.measurement.level, trial.purpose)}${measurementText(trial.measurement, budget)}`;
}

/** Whether a level held steady, in words: "stable", "unstable after 3 passes"; empty when not judged. */
function stabilityWords(m: Measurement): string {
  if (m.stable === undefined) return '';
  const passes = m.passes !== undefined && m.passes > 1 ? ` after ${m.passes} passes` : '';
  return `, ${m.stable ? 'stable' : 'unstable'}${passes}`;
}

/** A measured level's figures and verdict, e.g. "1,089 infer/s, p95 2.5 ms, ... → within budget". */
export function measurementText(m: Measurement, budget: SearchBudget): string {
  const g = m.genai;
  const tokens = g
    ? `${int(g.output_tokens_per_s)} output tokens/s, TTFT p95 ${ms(g.ttft_p95_ms)} ms, ITL p95 ${ms(g.itl_p95_ms)} ms, ` +
      (g.good_fraction === undefined ? '' : `${(g.good_fraction * 100).toFixed(1)}% good, `)
    : '';
  return (
    `${int(m.throughput_infer_s)} infer/s, ${tokens}p95 ${ms(m.p95_ms)} ms, ` +
    `p99 ${ms(m.p99_ms)} ms, errors ${(m.error_rate * 100).toFixed(2)}%` +
    `${stabilityWords(m)}${m.generator_bound ? ', generator bound' : ''} → ${verdict(m, budget).replace(/\*/g, '')}`
  );
}

/** The search path as a markdown table: each measured level, why, what it showed and the verdict. */
export function pathTable(record: CapacityRecord): string {
  const rows = record.path.map((t, i) => {
    const m = t.measurement;
    const stable = m.stable === undefined ? 'n/a' : m.stable ? 'yes' : 'no';
    return `| ${i + 1} | ${num(m.level)} | ${t.purpose}: ${t.reason} | ${int(m.throughput_infer_s)} | ${ms(m.p95_ms)} | ${ms(m.p99_ms)} | ${(m.error_rate * 100).toFixed(2)}% | ${stable} | ${m.generator_bound ? 'bound' : 'ok'} | ${verdict(m, record.budget)} |`;
  });
  return [
    '| # | Level | Why measured | Throughput (infer/s) | p95 (ms) | p99 (ms) | Errors | Stable | Generator | Verdict |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** The capacity part of report.md. */
export function capacityMarkdown(record: CapacityRecord): string {
  return [
    `# ${record.model}: capacity`,
    '',
    capacitySentence(record),
    '',
    capacityHeader(record.mode),
    capacityRow(record),
    '',
    ...(record.projection ? [`Planning: ${projectionSentence(record.projection)}.`, ''] : []),
    ...(record.stopped_early ? [`Stopped early: ${record.stopped_early}.`, ''] : []),
    `## Search path (${record.path.length} measured levels)`,
    '',
    pathTable(record),
    '',
    ...(record.confirmation ? confirmationMarkdown(record.confirmation, record.budget) : []),
  ].join('\n');
}

/** The confirmation pass's section of report.md: the verdict and each level it measured. */
function confirmationMarkdown(c: Confirmation, budget: SearchBudget): string[] {
  const rows = c.measured.map(({ measurement: m }) => {
    const stable = m.stable === undefined ? 'n/a' : m.stable ? 'yes' : 'no';
    return `| ${num(m.level)} | ${int(m.throughput_infer_s)} | ${ms(m.p95_ms)} | ${ms(m.p99_ms)} | ${(m.error_rate * 100).toFixed(2)}% | ${stable} | ${m.generator_bound ? 'bound' : 'ok'} | ${verdict(m, budget)} |`;
  });
  return [
    `## Confirmation (${c.kind === 'linear' ? 'linear bench' : 'levels around the answer'}, ${c.levels.length} levels)`,
    '',
    `${confirmationSentence(c, budget)}.`,
    '',
    '| Level | Throughput (infer/s) | p95 (ms) | p99 (ms) | Errors | Stable | Generator | Verdict |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    ...(c.dir ? [`Bench folder: \`${c.dir}\`.`, ''] : []),
  ];
}

/**
 * Writes a capacity run like a bench run (summary.json, perf_analyzer.csv, plots of every measured level)
 * plus capacity.json, with the capacity answer and search path at the top of report.md.
 */
export async function writeCapacity(
  dir: string,
  record: CapacityRecord,
  report: RunReport,
): Promise<{ files: string[]; errors: string[] }> {
  const written = await writeRunReport(dir, report, { capacity: record });
  // A capacity search measures levels outside the budget on purpose: a JUnit verdict on them would fail CI.
  await rm(join(dir, 'junit.xml'), { force: true });
  const errors = [...written.errors];
  for (const [name, text] of [
    ['capacity.json', `${JSON.stringify(record, null, 2)}\n`],
    ['report.md', `${capacityMarkdown(record)}\n${report.results.length > 0 ? reportMarkdown(report) : ''}`],
  ] as const) {
    const error = await writeResult(join(dir, name), text);
    if (error) errors.push(error);
  }
  return { files: [...Object.keys(written.files).filter((f) => f !== 'junit.xml'), 'capacity.json'], errors };
}
