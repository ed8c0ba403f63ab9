/**
 * Plots rendered to SVG in Node with vega-lite + vega (no canvas): throughput against the load level,
 * and p95/p99 latency against throughput (the knee) with the budget drawn as a line.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { LevelResult } from '../lib/summary/types.ts';
import { us_to_ms } from '../lib/units.ts';

/** Budget lines to draw on the latency plot, ms. */
export interface PlotBudget {
  p95_ms?: number;
  p99_ms?: number;
}

/** Options shared by the plots. */
export interface PlotOptions {
  /** Title prefix, usually the model name. */
  title?: string;
  budget?: PlotBudget;
  /** Pixel size of the plot area. @default 560 x 320 */
  width?: number;
  height?: number;
}

/** The vega-lite schema every chart names. */
export const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

function levelAxisTitle(results: readonly LevelResult[]): string {
  return results[0]?.mode === 'request-rate' ? 'Request rate (req/s)' : 'Concurrency';
}

/** vega-lite spec of throughput against level (seed 001's shape: where throughput flattens). */
export function throughputSpec(results: readonly LevelResult[], options: PlotOptions = {}): TopLevelSpec {
  return {
    $schema: SCHEMA,
    title: `${options.title ?? 'throughput'}: throughput vs ${levelAxisTitle(results).toLowerCase()}`,
    width: options.width ?? 560,
    height: options.height ?? 320,
    background: 'white',
    data: {
      values: results.map((result) => ({
        level: result.level,
        throughput: result.throughput_infer_s,
        stable: result.stable === false ? 'unstable' : 'stable or not judged',
      })),
    },
    layer: [
      { mark: { type: 'line', color: '#4c78a8' }, encoding: { x: { field: 'level', type: 'quantitative' } } },
      {
        mark: { type: 'point', filled: true, size: 60 },
        encoding: {
          shape: { field: 'stable', type: 'nominal', title: 'Stability', legend: { labelLimit: 200 } },
        },
      },
    ],
    encoding: {
      // Levels are whole VU counts (or rates): no ticks between them.
      x: {
        field: 'level',
        type: 'quantitative',
        title: levelAxisTitle(results),
        axis: { tickMinStep: 1, format: 'd' },
      },
      y: { field: 'throughput', type: 'quantitative', title: 'Throughput (infer/s)' },
    },
  };
}

/** Latency percentiles a LevelResult carries. */
export type Percentile = 'p50' | 'p90' | 'p95' | 'p99';

/** One child of a layered spec, as vega-lite types it. */
type LayerChild = Extract<TopLevelSpec, { layer: unknown }>['layer'][number];

/**
 * A budget more than this many times the highest plotted latency is drawn at the chart's top edge with its
 * value, not at its place: a 50 ms budget over 1 ms latencies would flatten every percentile onto the axis.
 */
export const BUDGET_IN_SCALE_FACTOR = 2;

/** One budget line as drawn: where (ms on the chart's scale) and its label. */
export interface BudgetRule {
  y_ms: number;
  label: string;
  /** Above the chart's top: drawn at the edge. */
  above: boolean;
}

/**
 * The latency axis's top and the budget lines on it: the top fits the plotted latencies, taking in a budget
 * near them (up to BUDGET_IN_SCALE_FACTOR times the highest) so it is drawn in place; a budget further up
 * is drawn at the top edge, its label saying it lies above.
 */
export function latencyScale(latencies_ms: readonly number[], budget: PlotBudget = {}) {
  const highest = Math.max(0, ...latencies_ms);
  const budgets = (['p95_ms', 'p99_ms'] as const).flatMap((key) => {
    const ms = budget[key];
    return ms ? [{ name: key.slice(0, 3), ms }] : [];
  });
  // With nothing measured above zero, the budgets alone set the scale.
  const near = budgets.filter((b) => highest === 0 || b.ms <= highest * BUDGET_IN_SCALE_FACTOR);
  const top_ms = Math.max(highest, ...near.map((b) => b.ms)) * 1.1 || 1;
  const rules: BudgetRule[] = budgets.map((b) => {
    const above = b.ms > top_ms;
    return {
      y_ms: above ? top_ms : b.ms,
      label: `${b.name} budget ${b.ms} ms${above ? ' (above the chart)' : ''}`,
      above,
    };
  });
  return { top_ms, rules };
}

/** Dashed budget rules with their labels, one layer each; labels of rules at the top edge stack downwards. */
function budgetLayers(rules: readonly BudgetRule[]): LayerChild[] {
  let edge = 0;
  return rules.map((rule) => ({
    data: { values: [rule] },
    layer: [
      {
        mark: { type: 'rule', color: '#e45756', strokeDash: [6, 4] },
        encoding: { y: { field: 'y_ms', type: 'quantitative' } },
      },
      {
        mark: {
          type: 'text',
          align: 'left',
          dx: 4,
          // Above its line when in place; below the top edge, one line per budget, when above the chart.
          dy: rule.above ? 10 + 14 * edge++ : -6,
          color: '#e45756',
        },
        encoding: {
          y: { field: 'y_ms', type: 'quantitative' },
          x: { value: 0 },
          text: { field: 'label', type: 'nominal' },
        },
      },
    ],
  }));
}

/**
 * vega-lite spec of latency percentiles (ms) against throughput, budgets as dashed rules: latency.svg draws
 * p95 and p99 (the default), report.html all four. The latency axis fits the percentiles (latencyScale).
 */
export function latencySpec(
  results: readonly LevelResult[],
  options: PlotOptions & { percentiles?: readonly Percentile[] } = {},
): TopLevelSpec {
  const percentiles = options.percentiles ?? ['p95', 'p99'];
  const points = results.flatMap((result) =>
    percentiles.map((series) => ({
      throughput: result.throughput_infer_s,
      latency_ms: us_to_ms(result.latency_us[series]),
      series,
      level: result.name,
    })),
  );
  const scale = latencyScale(
    points.map((p) => p.latency_ms),
    options.budget,
  );
  return {
    $schema: SCHEMA,
    title: `${options.title ?? 'latency'}: ${percentiles.join('/')} latency vs throughput`,
    width: options.width ?? 560,
    height: options.height ?? 320,
    background: 'white',
    layer: [
      {
        data: { values: points },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'throughput', type: 'quantitative', title: 'Throughput (infer/s)' },
          y: {
            field: 'latency_ms',
            type: 'quantitative',
            title: 'Latency (ms)',
            scale: { domain: [0, scale.top_ms], nice: false },
          },
          color: {
            field: 'series',
            type: 'nominal',
            title: 'Percentile',
            scale: { domain: [...percentiles] },
          },
          // Lines join levels in throughput order, so a level that lost throughput folds the line back (the knee).
          order: { field: 'throughput', type: 'quantitative' },
        },
      },
      ...budgetLayers(scale.rules),
    ],
  };
}

/** Renders a vega-lite spec to an SVG string in Node. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  // Loaded here, not with the module: vega-lite costs ~0.8 s of CPU to load, which every command that
  // imports the report writer paid, those that stop before any plot (bad flags, unreachable servers) too.
  const [{ compile }, { parse, View }] = await Promise.all([import('vega-lite'), import('vega')]);
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Both plots as SVG text, keyed by file name. */
export async function renderPlots(
  results: readonly LevelResult[],
  options: PlotOptions = {},
): Promise<Record<string, string>> {
  return {
    'throughput.svg': await renderSvg(throughputSpec(results, options)),
    'latency.svg': await renderSvg(latencySpec(results, options)),
  };
}
