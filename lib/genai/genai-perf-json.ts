/**
 * One level as genai-perf's JSON export (`profile_export_genai_perf.json`, genai-perf's JsonExporter) lays it
 * out, beside the CSV one (genai-perf-csv.ts): a key per metric in genai-perf's names, each holding its `unit`
 * and statistics (request metrics: avg, p1..p99, min, max; system metrics: avg only), then `input_config`
 * with what the run was asked (model, stimulus, goodput SLOs). Units as genai-perf writes them: ms, tokens,
 * requests/sec, tokens/sec, count. `std` only where the statistics have it (records scored offline by
 * stats.ts); k6's trends do not keep it. The metrics
 * are the suite's (docs/generative-metrics.md). Pure.
 */
import type { GenaiPerfStats, LevelResult } from '../summary/types.ts';
import { GENAI_METRIC_DEFS as DEFS, type GenaiMetricDef } from './metric-defs.ts';
import { PERCENTILES } from './stats.ts';

/** genai-perf's request metrics in its order: the metric's definition, the level's statistics key. */
const REQUEST_METRICS = [
  [DEFS.latency, 'latency_ms'],
  [DEFS.ttft, 'ttft_ms'],
  [DEFS.itl, 'itl_ms'],
  [DEFS.osl, 'osl'],
  [DEFS.isl, 'isl'],
] as const;

/** genai-perf's key of a metric. */
function key(def: GenaiMetricDef): string {
  return def.genaiPerf!.key;
}

type Stat = { unit: string } & Record<string, number | string>;

/** A request metric's entry: unit, avg, percentiles, min, max, and std when the statistics have it. */
function requestMetric(unit: string, s: GenaiPerfStats): Stat {
  const out: Stat = { unit, avg: s.avg };
  for (const p of PERCENTILES) out[`p${p}`] = s[`p${p}`];
  out.min = s.min;
  out.max = s.max;
  if (s.std !== undefined) out.std = s.std;
  return out;
}

/** The level's JSON text; undefined for a level without genai-perf's statistics (not generative). */
export function genaiPerfJson(level: LevelResult, model: string): string | undefined {
  const g = level.genai;
  const stats = g?.genai_perf;
  if (!g || !stats) return undefined;
  const out: Record<string, unknown> = {
    [key(DEFS.requestThroughput)]: { unit: DEFS.requestThroughput.unit, avg: g.requests_per_s },
  };
  for (const [def, stat] of REQUEST_METRICS) out[key(def)] = requestMetric(def.unit, stats[stat]);
  out.request_count = { unit: 'count', avg: level.requests + level.errors };
  out[key(DEFS.outputTokenThroughput)] = {
    unit: DEFS.outputTokenThroughput.unit,
    avg: g.output_tokens_per_s,
  };
  if (g.goodput) out[key(DEFS.goodput)] = { unit: DEFS.goodput.unit, avg: g.goodput.requests_per_s };
  const slo = g.goodput?.slo;
  out.input_config = {
    model_names: [model],
    perf_analyzer: {
      stimulus: { [level.mode === 'concurrency' ? 'concurrency' : 'request_rate']: level.level },
    },
    // genai-perf's --goodput takes its metric names and ms.
    ...(slo
      ? {
          input: {
            goodput: {
              ...(slo.ttft_ms !== undefined ? { [key(DEFS.ttft)]: slo.ttft_ms } : {}),
              ...(slo.itl_ms !== undefined ? { [key(DEFS.itl)]: slo.itl_ms } : {}),
              ...(slo.latency_ms !== undefined ? { [key(DEFS.latency)]: slo.latency_ms } : {}),
            },
          },
        }
      : {}),
  };
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** The file a level's JSON goes to in the run folder, e.g. profile_export_genai_perf-c4.json. */
export function genaiPerfJsonName(level: LevelResult): string {
  return `profile_export_genai_perf-${level.name}.json`;
}
