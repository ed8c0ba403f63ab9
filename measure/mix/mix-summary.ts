/**
 * A measured mix in a few numbers: each model's load, throughput, latency percentiles, the server's own
 * times (Triton's statistics API, per model) and budget verdict, and the mix as a whole; rendered as the
 * mix folder's report.md. Pure: the models' run reports in, records and text out.
 */
import type { BudgetLimits } from '../../lib/budget.ts';
import { runVerdict } from '../../lib/summary/judge.ts';
import type { LatencyStats_us, LevelResult, RunReport, RunVerdict } from '../../lib/summary/types.ts';
import { us_to_ms } from '../../lib/units.ts';
import type { Mix, MixLoad } from './file.ts';
import { type GenaiSloVerdict, genaiMixMarkdown, genaiSloVerdicts } from './genai-mix.ts';

/** One model of a measured mix. */
export interface MixModelResult {
  id: string;
  load: MixLoad;
  /** The budget in force (the file's or the override's). */
  limits: BudgetLimits;
  /** Its level's result; undefined when the level was not measured (no request completed, run cut). */
  result?: LevelResult;
  /** Its successful requests per second. */
  requests_per_s: number;
  /** Every budget verdict of its level passed (false when it was not measured). */
  verdict_ok: boolean;
  /** Its level's verdict (lib/summary/judge.ts): met, missed, not measured or inconclusive. */
  verdict: RunVerdict;
  /** A generative model's TTFT and ITL budget verdicts (its per-model SLOs); absent for a tensor model. */
  genai_slo?: GenaiSloVerdict[];
}

/** The mix as a whole. */
export interface MixWhole {
  requests: number;
  errors: number;
  requests_per_s: number;
  throughput_infer_s: number;
  /** The model with the highest p95 relative to its budget, and that p95. */
  tightest?: { id: string; p95_ms: number; budget_p95_ms: number };
  /** Every model's budget met. */
  verdict_ok: boolean;
  /** The worst of the models' verdicts: missed before not measured before inconclusive before met. */
  verdict: RunVerdict;
  /** Latency over every model's measured requests, when the summary has the mix's sub-metric. */
  latency_us?: LatencyStats_us;
}

/** A measured mix at one scale. */
export interface MixResult {
  name: string;
  /** The scale the mix ran at, percent of the file's loads. */
  percent: number;
  models: MixModelResult[];
  whole: MixWhole;
}

/** A model's error rate as a share of its budget's: 0 errors is 0; any error against a zero budget is over it. */
export function errorShare(m: MixModelResult): number {
  const r = m.result;
  if (!r || r.requests === 0) return Number.POSITIVE_INFINITY;
  const rate = r.errors / r.requests;
  if (m.limits.error_rate > 0) return rate / m.limits.error_rate;
  return rate > 0 ? Number.POSITIVE_INFINITY : 0;
}

/** A model's successful requests per second at its level. */
function requestsPerSecond(result: LevelResult | undefined): number {
  return result ? Math.max(0, result.requests - result.errors) / result.window_s : 0;
}

/** Sums the models into the mix's whole. */
function wholeOf(models: readonly MixModelResult[], latency_us?: LatencyStats_us): MixWhole {
  let tightest: MixWhole['tightest'];
  for (const m of models) {
    if (!m.result) continue;
    const p95_ms = us_to_ms(m.result.latency_us.p95);
    if (!tightest || p95_ms / m.limits.p95_ms > tightest.p95_ms / tightest.budget_p95_ms)
      tightest = { id: m.id, p95_ms, budget_p95_ms: m.limits.p95_ms };
  }
  return {
    requests: models.reduce((s, m) => s + (m.result?.requests ?? 0), 0),
    errors: models.reduce((s, m) => s + (m.result?.errors ?? 0), 0),
    requests_per_s: models.reduce((s, m) => s + m.requests_per_s, 0),
    throughput_infer_s: models.reduce((s, m) => s + (m.result?.throughput_infer_s ?? 0), 0),
    ...(tightest ? { tightest } : {}),
    verdict_ok: models.every((m) => m.verdict_ok),
    verdict: runVerdict(
      models.map((m) => ({ ok: m.verdict_ok, state: m.verdict })),
      [],
    ).verdict,
    ...(latency_us ? { latency_us } : {}),
  };
}

