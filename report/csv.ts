/**
 * perf_analyzer-compatible CSV (its `-f` file, and with `verbose` its `--verbose-csv --collect-metrics`
 * file): exact header, microseconds as integers, rows in ascending Inferences/Second as perf_analyzer's
 * ReportWriter sorts them.
 */
import Papa from 'papaparse';
import { levelsWithFigures } from '../lib/summary/failure.ts';
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

/**
 * The columns perf_analyzer's --verbose-csv adds (with --collect-metrics, the server's GPU metrics): average
 * latency, the client's send+receive time and the wait for the response, microseconds.
 */
export const VERBOSE_CSV_COLUMNS = [
  'Avg latency',
  'request/response',
  'response wait',
  'Avg GPU Utilization',
  'Avg GPU Power Usage',
  'Max GPU Memory Usage',
  'Total GPU Memory',
] as const;

/** The full header for a mode; `verbose` adds perf_analyzer's --verbose-csv columns. */
export function csvHeader(mode: LevelResult['mode'], verbose = false): string[] {
  return [
    mode === 'concurrency' ? 'Concurrency' : 'Request Rate',
    ...CSV_COLUMNS,
    ...(verbose ? VERBOSE_CSV_COLUMNS : []),
  ];
}

/**
 * A GPU metric cell as perf_analyzer writes one (`<gpu uuid>:<value>;` per GPU); the suite keeps the figure
 * over all GPUs, so the one entry is `all:`. Empty when the target served no GPU metric, as perf_analyzer.
 */
function gpuCell(value: number | undefined): string {
  return value === undefined ? '' : `all:${formatG(value)};`;
}

/** The --verbose-csv cells of one row. */
function verboseCells(result: LevelResult): string[] {
  const sendRecv_us = result.client_send_us + result.client_recv_us;
  const m = result.server_metrics;
  return [
    String(usInt(result.latency_us.avg)),
    String(usInt(sendRecv_us)),
    String(usInt(result.latency_us.avg - sendRecv_us)),
    // Triton's nv_gpu_utilization is a fraction; the report keeps percent.
    gpuCell(m?.gpu_utilization_avg_pct === undefined ? undefined : m.gpu_utilization_avg_pct / 100),
    gpuCell(m?.gpu_power_usage_avg_w),
    gpuCell(m?.gpu_memory_used_max_bytes),
    gpuCell(m?.gpu_memory_total_bytes),
  ];
}

/** One CSV row; numbers as perf_analyzer prints them (doubles as %g, microseconds truncated). */
function row(result: LevelResult, verbose: boolean): string[] {
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
    ...(verbose ? verboseCells(result) : []),
  ];
}

/** Options of perfAnalyzerCsv. */
export interface CsvOptions {
  /** Header's first column when there are no results. @default 'concurrency' */
  mode?: LevelResult['mode'];
  /** perf_analyzer's --verbose-csv columns. @default false */
  verbose?: boolean;
}

/**
 * Renders the CSV text (header only when there are no results); all results must share one mode. A level
 * with no successful request has no row, as perf_analyzer writes none for a level it could not measure.
 */
export function perfAnalyzerCsv(results: readonly LevelResult[], options: CsvOptions = {}): string {
  const { mode = 'concurrency', verbose = false } = options;
  const modes = new Set(results.map((result) => result.mode));
  if (modes.size > 1)
    throw new Error(
      'perfAnalyzerCsv: results mix concurrency and request-rate levels; write one CSV per mode',
    );
  const sorted = levelsWithFigures(results).sort((a, b) => a.throughput_infer_s - b.throughput_infer_s);
  const fields = csvHeader(results[0]?.mode ?? mode, verbose);
  // papaparse leaves a blank row when data is empty; perf_analyzer would write the header alone.
  const table = sorted.length === 0 ? [fields] : { fields, data: sorted.map((r) => row(r, verbose)) };
  return `${Papa.unparse(table, { newline: '\n' })}\n`;
}
