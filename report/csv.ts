/**
 * perf_analyzer-compatible CSV (its `-f` file without --verbose-csv): exact header, microseconds as
 * integers, rows in ascending Inferences/Second as perf_analyzer's ReportWriter sorts them.
 */
import Papa from 'papaparse';
import { formatG, usInt } from '../lib/summary/format.ts';
import type { LevelResult } from '../lib/summary/types.ts';

/** The header after the first column (`Concurrency` or `Request Rate`). */
export const CSV_COLUMNS = [
  'Inferences/Second',
  'Client Send',
  'Network+Server Send/Recv',
  'Server Queue',
  'Server Compute Input',
  'Server Compute Infer',
  'Server Compute Output',
  'Client Recv',
  'p50 latency',
  'p90 latency',
  'p95 latency',
  'p99 latency',
] as const;

/** The full header for a mode. */
export function csvHeader(mode: LevelResult['mode']): string[] {
  return [mode === 'concurrency' ? 'Concurrency' : 'Request Rate', ...CSV_COLUMNS];
}

/** One CSV row; numbers as perf_analyzer prints them (doubles as %g, microseconds truncated). */
function row(result: LevelResult): string[] {
  const server = result.server;
  return [
    formatG(result.level),
    formatG(result.throughput_infer_s),
    String(usInt(result.client_send_us)),
    String(usInt(result.network_server_us)),
    String(usInt(server?.queue_us ?? 0)),
    String(usInt(server?.compute_input_us ?? 0)),
    String(usInt(server?.compute_infer_us ?? 0)),
    String(usInt(server?.compute_output_us ?? 0)),
    String(usInt(result.client_recv_us)),
    String(usInt(result.latency_us.p50)),
    String(usInt(result.latency_us.p90)),
    String(usInt(result.latency_us.p95)),
    String(usInt(result.latency_us.p99)),
  ];
}

/** Renders the CSV text (header only when there are no results); all results must share one mode. */
export function perfAnalyzerCsv(
  results: readonly LevelResult[],
  mode: LevelResult['mode'] = 'concurrency',
): string {
  const modes = new Set(results.map((result) => result.mode));
  if (modes.size > 1)
    throw new Error(
      'perfAnalyzerCsv: results mix concurrency and request-rate levels; write one CSV per mode',
    );
  const sorted = [...results].sort((a, b) => a.throughput_infer_s - b.throughput_infer_s);
  const fields = csvHeader(results[0]?.mode ?? mode);
  // papaparse leaves a blank row when data is empty; perf_analyzer would write the header alone.
  const table = sorted.length === 0 ? [fields] : { fields, data: sorted.map(row) };
  return `${Papa.unparse(table, { newline: '\n' })}\n`;
}
