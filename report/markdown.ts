/**
 * report.md: the seeds' table (level, throughput, avg/p90/p95/p99 latency in ms), the latency breakdown
 * that seed 002 draws (client, network, server queue and compute) and the budget verdicts. Pure.
 */
import { kneeLine } from '../lib/genai/knee.ts';
import { latencyBreakdownApplies } from './charts.ts';
import { tokenLines } from '../lib/genai/level-summary.ts';
import { scheduleLines } from '../lib/genai/open-loop.ts';
import { failureLines, levelsWithFigures } from '../lib/summary/failure.ts';
import { formatCount, formatG, msFixed } from '../lib/summary/format.ts';
import { generatorWarnings } from '../lib/summary/generator.ts';
import { behindSchedule } from '../lib/summary/open-loop.ts';
import { partialNote } from '../lib/summary/partial.ts';
import { formatMeasured, STATE_WORDS, splitMetricKey } from '../lib/summary/verdicts.ts';
import { SAMPLES_BEYOND_PERCENTILE, stateOf, verdictOf } from '../lib/summary/judge.ts';
import type { BudgetState, BudgetVerdict, LevelResult, RunReport } from '../lib/summary/types.ts';
import { engineMetricsTable, errorBarSection, prefillTable, slicesTable } from './genai-tables.ts';

import { table } from './md-table.ts';

export { table };

function stableCell(result: LevelResult): string {
  if (result.stable === undefined) return 'not judged';
  const spread = result.stability_spread_pct;
  const detail = spread === null || spread === undefined ? '' : ` (±${spread.toFixed(1)}%)`;
  // A level measured again until stable says after how many passes (perf_analyzer's trials).
  const passes = result.trials && result.trials > 1 ? `, pass ${result.trials}` : '';
  return result.stable ? `yes${detail}${passes}` : `**unstable**${detail}${passes}`;
}

/** The seeds' throughput/latency table, one row per level in run order. */
export function levelTable(results: readonly LevelResult[]): string {
  const open = results.some((result) => result.mode === 'request-rate');
  const header = [
    open ? 'Request rate (req/s)' : 'Concurrency',
    'Throughput (infer/s)',
    'Avg latency (ms)',
    'p90 latency (ms)',
    'p95 latency (ms)',
    'p99 latency (ms)',
    'Errors',
    ...(open ? ['Dropped iterations'] : []),
    'Stable',
  ];
  const rows = results.map((result) => [
    formatG(result.level),
    result.throughput_infer_s.toFixed(1),
    msFixed(result.latency_us.avg),
    msFixed(result.latency_us.p90),
    msFixed(result.latency_us.p95),
    msFixed(result.latency_us.p99),
    String(result.errors),
    ...(open ? [String(result.dropped_iterations)] : []),
    stableCell(result),
  ]);
  return table(header, rows);
}

/**
 * A generative model's levels (lib/genai/level-summary.ts): requests/s, output tokens/s, and TTFT, ITL and
 * end-to-end latency percentiles in ms (docs/generative-metrics.md defines them); empty for other models.
 */
export function generativeTable(results: readonly LevelResult[]): string {
  const levels = results.filter((result) => result.genai);
  if (levels.length === 0) return '';
  const open = levels.some((result) => result.mode === 'request-rate');
  const ms = (n: number) => n.toFixed(2);
  const rows = levels.map((result) => {
    const g = result.genai!;
    return [
      formatG(result.level),
      g.requests_per_s.toFixed(2),
      g.output_tokens_per_s.toFixed(1),
      `${ms(g.ttft_ms.p50)} / ${ms(g.ttft_ms.p95)} / ${ms(g.ttft_ms.p99)}`,
      `${ms(g.itl_ms.p50)} / ${ms(g.itl_ms.p95)} / ${ms(g.itl_ms.p99)}`,
      `${ms(g.latency_ms.avg)} / ${ms(g.latency_ms.p95)} / ${ms(g.latency_ms.p99)}`,
      String(result.errors),
    ];
  });
  const header = [
    open ? 'Request rate (req/s)' : 'Concurrency',
    'Requests/s',
    'Output tokens/s',
    'TTFT p50 / p95 / p99 (ms)',
    'ITL p50 / p95 / p99 (ms)',
    'Latency avg / p95 / p99 (ms)',
    'Errors',
  ];
  const notes = [kneeLine(levels), ...tokenLines(levels)].filter((line) => line);
  // Open loop: whether the generator kept each level's schedule, or could not keep up.
  const schedule = scheduleLines(levels)
    .map(
      (line) => `- ${line}
`,
    )
    .join('');
  return `## Tokens: time to first token, inter-token latency, throughput

${table(header, rows)}
${notes
  .map(
    (line) => `
${line}
`,
  )
  .join('')}${
  schedule
    ? `
${schedule}`
    : ''
}`;
}

