/**
 * The Pareto plot of a sweep: throughput against p95 for every measured (configuration, level), the Pareto
 * front (no other point has at least its throughput at no more p95, one of them strictly) marked, and the p95
 * budget drawn. The front is a pure function; the plot is vega-lite, rendered by plot.ts's renderSvg.
 */
import type { TopLevelSpec } from 'vega-lite';
import { latencyScale, renderSvg } from './plot.ts';

/** One measured point: a configuration at one level. */
export interface ParetoPoint {
  /** The configuration, e.g. "2 instances, delay 150 us". */
  label: string;
  level: number;
  throughput_infer_s: number;
  p95_ms: number;
}

/** Options of the plot. */
export interface ParetoOptions {
  title?: string;
  /** The p95 budget, drawn as a vertical rule. */
  p95_budget_ms?: number;
  width?: number;
  height?: number;
}

/** Whether a has at least b's throughput at no more p95, and is better in one of them. */
function dominates(a: ParetoPoint, b: ParetoPoint): boolean {
  return (
    a.throughput_infer_s >= b.throughput_infer_s &&
    a.p95_ms <= b.p95_ms &&
    (a.throughput_infer_s > b.throughput_infer_s || a.p95_ms < b.p95_ms)
  );
}

/**
 * The Pareto front (higher throughput, lower p95) as indices into `points`, ordered by p95. Points with a
 * non-finite figure (no request completed) are never on it; equal points are both on it.
 */
export function paretoFront(points: readonly ParetoPoint[]): number[] {
  const finite = (p: ParetoPoint) => Number.isFinite(p.p95_ms) && Number.isFinite(p.throughput_infer_s);
  return points
    .map((p, i) => ({ p, i }))
    .filter(({ p }) => finite(p) && !points.some((q) => finite(q) && dominates(q, p)))
    .sort((a, b) => a.p.p95_ms - b.p.p95_ms || b.p.throughput_infer_s - a.p.throughput_infer_s)
    .map(({ i }) => i);
}

/**
 * vega-lite spec: a point per (config, level) coloured by config and named by its level, the front as a step
 * line, the budget as a rule. The p95 axis fits the points (latencyScale): a budget far to their right is
 * drawn at the right edge, its label pointing on, rather than packing every point into the left of the chart.
 */
export function paretoSpec(points: readonly ParetoPoint[], options: ParetoOptions = {}): TopLevelSpec {
  const front = new Set(paretoFront(points));
  const values = points
    .map((p, i) => ({
      config: p.label,
      level: p.level,
      name: `c${p.level}`,
      throughput: p.throughput_infer_s,
      p95_ms: p.p95_ms,
      front: front.has(i) ? 'on the front' : 'dominated',
      order: i,
    }))
    .filter((v) => Number.isFinite(v.p95_ms) && Number.isFinite(v.throughput));
  const frontValues = paretoFront(points).map((i, rank) => ({
    throughput: points[i]!.throughput_infer_s,
    p95_ms: points[i]!.p95_ms,
    rank,
  }));
  const budget = options.p95_budget_ms;
  const scale = latencyScale(
    values.map((v) => v.p95_ms),
    budget ? { p95_ms: budget } : {},
    'right',
  );
  const x = {
    field: 'p95_ms',
    type: 'quantitative' as const,
    title: 'p95 latency (ms)',
    scale: { domain: [0, scale.top_ms], nice: false },
  };
  const y = { field: 'throughput', type: 'quantitative' as const, title: 'Throughput (infer/s)' };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `${options.title ?? 'sweep'}: throughput vs p95 per configuration and level (Pareto front)`,
    width: options.width ?? 560,
    height: options.height ?? 320,
    background: 'white',
    layer: [
      {
        data: { values: frontValues },
        // step-after: from each front point the best throughput holds until the next one's p95.
        mark: { type: 'line', interpolate: 'step-after', color: '#54a24b', strokeWidth: 2 },
        encoding: { x, y, order: { field: 'rank', type: 'quantitative' } },
      },
      {
        data: { values },
        layer: [
          {
            mark: { type: 'point', filled: true, opacity: 0.85 },
            encoding: {
              x,
              y,
              color: {
                field: 'config',
                type: 'nominal',
                title: 'Configuration',
                legend: { labelLimit: 260 },
              },
              shape: {
                field: 'front',
                type: 'nominal',
                title: 'Pareto',
                scale: { domain: ['on the front', 'dominated'], range: ['diamond', 'circle'] },
              },
              // Front points drawn larger: a diamond of the same area reads smaller than a circle.
              // Ordinal, as vega-lite warns that size should not encode an unsorted (nominal) field.
              size: {
                field: 'front',
                type: 'ordinal',
                scale: { domain: ['on the front', 'dominated'], range: [160, 70] },
                // Merged with the shape's legend: one "Pareto" entry, each symbol at its size.
                title: 'Pareto',
              },
              tooltip: [
                { field: 'config', type: 'nominal' },
                { field: 'level', type: 'quantitative', title: 'Concurrency' },
                { field: 'throughput', type: 'quantitative', format: ',.0f' },
                { field: 'p95_ms', type: 'quantitative', format: '.2f' },
              ],
            },
          },
          {
            // The level beside its point: which concurrency each configuration reached where.
            mark: { type: 'text', align: 'left', dx: 7, dy: -7, fontSize: 10, color: '#333' },
            encoding: { x, y, text: { field: 'name', type: 'nominal' } },
          },
        ],
      },
      ...scale.rules.map((rule) => ({
        data: { values: [rule] },
        layer: [
          {
            mark: { type: 'rule' as const, color: '#e45756', strokeDash: [6, 4] },
            encoding: { x: { field: 'y_ms', type: 'quantitative' as const, scale: x.scale } },
          },
          {
            // At the top, right of the rule in place; left of it at the right edge, its arrow pointing on.
            mark: {
              type: 'text' as const,
              align: rule.above ? ('right' as const) : ('left' as const),
              dx: rule.above ? -4 : 4,
              dy: 8,
              color: '#e45756',
            },
            encoding: {
              x: { field: 'y_ms', type: 'quantitative' as const, scale: x.scale },
              y: { value: 0 },
              text: { field: 'label', type: 'nominal' as const },
            },
          },
        ],
      })),
    ],
  };
}

/** The Pareto plot as SVG text. */
export async function renderPareto(
  points: readonly ParetoPoint[],
  options: ParetoOptions = {},
): Promise<string> {
  return renderSvg(paretoSpec(points, options));
}
