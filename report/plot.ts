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

/**
 * The level axis of the charts drawn against the load level: its title with the unit, and whole-number ticks
 * for concurrency (VU counts: no tick at 1.2); rates keep their decimals, without trailing zeros.
 */
export function levelAxis(results: readonly LevelResult[]) {
  const rate = results[0]?.mode === 'request-rate';
  return {
    title: levelAxisTitle(results),
    axis: rate ? { format: '~g' } : { tickMinStep: 1, format: 'd' },
  };
}

/** A time in ms for a chart's label, to three significant digits and whole from 100 ms: "20.4 ms", "1000 ms". */
export function chartMs(ms: number): string {
  return `${ms >= 100 ? Math.round(ms) : Number(ms.toPrecision(3))} ms`;
}

/** The stability legend's two entries: unstable levels are drawn hollow and red, the others filled. */
export const STABILITY_LEGEND = ['stable or not judged', 'unstable'] as const;
const UNSTABLE_RED = '#d62728';
const STABLE_BLUE = '#4c78a8';
const PERCENTILE_COLOURS = ['#4c78a8', '#f58518', '#54a24b', '#9467bd'];

function stabilityOf(result: LevelResult): (typeof STABILITY_LEGEND)[number] {
  return result.stable === false ? 'unstable' : 'stable or not judged';
}

/** Levels in level order (c1, c2, c4...): lines join them so, whatever their throughput. */
function inLevelOrder(results: readonly LevelResult[]): LevelResult[] {
  return [...results].sort((a, b) => a.level - b.level);
}

/** A level name above its point, red when the level was unstable. */
const levelLabelMark = {
  type: 'text' as const,
  dy: -11,
  fontSize: 11,
  fontWeight: 'bold' as const,
};
const levelLabelColor = {
  condition: { test: "datum.stability === 'unstable'", value: UNSTABLE_RED },
  value: '#333',
};

/**
 * vega-lite spec of throughput against level (seed 001's shape: where throughput flattens). Each point is named
 * by its level; unstable levels are hollow red rings, named in the legend.
 */
