/**
 * report.html's charts of a generative run: TTFT and ITL percentiles (p50, p95, p99, ms) and output tokens/s
 * against the load level, three panels on one level axis, so the knee (report.md names it) shows where
 * throughput flattens while TTFT climbs; and for a multi-turn run, TTFT and latency p50/p95 by turn index, a
 * line per level, so the cost of a growing history (and the prefix cache's help with it) shows turn by turn.
 * Vega-lite specs, rendered to inline SVG by plot.ts's renderSvg.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { LevelResult } from '../lib/summary/types.ts';
import { GENAI_METRIC_DEFS, labelWithUnit } from '../lib/genai/metric-defs.ts';
import { levelAxis, type PlotOptions, SCHEMA } from './plot.ts';

/** The percentiles drawn for TTFT and ITL. */
export const TOKEN_PERCENTILES = ['p50', 'p95', 'p99'] as const;

/**
 * vega-lite spec of TTFT, ITL and output tokens/s per level; levels without token figures are left out, and
 * a panel with no figure at all (ITL of one-token answers) is not drawn.
 */
export function tokensSpec(results: readonly LevelResult[], options: PlotOptions = {}): TopLevelSpec {
  const levels = results.filter((r) => r.genai).sort((a, b) => a.level - b.level);
  // Only figures there are: ITL has none when every answer was one token long.
  const times = (metric: 'ttft_ms' | 'itl_ms') =>
    levels.flatMap((r) =>
      TOKEN_PERCENTILES.map((p) => ({ level: r.level, series: p, ms: r.genai![metric][p] })).filter((v) =>
        Number.isFinite(v.ms),
      ),
    );
  const tokens = levels
    .map((r) => ({ level: r.level, tokens_per_s: r.genai!.output_tokens_per_s }))
    .filter((v) => Number.isFinite(v.tokens_per_s));
  // Whole-number concurrency ticks: 1, 2, 3, not 1.2.
  const x = { field: 'level', type: 'quantitative' as const, ...levelAxis(levels) };
  const width = options.width ?? 560;
  const height = Math.round((options.height ?? 320) / 2);
  const percentilePanel = (values: object[], title: string) => ({
    width,
    height,
    data: { values },
    mark: { type: 'line' as const, point: true },
    encoding: {
      x,
      y: { field: 'ms', type: 'quantitative' as const, title },
      color: {
        field: 'series',
        type: 'nominal' as const,
        title: 'Percentile',
        scale: { domain: [...TOKEN_PERCENTILES] },
      },
    },
  });
  return {
    $schema: SCHEMA,
    title: `${options.title ?? 'tokens'}: TTFT, ITL and output tokens/s per level`,
    background: 'white',
    vconcat: [
      ...[
        percentilePanel(times('ttft_ms'), labelWithUnit(GENAI_METRIC_DEFS.ttft)),
        percentilePanel(times('itl_ms'), labelWithUnit(GENAI_METRIC_DEFS.itl)),
      ].filter((panel) => panel.data.values.length > 0),
      {
        width,
        height,
        data: { values: tokens },
        mark: { type: 'line', point: true },
        encoding: {
          x,
          y: {
            field: 'tokens_per_s',
            type: 'quantitative',
            title: labelWithUnit(GENAI_METRIC_DEFS.outputTokenThroughput),
          },
        },
      },
    ],
  };
}

/** The percentiles drawn by turn (the per-turn figures hold no p99 worth a line on a short run). */
export const TURN_PERCENTILES = ['p50', 'p95'] as const;

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Whether a run has per-turn figures to chart: a multi-turn level with at least one turn measured. */
export function turnsChartApplies(results: readonly LevelResult[]): boolean {
  return results.some((r) => (r.genai?.conversation?.turns.length ?? 0) > 0);
}

/**
 * vega-lite spec of TTFT and latency p50/p95 by turn index (from 1), two panels on one turn axis: a colour
 * per level, a dash per percentile; levels without per-turn figures are left out.
 */
export function turnsSpec(results: readonly LevelResult[], options: PlotOptions = {}): TopLevelSpec {
  const levels = results.filter((r) => r.genai?.conversation).sort((a, b) => a.level - b.level);
  const points = (metric: 'ttft_ms' | 'latency_ms') =>
    levels.flatMap((r) =>
      r.genai!.conversation!.turns.flatMap((t) =>
        TURN_PERCENTILES.map((p) => ({
          turn: t.turn,
          level: r.name,
          percentile: p,
          ms: t[metric][p],
        })).filter((v) => Number.isFinite(v.ms)),
      ),
    );
  const width = options.width ?? 560;
  const height = Math.round((options.height ?? 320) / 2);
  const panel = (values: object[], title: string) => ({
    width,
    height,
    data: { values },
    mark: { type: 'line' as const, point: true },
    encoding: {
      x: {
        field: 'turn',
        type: 'quantitative' as const,
        title: 'Turn',
        axis: { tickMinStep: 1, format: 'd' },
      },
      y: { field: 'ms', type: 'quantitative' as const, title },
      color: {
        field: 'level',
        type: 'nominal' as const,
        title: 'Level',
        scale: { domain: levels.map((r) => r.name) },
      },
      strokeDash: {
        field: 'percentile',
        type: 'nominal' as const,
        title: 'Percentile',
        scale: { domain: [...TURN_PERCENTILES] },
        // Drawn as dashes, not the points' dots, so the legend says which line is which.
        legend: {
          symbolType: 'stroke',
          encode: { symbols: { update: { stroke: { value: '#555' }, strokeWidth: { value: 2 } } } },
        },
      },
      detail: { field: 'percentile', type: 'nominal' as const },
    },
  });
  return {
    $schema: SCHEMA,
    title: `${options.title ?? 'conversations'}: TTFT and latency by turn`,
    background: 'white',
    vconcat: [
      panel(points('ttft_ms'), labelWithUnit(GENAI_METRIC_DEFS.ttft)),
      // The latency label is a word inside sentences elsewhere ("latency"): an axis title starts upper case.
      panel(points('latency_ms'), capitalised(labelWithUnit(GENAI_METRIC_DEFS.latency))),
    ],
  };
}