/**
 * A multi-turn run's sessions per level and each turn's TTFT, latency and input length (the history grows turn
 * by turn); empty for a single-turn run.
 */
export function conversationTable(results: readonly LevelResult[]): string {
  const levels = results.filter((result) => result.genai?.conversation);
  if (levels.length === 0) return '';
  const ms = (n: number) => n.toFixed(2);
  const rows = levels.flatMap((result) => {
    const c = result.genai!.conversation!;
    const d = c.session_duration_ms;
    return c.turns.map((t) => [
      result.name,
      t.turn === 1 ? `${c.sessions} / ${c.failed_sessions}` : '',
      t.turn === 1 ? `${ms(d.p50)} / ${ms(d.p95)}` : '',
      String(t.turn),
      String(t.requests),
      Math.round(t.isl_avg).toString(),
      `${ms(t.ttft_ms.p50)} / ${ms(t.ttft_ms.p95)}`,
      `${ms(t.latency_ms.p50)} / ${ms(t.latency_ms.p95)}`,
    ]);
  });
  const header = [
    'Level',
    'Sessions done / failed',
    'Session p50 / p95 (ms)',
    'Turn',
    'Requests',
    'ISL avg',
    'TTFT p50 / p95 (ms)',
    'Latency p50 / p95 (ms)',
  ];
  return `## Conversations: sessions and turns

${table(header, rows)}`;
}

/** Where the average latency goes, per level (ms): client, network+server, and the server's own parts. */
export function breakdownTable(results: readonly LevelResult[]): string {
  const header = [
    'Level',
    'Client send',
    'Network+server',
    'Server queue',
    'Compute input',
    'Compute infer',
    'Compute output',
    'Client recv',
    'Server requests',
  ];
  const rows = results.map((result) => [
    result.name,
    msFixed(result.client_send_us, 3),
    msFixed(result.network_server_us, 3),
    ...(result.server
      ? [
          msFixed(result.server.queue_us, 3),
          msFixed(result.server.compute_input_us, 3),
          msFixed(result.server.compute_infer_us, 3),
          msFixed(result.server.compute_output_us, 3),
        ]
      : ['n/a', 'n/a', 'n/a', 'n/a']),
    msFixed(result.client_recv_us, 3),
    result.server ? String(result.server.request_count) : 'n/a',
  ]);
  return table(header, rows);
}

/** The generator column's verdict: a level whose requests failed is not judged (generatorNotJudged). */
function generatorVerdict(result: LevelResult): string {
  if (result.generator?.not_judged) return `not judged: ${result.generator.not_judged}`;
  return result.generator?.bound ? '**load generator bound: the server may hold more**' : 'kept up';
}

/** The load generator's cost per level: what the iteration spent beyond the request. */
export function generatorTable(results: readonly LevelResult[]): string {
  const header = [
    'Level',
    'Iteration (ms)',
    'Request (ms)',
    'Generator (ms)',
    'Generator share',
    'CPU (% of a core)',
    'Verdict',
  ];
  const rows = results.map((result) => {
    const cost = result.generator;
    if (!cost)
      return [result.name, 'n/a', msFixed(result.latency_us.avg, 3), 'n/a', 'n/a', 'n/a', 'not measured'];
    return [
      result.name,
      msFixed(cost.iteration_avg_us, 3),
      msFixed(result.latency_us.avg, 3),
      msFixed(cost.overhead_us, 3),
      `${cost.overhead_pct.toFixed(1)}%`,
      cost.cpu_pct === undefined ? 'n/a' : cost.cpu_pct.toFixed(0),
      generatorVerdict(result),
    ];
  });
  return table(header, rows);
}

