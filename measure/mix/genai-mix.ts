/**
 * A generative model in a mix: its TTFT and ITL budget verdicts (the per-model SLOs) and a table of its token
 * figures beside the mix's request table. Pure: level results in, records and Markdown lines out.
 */
import { GENAI_METRICS } from '../../lib/genai/names.ts';
import type { BudgetState, LevelResult } from '../../lib/summary/types.ts';

/** One SLO budget of a generative model's level, as judged. */
export interface GenaiSloVerdict {
  /** TTFT or ITL. */
  slo: 'TTFT' | 'ITL';
  /** The k6 expression, e.g. `p(95)<150` (ms). */
  expr: string;
  /** The value judged, ms; null when none was. */
  measured: number | null;
  state: BudgetState;
}

const SLO_METRICS: readonly { slo: GenaiSloVerdict['slo']; metric: string }[] = [
  { slo: 'TTFT', metric: GENAI_METRICS.ttft },
  { slo: 'ITL', metric: GENAI_METRICS.itl },
];

/** A generative level's TTFT and ITL budget verdicts (none for a tensor level, or a budget without them). */
export function genaiSloVerdicts(result: LevelResult | undefined): GenaiSloVerdict[] {
  if (!result?.genai) return [];
  return SLO_METRICS.flatMap(({ slo, metric }) =>
    result.budgets
      .filter((b) => b.metric.startsWith(`${metric}{`))
      .map((b) => ({ slo, expr: b.expr, measured: b.measured, state: b.state ?? (b.ok ? 'met' : 'missed') })),
  );
}

const STATE_CELL: Record<BudgetState, string> = {
  met: 'pass',
  missed: 'FAIL',
  not_measured: 'not measured',
  inconclusive: 'inconclusive',
};

function verdictCell(verdicts: readonly GenaiSloVerdict[], slo: GenaiSloVerdict['slo']): string {
  const own = verdicts.filter((v) => v.slo === slo);
  if (own.length === 0) return 'no budget';
  return own
    .map(
      (v) =>
        `${v.expr.replace(/^p\((\d+)\)/, 'p$1 ')} ms: ${STATE_CELL[v.state]}${v.measured === null ? '' : ` (${v.measured.toFixed(2)})`}`,
    )
    .join('; ');
}

const three = (t: { p50: number; p95: number; p99: number }) =>
  `${t.p50.toFixed(2)} / ${t.p95.toFixed(2)} / ${t.p99.toFixed(2)}`;

/** The mix report's table of its generative models (none when it has none), with a blank line before. */
export function genaiMixMarkdown(models: readonly { id: string; result?: LevelResult }[]): string[] {
  const rows = models.flatMap(({ id, result }) => {
    const g = result?.genai;
    if (!g) return [];
    const verdicts = genaiSloVerdicts(result);
    const goodput = g.goodput ? g.goodput.requests_per_s.toFixed(1) : '-';
    return [
      `| ${id} | ${three(g.ttft_ms)} | ${three(g.itl_ms)} | ${g.output_tokens_per_s.toFixed(1)} | ${goodput} | ${verdictCell(verdicts, 'TTFT')} | ${verdictCell(verdicts, 'ITL')} |`,
    ];
  });
  if (rows.length === 0) return [];
  return [
    '',
    'Generative models: their latency above runs from send to last token; their SLOs are the TTFT and ITL budgets.',
    '',
    '| model | TTFT p50 / p95 / p99 ms | ITL p50 / p95 / p99 ms | output tokens/s | goodput req/s | TTFT budget | ITL budget |',
    '|---|---:|---:|---:|---:|---|---|',
    ...rows,
  ];
}
