/**
 * Plots rendered to SVG in Node with vega-lite + vega (no canvas): throughput against the load level,
 * and p95/p99 latency against throughput (the knee) with the budget drawn as a line.
 */
import { compile, type TopLevelSpec } from 'vega-lite';
import { parse, View } from 'vega';
import type { LevelResult } from '../lib/summary/types.ts';

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

function levelAxisTitle(results: readonly LevelResult[]): string {
  return results[0]?.mode === 'request-rate' ? 'Request rate (req/s)' : 'Concurrency';
}

/** vega-lite spec of throughput against level (seed 001's shape: where throughput flattens). */
export function throughputSpec(results: readonly LevelResult[], options: PlotOptions = {}): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
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

/** vega-lite spec of p95 and p99 latency (ms) against throughput, budgets as dashed rules. */
export function latencySpec(results: readonly LevelResult[], options: PlotOptions = {}): TopLevelSpec {
  const points = results.flatMap((result) => [
    {
      throughput: result.throughput_infer_s,
      latency_ms: result.latency_us.p95 / 1000,
      series: 'p95',
      level: result.name,
    },
    {
      throughput: result.throughput_infer_s,
      latency_ms: result.latency_us.p99 / 1000,
      series: 'p99',
      level: result.name,
    },
  ]);
  const rules = [
    ...(options.budget?.p95_ms
      ? [{ budget_ms: options.budget.p95_ms, label: `p95 budget ${options.budget.p95_ms} ms` }]
      : []),
    ...(options.budget?.p99_ms
      ? [{ budget_ms: options.budget.p99_ms, label: `p99 budget ${options.budget.p99_ms} ms` }]
      : []),
  ];
  const color = {
    field: 'series',
    type: 'nominal' as const,
    title: 'Latency',
    scale: { domain: ['p95', 'p99'] },
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `${options.title ?? 'latency'}: p95/p99 latency vs throughput`,
    width: options.width ?? 560,
    height: options.height ?? 320,
    background: 'white',
    layer: [
      {
        data: { values: points },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'throughput', type: 'quantitative', title: 'Throughput (infer/s)' },
          y: { field: 'latency_ms', type: 'quantitative', title: 'Latency (ms)' },
          color,
          order: { field: 'throughput', type: 'quantitative' },
        },
      },
      ...(rules.length > 0
        ? [
            {
              data: { values: rules },
              layer: [
                {
                  mark: { type: 'rule' as const, color: '#e45756', strokeDash: [6, 4] },
                  encoding: { y: { field: 'budget_ms', type: 'quantitative' as const } },
                },
                {
                  mark: { type: 'text' as const, align: 'left' as const, dx: 4, dy: -6, color: '#e45756' },
                  encoding: {
                    y: { field: 'budget_ms', type: 'quantitative' as const },
                    x: { value: 0 },
                    text: { field: 'label', type: 'nominal' as const },
                  },
                },
              ],
            },
          ]
        : []),
    ],
  };
}

/** Renders a vega-lite spec to an SVG string in Node. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
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
