/**
 * One level as genai-perf's CSV export (`profile_export_genai_perf.csv`, genai-perf's CsvExporter) lays it out,
 * so scripts written for genai-perf read the suite's runs: a request-metrics block (Metric, avg, min, max, p99,
 * p95, p90, p75, p50, p25; TTFT, ITL and request latency in ms, then output and input sequence length, which
 * genai-perf prints without a unit), an empty row, and a system-metrics block (Metric, Value: output token and
 * request throughput per second). Numbers as genai-perf formats them: two decimals with thousands separators
 * (quoted where that puts a comma in the cell). The metrics are the suite's (docs/generative-metrics.md). Pure.
 */
import type { GenaiPerfStats, LevelResult } from '../summary/types.ts';
import { GENAI_METRIC_DEFS, type GenaiMetricDef } from './metric-defs.ts';

const STATS = ['avg', 'min', 'max', 'p99', 'p95', 'p90', 'p75', 'p50', 'p25'] as const;

/** genai-perf's row label: its name, with "(ms)" for a time (its lengths have no unit). */
function rowName(def: GenaiMetricDef): string {
  return `${def.genaiPerf!.csv}${def.unit === 'ms' ? ' (ms)' : ''}`;
}

/** The request-metric rows in genai-perf's order: the metric's definition and the level's statistics key. */
const ROWS = [
  [GENAI_METRIC_DEFS.ttft, 'ttft_ms'],
  [GENAI_METRIC_DEFS.itl, 'itl_ms'],
  [GENAI_METRIC_DEFS.latency, 'latency_ms'],
  [GENAI_METRIC_DEFS.osl, 'osl'],
  [GENAI_METRIC_DEFS.isl, 'isl'],
] as const;

/** A system metric's row label, e.g. "Request Throughput (per sec)". */
function perSecond(def: GenaiMetricDef): string {
  return `${def.genaiPerf!.csv} (per sec)`;
}

/** genai-perf's number format: two decimals, thousands separated by commas. */
function number(value: number, thousands: boolean): string {
  const fixed = value.toFixed(2);
  if (!thousands) return fixed;
  const [whole = '0', fraction = '00'] = fixed.split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = whole.replace('-', '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${digits}.${fraction}`;
}

/** A CSV cell, quoted when it holds a comma (as Python's csv writer does). */
function cell(text: string): string {
  return text.includes(',') ? `"${text}"` : text;
}

/** The level's CSV text; undefined for a level without genai-perf's statistics (not generative). */
export function genaiPerfCsv(level: LevelResult): string | undefined {
  const stats = level.genai?.genai_perf;
  if (!stats) return undefined;
  const lines = [['Metric', ...STATS].join(',')];
  for (const [def, key] of ROWS) {
    const s: GenaiPerfStats = stats[key];
    lines.push([rowName(def), ...STATS.map((stat) => cell(number(s[stat], true)))].join(','));
  }
  lines.push('');
  lines.push('Metric,Value');
  lines.push(
    `${perSecond(GENAI_METRIC_DEFS.outputTokenThroughput)},${number(level.genai!.output_tokens_per_s, false)}`,
  );
  lines.push(
    `${perSecond(GENAI_METRIC_DEFS.requestThroughput)},${number(level.genai!.requests_per_s, false)}`,
  );
  return `${lines.join('\r\n')}\r\n`;
}

/** The file a level's CSV goes to in the run folder, e.g. profile_export_genai_perf-c4.csv. */
export function genaiPerfCsvName(level: LevelResult): string {
  return `profile_export_genai_perf-${level.name}.csv`;
}