/** A number or 'n/a' when the target did not serve the metric. */
function metricCell(value: number | undefined, digits: number): string {
  return value === undefined ? 'n/a' : value.toFixed(digits);
}

/** Bytes as MiB, or 'n/a'. */
function mibCell(bytes: number | undefined): string {
  return bytes === undefined ? 'n/a' : (bytes / 2 ** 20).toFixed(0);
}

/** The target's Prometheus metrics per level (empty when the bench scraped none). */
export function serverMetricsTable(results: readonly LevelResult[]): string {
  if (!results.some((result) => result.server_metrics)) return '';
  const header = [
    'Level',
    'Success',
    'Failure',
    'Inferences',
    'Executions',
    'Queue (ms)',
    'Compute infer (ms)',
    'GPU util (%)',
    'GPU memory (MiB)',
    'CPU util (%)',
    'CPU memory (MiB)',
  ];
  const rows = results.map((result) => {
    const m = result.server_metrics;
    if (!m) return [result.name, ...header.slice(1).map(() => 'n/a')];
    return [
      result.name,
      String(m.request_success),
      String(m.request_failure),
      m.inference_count === undefined ? 'n/a' : String(m.inference_count),
      m.exec_count === undefined ? 'n/a' : String(m.exec_count),
      m.avg_queue_us === undefined ? 'n/a' : msFixed(m.avg_queue_us, 3),
      m.avg_compute_infer_us === undefined ? 'n/a' : msFixed(m.avg_compute_infer_us, 3),
      metricCell(m.gpu_utilization_avg_pct, 1),
      mibCell(m.gpu_memory_used_max_bytes),
      metricCell(m.cpu_utilization_avg_pct, 1),
      mibCell(m.cpu_memory_used_max_bytes),
    ];
  });
  const notes = results.flatMap((result) =>
    [countsNote(result), failuresNote(result)].flatMap((note) => (note ? [`- ${note}`] : [])),
  );
  return [
    '## Server metrics (Prometheus, per level)',
    '',
    "Counter deltas over each window from the target's nv_* metrics; averages per request; utilisation averaged and memory at its highest over the window's scrapes.",
    '',
    table(header, rows),
    '',
    ...(notes.length > 0 ? [...notes, ''] : []),
  ].join('\n');
}

/**
 * Why a level's Prometheus request count differs from the server's statistics (the breakdown's Server
 * requests), in one line; undefined when they agree or one is missing. The statistics are read at the
 * window's own start and end; Prometheus counters only at the scrapes, so its delta runs from the last scrape
 * before the window to the first one after it and also counts the requests of those edges.
 */
export function countsNote(result: LevelResult): string | undefined {
  const m = result.server_metrics;
  const stats = result.server?.request_count;
  if (!m || stats === undefined) return undefined;
  const prometheus = m.request_success + m.request_failure;
  if (prometheus === stats) return undefined;
  const int = (n: number) => Math.round(n).toLocaleString('en-US');
  const s = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });
  const rate = (n: number, seconds: number) => (seconds > 0 ? `${int(n / seconds)}/s` : 'n/a');
  const edges =
    m.interval_s > result.window_s
      ? `the scrapes around the ${s(result.window_s)} s window add its edges`
      : `the scrapes fell inside the ${s(result.window_s)} s window`;
  return `${result.name}: Prometheus counted ${int(prometheus)} requests over ${s(m.interval_s)} s (${edges}), the server's statistics ${int(stats)} over the window itself: ${rate(prometheus, m.interval_s)} against ${rate(stats, result.window_s)}`;
}

/**
 * Why the server counted failed requests in a level whose own requests all succeeded, in one line; undefined
 * otherwise. Its counters run from the scrape before the window to the one after, over the warm-up's end, where
 * a warm-up stream still open is cut (gracefulStop 0s) and cancelled, which Triton counts as a failure.
 */