export function throughputSpec(results: readonly LevelResult[], options: PlotOptions = {}): TopLevelSpec {
  const stability = { field: 'stability', type: 'nominal' as const, title: 'Level' };
  // The legend names what is drawn: no "unstable" entry when every level was stable.
  const shown = STABILITY_LEGEND.filter((state) => results.some((result) => stabilityOf(result) === state));
  const scale = (unstable: string) => ({
    domain: [...shown],
    range: shown.map((state) => (state === 'unstable' ? unstable : STABLE_BLUE)),
  });
  return {
    $schema: SCHEMA,
    title: `${options.title ?? 'throughput'}: throughput vs ${levelAxisTitle(results).toLowerCase()}`,
    width: options.width ?? 560,
    height: options.height ?? 320,
    background: 'white',
    data: {
      values: inLevelOrder(results).map((result) => ({
        level: result.level,
        name: result.name,
        throughput: result.throughput_infer_s,
        stability: stabilityOf(result),
      })),
    },
    layer: [
      { mark: { type: 'line', color: STABLE_BLUE } },
      {
        mark: { type: 'point', size: 90, strokeWidth: 2.5, opacity: 1 },
        encoding: {
          // One legend: filled blue for stable, a white ring in red for unstable.
          fill: {
            ...stability,
            scale: scale('white'),
            legend: { labelLimit: 200 },
          },
          stroke: {
            ...stability,
            scale: scale(UNSTABLE_RED),
            legend: { labelLimit: 200 },
          },
        },
      },
      {
        mark: levelLabelMark,
        encoding: { text: { field: 'name', type: 'nominal' }, color: levelLabelColor },
      },
    ],
    encoding: {
      x: { field: 'level', type: 'quantitative', ...levelAxis(results) },
      // Room above the highest point for its level's name: the axis, rounded up, runs past it.
      y: {
        field: 'throughput',
        type: 'quantitative',
        title: 'Throughput (infer/s)',
        scale: { domainMax: Math.max(0, ...results.map((r) => r.throughput_infer_s)) * 1.08 || 1 },
      },
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
  /** Beyond the chart's end: drawn at the edge. */
  above: boolean;
}

/** Which edge a budget beyond the data is drawn at: the top of a latency-up chart, the right of a latency-across one. */
export type BudgetEdge = 'top' | 'right';

/** A budget's label: "p95 budget 20 ms", with an arrow pointing where it lies when drawn at the edge. */
function budgetLabel(name: string, ms: number, beyond: BudgetEdge | undefined): string {
  const text = `${name} budget ${chartMs(ms)}`;
  if (beyond === 'top') return `↑ ${text} (above the chart)`;
  if (beyond === 'right') return `${text} (beyond the chart) →`;
  return text;
}

/**
 * The latency axis's end and the budget lines on it: the end fits the plotted latencies, taking in a budget
 * near them (up to BUDGET_IN_SCALE_FACTOR times the highest) so it is drawn in place; a budget further out
 * is drawn at the edge (`edge`, the top by default), its label pointing to where it lies.
 */
export function latencyScale(
  latencies_ms: readonly number[],
  budget: PlotBudget = {},
  edge: BudgetEdge = 'top',
) {
  const highest = Math.max(0, ...latencies_ms.filter(Number.isFinite));
  const budgets = (['p95_ms', 'p99_ms'] as const).flatMap((key) => {
    const ms = budget[key];
    return ms ? [{ name: key.slice(0, 3), ms }] : [];
  });
  // With nothing measured above zero, the budgets alone set the scale.
  const near = budgets.filter((b) => highest === 0 || b.ms <= highest * BUDGET_IN_SCALE_FACTOR);
  const top_ms = Math.max(highest, ...near.map((b) => b.ms)) * 1.1 || 1;
  const rules: BudgetRule[] = budgets.map((b) => {
    const above = b.ms > top_ms;
    return { y_ms: above ? top_ms : b.ms, label: budgetLabel(b.name, b.ms, above ? edge : undefined), above };
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
        mark: { type: 'rule', color: UNSTABLE_RED, strokeDash: [6, 4] },
        encoding: { y: { field: 'y_ms', type: 'quantitative' } },
      },
      {
        mark: {
          type: 'text',
          align: 'left',
          dx: 4,
          // Above its line when in place; below the top edge, one line per budget, when above the chart.
          dy: rule.above ? 10 + 14 * edge++ : -6,
          color: UNSTABLE_RED,
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
 * p95 and p99 (the default), report.html all four. Each line joins the levels in level order (a level that
 * lost throughput folds it back: the knee), each level is named above its highest point, and unstable levels
 * are ringed in red. The latency axis fits the percentiles (latencyScale).
 */
export function latencySpec(
  results: readonly LevelResult[],
  options: PlotOptions & { percentiles?: readonly Percentile[] } = {},
): TopLevelSpec {
  const percentiles = options.percentiles ?? ['p95', 'p99'];
  const levels = inLevelOrder(results);
  const points = levels.flatMap((result, rank) =>
    percentiles.map((series) => ({
      throughput: result.throughput_infer_s,
      latency_ms: us_to_ms(result.latency_us[series]),
      series,
      level: result.name,
      rank,
      stability: stabilityOf(result),
    })),
  );
  const scale = latencyScale(
    points.map((p) => p.latency_ms),
    options.budget,
  );
  const top = percentiles[percentiles.length - 1]!;
  const x = { field: 'throughput', type: 'quantitative' as const, title: 'Throughput (infer/s)' };
  const y = {
    field: 'latency_ms',
    type: 'quantitative' as const,
    title: 'Latency (ms)',
    scale: { domain: [0, scale.top_ms], nice: false },
  };
  const unstable = points.filter((p) => p.stability === 'unstable');
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
          x,
          y,
          color: {
            field: 'series',
            type: 'nominal',
            title: 'Percentile',
            // No red among them: red is the unstable rings' and the budgets' colour.
            scale: { domain: [...percentiles], range: PERCENTILE_COLOURS },
          },
          // Level order, not throughput order: the line runs c1, c2, c4... as the load grew.
          order: { field: 'rank', type: 'quantitative' },
        },
      },
      ...(unstable.length > 0
        ? [
            {
              data: { values: unstable },
              mark: { type: 'point' as const, filled: false, size: 260, strokeWidth: 2.5, opacity: 1 },
              encoding: {
                x,
                y,
                stroke: {
                  field: 'stability',
                  type: 'nominal' as const,
                  title: 'Level',
                  scale: { domain: ['unstable'], range: [UNSTABLE_RED] },
                },
              },
            },
          ]
        : []),
      {
        data: { values: points.filter((p) => p.series === top) },
        mark: levelLabelMark,
        encoding: { x, y, text: { field: 'level', type: 'nominal' }, color: levelLabelColor },
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
