/**
 * perf_analyzer's closing lines, exactly as it prints them (in run order, not sorted):
 *   Inferences/Second vs. Client Average Batch Latency
 *   Concurrency: 1, throughput: 709.111 infer/sec, latency 1402 usec
 * Pure: returns the text; the caller prints it.
 */
import { levelsWithFigures } from './failure.ts';
import { formatG, usInt } from './format.ts';
import type { LevelResult } from './types.ts';

/** One line per level; open-loop levels print `Request Rate: N` as perf_analyzer does. */
export function perfAnalyzerLine(result: LevelResult): string {
  const lead =
    result.mode === 'concurrency' ? `Concurrency: ${result.level}` : `Request Rate: ${formatG(result.level)}`;
  return `${lead}, throughput: ${formatG(result.throughput_infer_s)} infer/sec, latency ${usInt(result.latency_us.avg)} usec`;
}

/**
 * The closing block (empty string when no level finished, as perf_analyzer prints nothing then); a level
 * with no successful request has no line (failure.ts says why instead).
 */
export function perfAnalyzerSummary(results: readonly LevelResult[]): string {
  const measured = levelsWithFigures(results);
  if (measured.length === 0) return '';
  return (
    ['Inferences/Second vs. Client Average Batch Latency', ...measured.map(perfAnalyzerLine)].join('\n') +
    '\n'
  );
}
