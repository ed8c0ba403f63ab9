/**
 * The charts of report.html that plot.ts does not draw: where each level's average latency goes, stacked
 * (seed 002's figure), and the server's Prometheus metrics over the run with each level's window shaded.
 * Specs are vega-lite, rendered to inline SVG by plot.ts's renderSvg, so the page needs no script and no network.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { LevelResult, ServerTimeline } from '../lib/summary/types.ts';
import { type PlotOptions, SCHEMA } from './plot.ts';
import { us_to_ms } from '../lib/units.ts';

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

/**
 * Whether the latency breakdown (chart and table) has anything to say: not for a generative run (its request
 * is a stream, with no send/receive split), nor when every component of every level is zero. A run with no
 * measured level keeps it, to say "no data".
 */
export function latencyBreakdownApplies(results: readonly LevelResult[]): boolean {
  if (results.some((result) => result.genai)) return false;
  if (results.length === 0) return true;
  return results.some((result) => Object.values(latencyComponents_us(result)).some((us) => us > 0));
}

/** vega-lite spec of each level's average latency (ms) stacked by component, levels in run order. */
export function componentsSpec(results: readonly LevelResult[], options: PlotOptions = {}): TopLevelSpec {
  const values = results.flatMap((result) =>
    Object.entries(latencyComponents_us(result)).map(([component, us]) => ({
      level: result.name,
      component,
      rank: LATENCY_COMPONENTS.indexOf(component as (typeof LATENCY_COMPONENTS)[number]),
      ms: us_to_ms(us),
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

/** The series of the server-metrics chart: per-request times (ms) above, utilisation (%) below. */
export const SERVER_TIME_SERIES = ['Queue', 'Compute infer'] as const;
export const SERVER_UTIL_SERIES = ['CPU', 'GPU'] as const;

/**
 * vega-lite spec of the server's metrics over the run: average queue and compute-infer time per request
 * (ms) and CPU/GPU utilisation (%) per scrape interval, one panel each on a shared time axis, with every
 * level's measurement window shaded and named.
 */
export function serverMetricsSpec(timeline: ServerTimeline, options: PlotOptions = {}): TopLevelSpec {
  const times = timeline.points.flatMap((p) =>
    (
      [
        ['Queue', p.avg_queue_us],
        ['Compute infer', p.avg_compute_infer_us],
      ] as const
    ).flatMap(([series, us]) => (us === undefined ? [] : [{ t_s: p.t_s, series, value: us_to_ms(us) }])),
  );
  const utils = timeline.points.flatMap((p) =>
    (
      [
        ['CPU', p.cpu_utilization_pct],
        ['GPU', p.gpu_utilization_pct],
      ] as const
    ).flatMap(([series, pct]) => (pct === undefined ? [] : [{ t_s: p.t_s, series, value: pct }])),
  );
  const x = { field: 't_s', type: 'quantitative' as const, title: 'Time since the first scrape (s)' };
  const windows = {
    data: { values: timeline.windows },
    layer: [
      {
        mark: { type: 'rect' as const, color: '#9ecae9', opacity: 0.25 },
        encoding: {
          x: { field: 'from_s', type: 'quantitative' as const },
          x2: { field: 'to_s' },
        },
      },
      {
        mark: { type: 'text' as const, baseline: 'top' as const, dy: 2, color: '#31658c' },
        encoding: {
          x: { field: 'from_s', type: 'quantitative' as const },
          y: { value: 0 },
          text: { field: 'level', type: 'nominal' as const },
        },
      },
    ],
  };
  const panel = (values: { series: string }[], title: string, all: readonly string[], legend: string) => {
    // The legend names only the series the target served (no GPU entry for a CPU-only server).
    const served = all.filter((name) => values.some((v) => v.series === name));
    return panelSpec(values, title, served.length > 0 ? served : all, legend);
  };
  const panelSpec = (values: object[], title: string, domain: readonly string[], legend: string) => ({
    width: options.width ?? 560,
    height: Math.round((options.height ?? 320) / 2),
    layer: [
      windows,
      {
        data: { values },
        mark: { type: 'line' as const, point: true },
        encoding: {
          x,
          y: { field: 'value', type: 'quantitative' as const, title },
          color: { field: 'series', type: 'nominal' as const, title: legend, scale: { domain: [...domain] } },
        },
      },
    ],
  });
  return {
    $schema: SCHEMA,
    title: `${options.title ?? 'server'}: server metrics over the run`,
    background: 'white',
    resolve: { scale: { color: 'independent' } },
    vconcat: [
      panel(times, 'Per request (ms)', SERVER_TIME_SERIES, 'Server time'),
      panel(utils, 'Utilisation (%)', SERVER_UTIL_SERIES, 'Utilisation'),
    ],
  };
}
