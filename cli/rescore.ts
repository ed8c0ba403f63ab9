/**
 * `k6-triton rescore <run>`: a generative run's raw per-request records (records.jsonl) scored again, with the
 * first-token rule, SLOs and window chosen now (docs/generative-metrics.md#re-scoring-a-run-offline), as a
 * Markdown table per level on stdout, or JSON with --json.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { FirstToken, Slo } from '../lib/genai/metrics.ts';
import { type RescoredLevel, rescoreLevels } from '../lib/genai/rescore.ts';
import { readRecords, RECORDS_FILE } from '../measure/core/genai-records.ts';
import { table } from '../report/markdown.ts';

/** A flag's value as a number > 0, or one line naming the flag. */
function positive(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!(n > 0)) throw new Error(`${flag} "${raw}" is invalid: expected a number > 0, e.g. ${flag} 200`);
  return n;
}

/** The records file a path names: itself, or records.jsonl in a run folder. */
function recordsPath(path: string): string {
  const file = existsSync(path) && statSync(path).isDirectory() ? join(path, RECORDS_FILE) : path;
  if (!existsSync(file))
    throw new Error(
      `${file} not found; give a generative run's folder (results/<model>/<run-id>) or its ${RECORDS_FILE}`,
    );
  return file;
}

/** The rescored levels as Markdown: throughputs, goodput when SLOs were given, and the distributions. */
export function rescoreMarkdown(levels: readonly RescoredLevel[], withGoodput: boolean): string {
  const ms = (n: number | undefined) => (n === undefined ? 'n/a' : n.toFixed(2));
  const header = [
    'Level',
    'Requests',
    'Errors',
    'Window (s)',
    'Requests/s',
    'Output tokens/s',
    ...(withGoodput ? ['Goodput (req/s)'] : []),
    'TTFT p50 / p95 / p99 (ms)',
    'ITL p50 / p95 / p99 (ms)',
    'Latency avg / p95 / p99 (ms)',
    'OSL avg',
  ];
  const rows = levels.map(({ level, metrics: m }) => [
    level,
    String(m.requests),
    String(m.errors),
    m.window_s.toFixed(3),
    m.requestThroughput.toFixed(2),
    m.outputTokenThroughput.toFixed(1),
    ...(withGoodput ? [(m.goodput ?? 0).toFixed(2)] : []),
    `${ms(m.ttft_ms?.p50)} / ${ms(m.ttft_ms?.p95)} / ${ms(m.ttft_ms?.p99)}`,
    `${ms(m.itl_ms?.p50)} / ${ms(m.itl_ms?.p95)} / ${ms(m.itl_ms?.p99)}`,
    `${ms(m.latency_ms?.avg)} / ${ms(m.latency_ms?.p95)} / ${ms(m.latency_ms?.p99)}`,
    ms(m.outputTokens?.avg),
  ]);
  return `${table(header, rows)}\n`;
}

/** Adds the `rescore` subcommand to the program. */
export function registerRescore(program: Command): void {
  program
    .command('rescore')
    .description("Score a generative run's raw per-request records again, with other metric choices")
    .argument('<run>', `a generative run's folder (results/<model>/<run-id>) or its ${RECORDS_FILE}`)
    .option(
      '--first-token <rule>',
      "'non-empty' (genai-perf) or 'any' (vLLM: a role-only chunk counts)",
      'non-empty',
    )
    .option('--slo-ttft-ms <ms>', 'goodput: TTFT at most this')
    .option('--slo-itl-ms <ms>', 'goodput: ITL at most this')
    .option('--slo-latency-ms <ms>', 'goodput: end-to-end latency at most this')
    .option('--slo-tokens-per-user <n>', 'goodput: at least this many output tokens/s per request')
    .option('--json', 'print the full metrics (every distribution) as JSON')
    .action(async (run: string, flags: Record<string, string | boolean | undefined>) => {
      const rule = String(flags.firstToken);
      if (rule !== 'non-empty' && rule !== 'any')
        throw new Error(`--first-token "${rule}" is invalid: use non-empty (genai-perf) or any (vLLM)`);
      const slo: Slo = {};
      const bounds = {
        ttft_ms: positive('--slo-ttft-ms', flags.sloTtftMs as string | undefined),
        itl_ms: positive('--slo-itl-ms', flags.sloItlMs as string | undefined),
        latency_ms: positive('--slo-latency-ms', flags.sloLatencyMs as string | undefined),
        minTokensPerUser: positive('--slo-tokens-per-user', flags.sloTokensPerUser as string | undefined),
      };
      for (const [key, value] of Object.entries(bounds))
        if (value !== undefined) slo[key as keyof Slo] = value;
      const withGoodput = Object.keys(slo).length > 0;
      const path = recordsPath(run);
      const records = await readRecords(path);
      if (records.length === 0) throw new Error(`${path} holds no records; the run measured no request`);
      const levels = rescoreLevels(records, {
        firstToken: rule as FirstToken,
        ...(withGoodput ? { slo } : {}),
      });
      process.stdout.write(
        flags.json ? `${JSON.stringify(levels, null, 2)}\n` : rescoreMarkdown(levels, withGoodput),
      );
    });
}