export function failuresNote(result: LevelResult): string | undefined {
  const m = result.server_metrics;
  if (!m || m.request_failure === 0 || result.errors > 0) return undefined;
  const n = m.request_failure;
  return `${result.name}: the server counted ${n} failed request${n === 1 ? '' : 's'} the level did not see: its scrapes reach back into the warm-up, whose requests still in flight at its end are cut and cancelled (Triton counts a cancelled request as failed, reason CANCELED)`;
}

/** Open loop: latency from the scheduled start beside latency from the send (empty in closed loop). */
export function openLoopTable(results: readonly LevelResult[]): string {
  const open = results.filter((result) => result.mode === 'request-rate' && result.scheduled_latency_us);
  if (open.length === 0) return '';
  const header = [
    'Level',
    'Dropped iterations',
    'Send p50 (ms)',
    'Send p95 (ms)',
    'Send p99 (ms)',
    'Scheduled p50 (ms)',
    'Scheduled p95 (ms)',
    'Scheduled p99 (ms)',
    'Schedule',
  ];
  const rows = open.map((result) => {
    const scheduled = result.scheduled_latency_us!;
    return [
      result.name,
      String(result.dropped_iterations),
      msFixed(result.latency_us.p50),
      msFixed(result.latency_us.p95),
      msFixed(result.latency_us.p99),
      msFixed(scheduled.p50),
      msFixed(scheduled.p95),
      msFixed(scheduled.p99),
      behindSchedule(result)
        ? `**not held: the server did not keep ${formatG(result.level)} req/s**`
        : 'held',
    ];
  });
  return [
    '## Open loop: latency from the scheduled start',
    '',
    "Send latency starts when the request left; scheduled latency when its schedule wanted it to (k6's start + i / rate, or a paced level's send time: Poisson, gamma, a schedule file). They part when the generator falls behind (dropped iterations): then the scheduled figures are the server's.",
    '',
    table(header, rows),
    '',
  ].join('\n');
}

/**
 * What the run checked in the responses: every one's status and content type, the outputs of each VU's first
 * warm-up responses and a sample of measured ones; then per level how many had their outputs checked and how many
 * were invalid (failed requests).
 */
export function validationNote(report: RunReport): string {
  const every = report.validate_every;
  if (every === undefined) return '';
  const measured =
    every === 0
      ? 'of no measured response'
      : every === 1
        ? 'of every measured response'
        : `of 1 in ${every} measured responses`;
  const warmup =
    report.warmup_checks === undefined
      ? ''
      : `of each VU's first ${report.warmup_checks} warm-up responses and `;
  const counted = report.results.filter((r) => r.responses_checked !== undefined);
  const levels = counted.map(
    (r) =>
      `${r.name}: ${formatCount(r.requests)} responses, outputs of ${formatCount(r.responses_checked!)} checked, ${formatCount(r.responses_invalid ?? 0)} invalid`,
  );
  return [
    `Validation: every response's status and content type; the outputs (names, shapes, datatypes) ${warmup}${measured}. An invalid response is a failed request; labels, where the model is real, are an accuracy check only.`,
    ...(levels.length > 0 ? ['', ...levels.map((line) => `- ${line}`)] : []),
  ].join('\n');
}

/** A percentile's interval in ms, e.g. `18.2-21.7` or `18.2-?` when no sample bounds it above. */
function intervalCell(verdict: BudgetVerdict): string {
  const interval = verdict.interval;
  if (!interval || !/duration|sending|receiving|waiting|ttft|itl|latency/.test(verdict.metric)) return '';
  const high = interval.high === null ? '?' : interval.high.toFixed(2);
  return `${interval.low.toFixed(2)}-${high}`;
}

const RESULT_WORDS: Record<BudgetState, string> = {
  met: 'pass',
  missed: '**FAIL**',
  not_measured: '**not measured**',
  inconclusive: '**inconclusive**',
};

