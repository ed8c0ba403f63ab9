/**
 * The generative side of a comparison in words: a Markdown table of TTFT and ITL p50/p95/p99, output tokens/s and
 * goodput per level measured in both runs, and the gates' names. Pure.
 */
import type { Comparison } from './compare.ts';
import {
  DEFAULT_GENAI_TOLERANCES,
  GENAI_PERCENTILES,
  type GenaiTolerances,
  genaiGatesText,
} from './compare-genai.ts';
import { type Delta, fmtPct } from './delta.ts';

function cell(delta: Delta | undefined, decimals: number): string {
  if (!delta) return 'n/a';
  return `${delta.a.toFixed(decimals)} → ${delta.b.toFixed(decimals)} (${fmtPct(delta.delta_pct)})`;
}

/** The generative tolerances a comparison applied. */
export function genaiTolerances(comparison: Comparison): GenaiTolerances {
  return comparison.tolerances.genai ?? DEFAULT_GENAI_TOLERANCES;
}

/** Whether any level compared token figures (both runs generative). */
export function hasGenai(comparison: Comparison): boolean {
  return comparison.levels.some((level) => level.genai);
}

/** The generative gates in words, or '' when no level had token figures. */
export function genaiGatesWords(comparison: Comparison): string {
  return hasGenai(comparison) ? `, ${genaiGatesText(genaiTolerances(comparison))}` : '';
}

/** The generative table's lines (with a blank line before), or none when no level had token figures. */
export function genaiMarkdown(comparison: Comparison): string[] {
  if (!hasGenai(comparison)) return [];
  const header = [
    'Level',
    ...GENAI_PERCENTILES.map((p) => `TTFT ${p} (ms)`),
    ...GENAI_PERCENTILES.map((p) => `ITL ${p} (ms)`),
    'Output tokens/s',
    'Goodput (req/s)',
  ];
  const rows = comparison.levels.flatMap((level) => {
    const g = level.genai;
    if (!g) return [];
    const cells = [
      level.name,
      ...GENAI_PERCENTILES.map((p) => cell(g.ttft_ms[p], 2)),
      ...GENAI_PERCENTILES.map((p) => cell(g.itl_ms[p], 2)),
      cell(g.output_tokens_per_s, 1),
      g.goodput_requests_per_s
        ? cell(g.goodput_requests_per_s, 2)
        : `n/a${g.goodput_skipped ? ` (${g.goodput_skipped})` : ''}`,
    ];
    return [`| ${cells.join(' | ')} |`];
  });
  return ['', '| ' + header.join(' | ') + ' |', `|${' --- |'.repeat(header.length)}`, ...rows];
}