/** The mix's result from each model's report (one level each), in the file's order. */
export function mixResult(
  mix: Mix,
  percent: number,
  models: readonly { id: string; load: MixLoad; limits: BudgetLimits; report: RunReport }[],
  latency_us?: LatencyStats_us,
): MixResult {
  const results: MixModelResult[] = models.map(({ id, load, limits, report }) => {
    const result = report.results[0];
    // A model whose level completed no request, or whose budgets judged nothing, is not measured.
    const verdict = result ? runVerdict(result.budgets, []).verdict : 'not_measured';
    return {
      id,
      load,
      limits,
      ...(result ? { result } : {}),
      requests_per_s: requestsPerSecond(result),
      verdict_ok: verdict === 'met',
      verdict,
      ...(result?.genai ? { genai_slo: genaiSloVerdicts(result) } : {}),
    };
  });
  return { name: mix.name, percent, models: results, whole: wholeOf(results, latency_us) };
}

/** A verdict in the mix table's last column. */
const VERDICT_CELL: Record<RunVerdict, string> = {
  met: 'pass',
  missed: 'FAIL',
  not_measured: 'not measured',
  inconclusive: 'inconclusive',
};

/** A load in words: 8 VUs, 1 VU, 280 req/s. */
export function loadText(load: MixLoad): string {
  if (load.mode === 'request-rate') return `${fmt(load.level)} req/s`;
  return `${load.level} VU${load.level === 1 ? '' : 's'}`;
}

function fmt(value: number, digits = 1): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}

function ms(us: number | undefined): string {
  return us === undefined ? '-' : fmt(us_to_ms(us), 2);
}

/**
 * The model with the highest p95 for its budget in words: "closest to its budget" while within it (k6's
 * strict `<`), "over its budget" once it is not.
 */
export function tightestWords(t: NonNullable<MixWhole['tightest']>): string {
  const over = !(t.p95_ms < t.budget_p95_ms);
  return `${over ? 'Over its budget' : 'Closest to its budget'}: ${t.id}, p95 ${fmt(t.p95_ms, 2)} ms ${over ? 'against' : 'of'} ${fmt(t.budget_p95_ms)} ms.`;
}

/** The mix's report.md: a row per model, the whole mix, and what each verdict rests on. */
export function mixMarkdown(result: MixResult, runtime: string): string {
  const lines = [
    `# Model mix ${result.name} at ${fmt(result.percent)}% (${runtime})`,
    '',
    '| model | load | req/s | p50 ms | p95 ms | p99 ms | errors | server queue ms | server compute ms | budget p95 / p99 ms | verdict |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|',
  ];
  for (const m of result.models) {
    const r = m.result;
    const server = r?.server;
    const compute = server
      ? server.compute_input_us + server.compute_infer_us + server.compute_output_us
      : undefined;
    lines.push(
      `| ${m.id} | ${loadText(m.load)} | ${fmt(m.requests_per_s)} | ${ms(r?.latency_us.p50)} | ${ms(r?.latency_us.p95)} | ${ms(r?.latency_us.p99)} | ${r ? r.errors : '-'} | ${ms(server?.queue_us)} | ${ms(compute)} | ${fmt(m.limits.p95_ms)} / ${fmt(m.limits.p99_ms)} | ${VERDICT_CELL[m.verdict]} |`,
    );
  }
  const w = result.whole;
  lines.push(
    `| **mix** | | **${fmt(w.requests_per_s)}** | ${ms(w.latency_us?.p50)} | ${ms(w.latency_us?.p95)} | ${ms(w.latency_us?.p99)} | ${w.errors} | | | | **${VERDICT_CELL[w.verdict]}** |`,
    ...genaiMixMarkdown(result.models),
    '',
    w.tightest ? tightestWords(w.tightest) : 'No model completed a request.',
    '',
    "Each model's own files (summary.json, perf_analyzer.csv, report.md) are in its folder beside this one.",
    '',
  );
  return lines.join('\n');
}