/** One row per budget verdict, those not met first so they are seen, each with its samples and interval. */
export function verdictTable(results: readonly LevelResult[]): string {
  const all = results.flatMap((result) => result.budgets);
  if (all.length === 0) return '_No budget judged a measured level._';
  const sorted = [...all.filter((v) => stateOf(v) !== 'met'), ...all.filter((v) => stateOf(v) === 'met')];
  const rows = sorted.map((verdict) => {
    const { metric, level } = splitMetricKey(verdict.metric);
    const state = stateOf(verdict);
    return [
      metric,
      level,
      `\`${verdict.expr}\``,
      formatMeasured(verdict),
      verdict.samples === undefined ? '' : formatCount(verdict.samples),
      intervalCell(verdict),
      verdict.reason ? `${RESULT_WORDS[state]}: ${verdict.reason}` : RESULT_WORDS[state],
    ];
  });
  const note =
    `\n\nA percentile is judged on at least ${SAMPLES_BEYOND_PERCENTILE} samples beyond it (p99: 1,000, p95: 200); ` +
    'the 95% interval is distribution-free (order statistics), read from the nearest percentiles k6 reported outside it.';
  return (
    table(['Metric', 'Level', 'Budget', 'Measured', 'Samples', '95% interval (ms)', 'Result'], rows) + note
  );
}

/** Planned levels that completed no request, named: they are not measured, whatever else passed. */
export function unmeasuredNote(report: RunReport): string {
  if (!report.unmeasured || report.unmeasured.length === 0) return '';
  return `**Not measured:** ${report.unmeasured.join(', ')}: no request completed in the window (no figures, no verdict).\n`;
}

/** A stopped run's line and one line per level it cut short (empty for a whole run). */
export function interruptedNote(report: RunReport): string {
  if (!report.interrupted) return '';
  const measured =
    report.results.length > 0 ? 'only the levels above were measured' : 'no level was measured';
  const lines = [`**Run interrupted (${report.interrupted})**: ${measured}.`];
  for (const level of report.partial ?? []) lines.push(`- ${level.name}: ${partialNote(level)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * One line per level whose requests (mostly) failed, saying why (empty when none did): such a level's
 * verdict is its failure, and one with no successful request is in no table, plot or CSV row.
 */
export function failureNote(report: RunReport): string {
  const lines = failureLines(report.results);
  if (lines.length === 0) return '';
  return `**Requests failed:**\n\n${lines.map((line) => `- ${line}`).join('\n')}\n`;
}

/** The run's verdict in words; a stopped run judges only the levels it measured. */
function verdictWords(report: RunReport): string {
  if (report.interrupted && report.results.length === 0) return 'none, no level was measured';
  const verdict = verdictOf(report);
  const reasons = report.verdict_reasons ?? [];
  const words =
    verdict === 'met'
      ? 'all budgets met'
      : `**${STATE_WORDS[verdict]}** (${reasons.join('; ')})${verdict === 'inconclusive' && report.allow_inconclusive ? ', allowed by --allow-inconclusive' : ''}`;
  return report.interrupted ? `${words} by the measured levels` : words;
}

/** The whole report.md. */
export function reportMarkdown(report: RunReport): string {
  const measured = levelsWithFigures(report.results);
  const generative = report.results.some((result) => result.genai);
  return [
    `# ${report.model}: throughput and latency`,
    '',
    `Protocol ${report.protocol}, runtime ${report.runtime}, batch ${report.batch}, started ${report.started_at}. ` +
      `Verdict: ${verdictWords(report)}.`,
    '',
    measured.length === 0 ? '_No level completed a request._' : levelTable(measured),
    '',
    ...(generative ? [generativeTable(measured), conversationTable(measured), errorBarSection(report)] : []),
    failureNote(report),
    unmeasuredNote(report),
    interruptedNote(report),
    // A generative model's request is a stream: its breakdown and validation do not apply.
    ...(!latencyBreakdownApplies(measured)
      ? []
      : [
          '## Latency breakdown (ms, averages per request)',
          '',
          measured.length === 0 ? '_No data._' : breakdownTable(measured),
          '',
        ]),
    '## Load generator',
    '',
    measured.length === 0 ? '_No data._' : generatorTable(measured),
    ...generatorWarnings(measured).map((line) => `\n> ${line}`),
    '',
    openLoopTable(measured),
    serverMetricsTable(measured),
    ...(generative ? [prefillTable(measured), slicesTable(measured), engineMetricsTable(measured)] : []),
    generative ? '' : validationNote(report),
    '',
    '## Budgets',
    '',
    verdictTable(report.results),
    '',
  ].join('\n');
}
