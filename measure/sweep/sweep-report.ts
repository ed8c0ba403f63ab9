/**
 * The sweep's outputs: the ranked table (console and report.md), the winner's config.pbtxt snippet, and
 * sweep.json. Only consumes the record; measuring never prints through here.
 */
import { join } from 'node:path';
import { writeResult } from '../../report/not-written.ts';
import { type ParetoPoint, paretoFront, renderPareto } from '../../report/pareto.ts';
import { misses, type SearchBudget } from '../capacity/search.ts';
import { type SweepConfig, configLabel } from './grid.ts';
import type { AppliedConfig } from './override.ts';
import { pbtxtSnippet } from './pbtxt.ts';
import type { RankedConfig } from './rank.ts';

/** Everything a sweep run found, as written to sweep.json. */
export interface SweepRecord {
  model: string;
  served_model: string;
  /** 'embedded' or 'tritonserver' (a server the sweep started), or the --url the configs were applied to. */
  target: string;
  batch: number;
  budget: SearchBudget;
  concurrency: number[];
  /** The config as the server held it before the sweep (the swept fields). */
  original: AppliedConfig;
  /** Whether the original config was loaded back at the end. */
  restored: boolean;
  ranking: RankedConfig[];
  /** Each config as the server reported it after its load, in grid order. */
  applied: { config: SweepConfig; applied?: AppliedConfig; dir?: string }[];
  stopped_early?: string;
}

const fmt = (n: number, digits = 1) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits }) : '-';

function cell(value: number | undefined): string {
  return value === undefined ? '-' : String(value);
}

/** The ranked table in Markdown (also readable on a console). */
export function sweepTable(record: SweepRecord): string {
  const head =
    '| Rank | Instances | Max queue delay (us) | Preferred batch | Max batch | Best concurrency | Throughput (infer/s) | p95 (ms) | p99 (ms) | Errors | Within budget |';
  const rows = record.ranking.map((r) => {
    const c = r.config;
    const within = r.verdicts.filter((v) => v.misses.length === 0).map((v) => v.level);
    const b = r.best;
    return [
      r.rank ?? '-',
      c.instances,
      c.max_queue_delay_us,
      cell(c.preferred_batch),
      cell(c.max_batch_size),
      b ? b.level : '-',
      b ? fmt(b.throughput_infer_s, 0) : '-',
      b ? fmt(b.p95_ms) : '-',
      b ? fmt(b.p99_ms) : '-',
      b ? `${(b.error_rate * 100).toFixed(2)}%` : '-',
      r.error
        ? `failed: ${r.error}`
        : `${within.length}/${r.levels.length} levels${within.length ? ` (${within.join(', ')})` : ''}`,
    ].join(' | ');
  });
  return [head, `|${' --- |'.repeat(11)}`, ...rows.map((row) => `| ${row} |`)].join('\n');
}

/** The winner in one sentence, or why there is none. */
export function winnerSentence(record: SweepRecord): string {
  const w = record.ranking[0];
  const budget = `budget p95 ${record.budget.p95_ms} ms, p99 ${record.budget.p99_ms} ms`;
  if (!w?.best) return `${record.model}: no configuration had a level within the budget (${budget})`;
  return `${record.model}: best ${configLabel(w.config)}: ${fmt(w.best.throughput_infer_s, 0)} inferences/s at concurrency ${w.best.level}, p95 ${fmt(w.best.p95_ms)} ms, p99 ${fmt(w.best.p99_ms)} ms (${budget})`;
}

/** The winner's config.pbtxt snippet, or undefined when no config met the budget. */
export function winnerSnippet(record: SweepRecord): string | undefined {
  const w = record.ranking[0];
  return w?.best ? pbtxtSnippet(w.config, record.original.kind) : undefined;
}

/** Every measured (config, level) of the sweep as a point of the Pareto plot, in ranking order. */
export function sweepPoints(record: SweepRecord): ParetoPoint[] {
  return record.ranking.flatMap((r) =>
    r.levels.map((m) => ({
      label: configLabel(r.config),
      level: m.level,
      throughput_infer_s: m.throughput_infer_s,
      p95_ms: m.p95_ms,
    })),
  );
}

/** The front as a table: the configs and levels no other measured point beats on both throughput and p95. */
export function paretoTable(record: SweepRecord): string {
  const levels = record.ranking.flatMap((r) => r.levels.map((m) => ({ config: r.config, m })));
  const rows = paretoFront(sweepPoints(record)).map((i) => {
    const { config, m } = levels[i]!;
    const missed = misses(m, record.budget);
    return `| ${configLabel(config)} | ${m.level} | ${fmt(m.throughput_infer_s, 0)} | ${fmt(m.p95_ms, 2)} | ${missed.length === 0 ? 'yes' : `no (${missed.join(', ')})`} |`;
  });
  return [
    '| Configuration | Concurrency | Throughput (infer/s) | p95 (ms) | Within budget |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** report.md: the winner, its snippet, the table and what was restored. */
export function sweepMarkdown(record: SweepRecord): string {
  const snippet = winnerSnippet(record);
  const o = record.original;
  return [
    `# Sweep: ${record.model}`,
    '',
    winnerSentence(record),
    '',
    ...(snippet ? ['```protobuf', snippet, '```', ''] : []),
    sweepTable(record),
    '',
    '## Pareto front (throughput vs p95)',
    '',
    // The plot is written beside report.md; a failed render leaves the table, which says the same.
    '![Throughput against p95 per configuration and level, the Pareto front marked](pareto.svg)',
    '',
    paretoTable(record),
    '',
    `Target: ${record.target}; batch ${record.batch}; concurrency ${record.concurrency.join(', ')}.`,
    `Original config: ${o.instances} instances, max_queue_delay_microseconds ${o.max_queue_delay_us ?? 'none'}, ` +
      `max_batch_size ${o.max_batch_size}; ${record.restored ? 'restored at the end' : 'NOT restored: reload it by hand'}.`,
    ...(record.stopped_early ? ['', `Stopped early: ${record.stopped_early}.`] : []),
    '',
  ].join('\n');
}

/**
 * Writes sweep.json, report.md and pareto.svg into dir, each whole; returns the files that could not be
 * written, one line each (also said at the end of the output, report/not-written.ts).
 */
export async function writeSweep(dir: string, record: SweepRecord): Promise<string[]> {
  const errors: string[] = [];
  const files: [string, () => string | Promise<string>][] = [
    ['sweep.json', () => `${JSON.stringify(record, null, 2)}\n`],
    ['report.md', () => sweepMarkdown(record)],
    [
      'pareto.svg',
      () => renderPareto(sweepPoints(record), { title: record.model, p95_budget_ms: record.budget.p95_ms }),
    ],
  ];
  for (const [name, render] of files) {
    const error = await writeResult(join(dir, name), render);
    if (error) errors.push(error);
  }
  return errors;
}
