/**
 * The charts of report.html that plot.ts does not draw: latency percentiles (p50..p99) against throughput
 * with the budget lines, and where each level's average latency goes, stacked (seed 002's figure). Specs are
 * vega-lite, rendered to inline SVG by plot.ts's renderSvg, so the page needs no script and no network.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { LevelResult } from '../lib/summary/types.ts';
import type { PlotOptions } from './plot.ts';

/** One child of a layered spec, as vega-lite types it. */
type LayerChild = Extract<TopLevelSpec, { layer: unknown }>['layer'][number];

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const PERCENTILES = ['p50', 'p90', 'p95', 'p99'] as const;

/** The stacked components in perf_analyzer's CSV order, bottom to top. */
export const LATENCY_COMPONENTS = [
  'Client send',
  'Network+server',
  'Server queue',
  'Compute input',
  'Compute infer',
  'Compute output',
  'Client recv',
] as const;

/** A level's average latency split into LATENCY_COMPONENTS, microseconds (0 where the server gave none). */
export function latencyComponents_us(
  result: LevelResult,
): Record<(typeof LATENCY_COMPONENTS)[number], number> {
  const server = result.server;
  return {
    'Client send': result.client_send_us,
    'Network+server': result.network_server_us,
    'Server queue': server?.queue_us ?? 0,
    'Compute input': server?.compute_input_us ?? 0,
    'Compute infer': server?.compute_infer_us ?? 0,
    'Compute output': server?.compute_output_us ?? 0,
    'Client recv': result.client_recv_us,
  };
}

/** Dashed budget rules with their labels, as a layer; none when no budget is given. */
function budgetLayers(options: PlotOptions): LayerChild[] {
  const rules = (['p95_ms', 'p99_ms'] as const).flatMap((key) => {
    const ms = options.budget?.[key];
    return ms ? [{ budget_ms: ms, label: `${key.slice(0, 3)} budget ${ms} ms` }] : [];
  });
  if (rules.length === 0) return [];
  return [
    {
      data: { values: rules },
      layer: [
        {
          mark: { type: 'rule', color: '#e45756', strokeDash: [6, 4] },
          encoding: { y: { field: 'budget_ms', type: 'quantitative' } },
        },
        {
          mark: { type: 'text', align: 'left', dx: 4, dy: -6, color: '#e45756' },
          encoding: {
            y: { field: 'budget_ms', type: 'quantitative' },
            x: { value: 0 },
            text: { field: 'label', type: 'nominal' },
          },
        },
      ],
    },
  ];
}

/** vega-lite spec of p50/p90/p95/p99 latency (ms) against throughput, budgets as dashed rules. */
export function percentilesSpec(results: readonly LevelResult[], options: PlotOptions = {}): TopLevelSpec {
  const points = results.flatMap((result) =>
    PERCENTILES.map((series) => ({
      throughput: result.throughput_infer_s,
      latency_ms: result.latency_us[series] / 1000,
      series,
      level: result.name,
    })),
  );
  return {
    $schema: SCHEMA,
    title: `${options.title ?? 'latency'}: latency percentiles vs throughput`,
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
          color: {
            field: 'series',
            type: 'nominal',
            title: 'Percentile',
            scale: { domain: [...PERCENTILES] },
          },
          // Lines join levels in throughput order, so a level that lost throughput folds the line back (the knee).
          order: { field: 'throughput', type: 'quantitative' },
        },
      },
      ...budgetLayers(options),
    ],
  };
}

/** vega-lite spec of each level's average latency (ms) stacked by component, levels in run order. */
export function componentsSpec(results: readonly LevelResult[], options: PlotOptions = {}): TopLevelSpec {
  const values = results.flatMap((result) =>
    Object.entries(latencyComponents_us(result)).map(([component, us]) => ({
      level: result.name,
      component,
      rank: LATENCY_COMPONENTS.indexOf(component as (typeof LATENCY_COMPONENTS)[number]),
      ms: us / 1000,
    })),
  );
  return {
    $schema: SCHEMA,
    title: `${options.title ?? 'latency'}: average latency by component`,
    width: options.width ?? 560,
    height: options.height ?? 320,
    background: 'white',
    data: { values },
    mark: { type: 'bar' },
    encoding: {
      x: {
        field: 'level',
        type: 'ordinal',
        title: 'Level',
        sort: results.map((result) => result.name),
        axis: { labelAngle: 0 },
      },
      y: { field: 'ms', type: 'quantitative', title: 'Average latency (ms)', stack: 'zero' },
      color: {
        field: 'component',
        type: 'nominal',
        title: 'Component',
        scale: { domain: [...LATENCY_COMPONENTS], scheme: 'tableau10' },
      },
      order: { field: 'rank', type: 'quantitative' },
    },
  };
}
